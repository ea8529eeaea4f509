-- Rule: peak_source
-- 13. One source holds much of the peak: freeing all of it earlier saves
-- at most its bytes.  A stack that creates parameters is not activations.
-- Reads: measure_floor, report_mem_live, report_mem_peak, report_user_frame, stack_frame
WITH
source_m AS (
  SELECT l.snapshot_id, l.device, coalesce(f.source, '(no stack)') AS source,
    sum(l.size) AS bytes, count(*) AS n
  FROM report_mem_live l LEFT JOIN report_user_frame f ON f.stack_id = l.stack_id
  GROUP BY l.snapshot_id, l.device, source
),
top_source AS (
  SELECT s.*, p.peak_allocated, p.peak_reserved,
    -- the stack creates parameters or buffers (a module's __init__, weight
    -- initialisation), not activations
    EXISTS (SELECT 1 FROM report_mem_live l JOIN stack_frame f ON f.stack_id = l.stack_id
            WHERE l.snapshot_id = s.snapshot_id AND l.device = s.device
              AND coalesce((SELECT u.source FROM report_user_frame u WHERE u.stack_id =
                l.stack_id), '(no stack)') = s.source
              AND (f.name IN ('__init__', 'reset_parameters', '_init_weights', 'init_weights',
                              'to_empty', 'load_state_dict', '_apply')
                   OR f.filename LIKE '%torch/nn/init.py')) AS init
  FROM source_m s JOIN report_mem_peak p USING (snapshot_id, device)
  WHERE s.source <> '(no stack)'
  ORDER BY 1.0 * s.bytes / max(p.peak_allocated, 1) DESC, s.source LIMIT 1
)
SELECT round(100.0 * s.bytes / max(s.peak_reserved, s.peak_allocated), 1) AS priority,
  'peak_source' AS rule, 'low' AS confidence,
  printf('%s holds %.0f%% of the peak', s.source, 100.0 * s.bytes / s.peak_allocated) AS title,
  printf('%d allocation(s), %s of the %s peak (requested sizes) on device %d ' ||
    '(mem_peak_sources).', s.n,
    profdb_fmt_bytes(s.bytes), profdb_fmt_bytes(s.peak_allocated), s.device) AS observation,
  CASE WHEN s.init THEN 'This line creates model parameters or buffers (the stack passes ' ||
    'through a module''s __init__ or weight initialisation): they live for the whole run.'
       ELSE 'This line creates the tensors that define the peak (activations saved for ' ||
         'backward, a large buffer, or a cache).' END AS hypothesis,
  CASE WHEN s.init THEN 'Shard the parameters (FSDP, ZeRO), keep them in lower precision, or ' ||
    'offload them; activation checkpointing does not help here.'
       ELSE 'Check whether they must all be alive at once: activation checkpointing, freeing ' ||
         '(del) earlier, smaller chunks, or lower precision.' END AS action,
  printf('Up to %s off the peak.', profdb_fmt_bytes(s.bytes)) AS expected_impact,
  'New snapshot: mem_peak.peak_allocated down, this source smaller in mem_peak_sources.' AS
    validation,
  0 AS needs_artifact, round(min(100.0 * s.bytes / max(s.peak_reserved, s.peak_allocated), 100),
    2) AS expected_saving_pct, NULL AS expected_saving_ns, s.bytes AS expected_saving_bytes,
  json_array(json_object('snapshot', s.snapshot_id, 'source', s.source, 'device',
    s.device)) AS subjects,
  json_object('sections', json_array('mem_peak_sources', 'mem_peak'),
    'figures', json_object('source_bytes', s.bytes, 'peak_allocated', s.peak_allocated,
      'peak_reserved', s.peak_reserved)) AS evidence, 0 AS cut_may_explain
FROM top_source s, measure_floor f WHERE s.peak_allocated > 0 AND s.bytes > 0.3 * s.peak_allocated
  AND s.bytes >= f.min_bytes;
