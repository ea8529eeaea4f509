-- Rule: oom
-- 10. OOMs recorded: a failure, not a saving.
-- Reads: measure_mem
SELECT 90.0 AS priority, 'oom' AS rule, 'high' AS confidence,
  printf('%d out-of-memory event(s) on device %d', m.ooms, m.device) AS title,
  printf('Snapshot %d records %d allocation failure(s) (mem_oom has their sizes and sources).',
    m.snapshot_id, m.ooms) AS observation,
  'The peak demand exceeds what the device can provide, possibly worsened by fragmentation.' AS
    hypothesis,
  'Lower the peak (activation checkpointing, smaller micro-batches, freeing tensors earlier) ' ||
    'and set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.' AS action,
  'Runs that do not fail.' AS expected_impact,
  'Record a new snapshot: no oom entries in mem_action_sum.' AS validation,
  0 AS needs_artifact, 0 AS expected_saving_pct, NULL AS expected_saving_ns,
    NULL AS expected_saving_bytes, json_array(json_object('snapshot', m.snapshot_id, 'device',
      m.device)) AS subjects,
  json_object('sections', json_array('mem_oom', 'mem_action_sum'), 'figures', json_object('ooms',
    m.ooms)) AS evidence, 0 AS cut_may_explain
FROM measure_mem m WHERE m.ooms > 0;
