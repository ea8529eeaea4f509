-- Rule: oom_risk
-- 12. Little headroom on the device: a risk, not a saving.
-- Reads: measure_mem
SELECT CASE WHEN m.capacity - m.peak_reserved < 1073741824 THEN 60.0 ELSE 30.0 END AS priority,
  'oom_risk' AS rule,
  CASE WHEN m.capacity - m.peak_reserved < 1073741824 THEN 'high' ELSE 'medium' END AS confidence,
  printf('Only %s of headroom on device %d', profdb_fmt_bytes(m.capacity - m.peak_reserved),
    m.device) AS title,
  printf('Peak reserved %s of %s device memory; peak allocated %s (requested sizes).',
    profdb_fmt_bytes(m.peak_reserved),
    profdb_fmt_bytes(m.capacity), profdb_fmt_bytes(m.peak_allocated)) AS observation,
  'A longer sequence, a larger batch or more fragmentation will run out of memory.' AS hypothesis,
  'Lower the peak (checkpointing, smaller micro-batches) or the reserve ' ||
    '(expandable_segments:True) before scaling up.' AS action,
  'Headroom for growth without OOMs.' AS expected_impact,
  'New snapshot: capacity - peak_reserved above 2 GiB.' AS validation,
  0 AS needs_artifact, 0 AS expected_saving_pct, NULL AS expected_saving_ns,
    NULL AS expected_saving_bytes, json_array(json_object('snapshot', m.snapshot_id, 'device',
      m.device)) AS subjects,
  json_object('sections', json_array('mem_fragmentation', 'mem_peak'),
    'figures', json_object('capacity', m.capacity, 'peak_reserved', m.peak_reserved)) AS evidence,
      0 AS cut_may_explain
FROM measure_mem m WHERE m.capacity IS NOT NULL AND m.peak_reserved IS NOT NULL
  AND m.capacity - m.peak_reserved < 2147483648;
