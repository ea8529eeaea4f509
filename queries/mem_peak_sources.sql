-- Title: What is live at the peak, by source
-- Question: Which lines of user code hold the memory at the peak?  Live
--   allocations grouped by their first user-code frame (PyTorch internals
--   skipped).
-- Requires: report_mem_live
-- Parameters: :top
-- Empty: no memory snapshot is loaded, or nothing was live at the peak
-- Columns:
--   snapshot      -      snapshot id
--   device        -      device ordinal
--   source        source file:line function of the first user frame (no stack: recorded without context)
--   bytes         bytes  live bytes from that source
--   pct_peak      %      share of the peak
--   allocations   count  live allocations
--   from_before   count  of which allocated before the window
WITH ranked AS (
  SELECT l.snapshot_id, l.device,
    coalesce(f.source, '(no stack)') AS source,
    sum(l.size) AS bytes, count(*) AS allocations, sum(l.alloc_seq IS NULL) AS from_before,
    row_number() OVER (PARTITION BY l.snapshot_id, l.device ORDER BY sum(l.size) DESC,
      coalesce(f.source, '(no stack)')) AS rn
  FROM report_mem_live l LEFT JOIN report_user_frame f ON f.stack_id = l.stack_id
  GROUP BY l.snapshot_id, l.device, source
)
SELECT r.snapshot_id AS snapshot, r.device, r.source, r.bytes,
  round(100.0 * r.bytes / max(p.peak_allocated, 1), 2) AS pct_peak, r.allocations, r.from_before
FROM ranked r JOIN report_mem_peak p ON p.snapshot_id = r.snapshot_id AND p.device = r.device
WHERE r.rn <= :top ORDER BY r.snapshot_id, r.device, r.rn;
