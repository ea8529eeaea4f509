-- Rule: allocation_churn
-- 14. Allocation churn: allocator overhead, no bound in time or memory.
-- Reads: alloc_event, measure_mem, report_mem_device
WITH
churn_m AS (
  SELECT snapshot_id, device, size, count(*) AS allocs, size * count(*) AS churn
  FROM alloc_event WHERE action = 'alloc'
    AND snapshot_id IN (SELECT snapshot_id FROM report_mem_device)
  GROUP BY snapshot_id, device, size ORDER BY churn DESC, size DESC LIMIT 1
)
SELECT 0.5 AS priority, 'allocation_churn' AS rule, 'low' AS confidence,
  printf('%s allocations are made %d times', profdb_fmt_bytes(c.size), c.allocs) AS title,
  printf('%d allocations of %s: %s allocated in total (mem_churn has their sources).', c.allocs,
    profdb_fmt_bytes(c.size), profdb_fmt_bytes(c.churn)) AS observation,
  'The same buffers are allocated and freed repeatedly; the caching allocator absorbs it, but ' ||
    'it adds CPU overhead and fragmentation.' AS hypothesis,
  'Preallocate and reuse these buffers, or use out= variants and in-place operations.' AS action,
  'Less allocator overhead and fragmentation.' AS expected_impact,
  'New snapshot: mem_churn.allocs for this size down.' AS validation,
  0 AS needs_artifact, 0 AS expected_saving_pct, NULL AS expected_saving_ns,
    NULL AS expected_saving_bytes, json_array(json_object('snapshot', c.snapshot_id, 'size',
      c.size, 'device', c.device)) AS subjects,
  json_object('sections', json_array('mem_churn'),
    'figures', json_object('allocs', c.allocs, 'churn_bytes', c.churn, 'peak_allocated',
      m.peak_allocated)) AS evidence, 0 AS cut_may_explain
FROM churn_m c, measure_mem m
WHERE c.snapshot_id = m.snapshot_id AND c.device = m.device AND c.allocs >= 100
  AND c.churn > 10 * max(coalesce(m.peak_allocated, 0), 1);
