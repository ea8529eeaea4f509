-- Title: Allocation churn by size and source
-- Question: Which allocation sizes are allocated over and over (count x
--   size), and which source lines allocate them?  The top sizes by churn
--   (sizes allocated more than once), each with its top three sources.
-- Requires: report_mem_device
-- Parameters: :top
-- Empty: no allocator trace is loaded, or no size was allocated twice
-- Columns:
--   snapshot     -      snapshot id
--   device       -      device ordinal
--   size         bytes  allocation size (requested bytes)
--   allocs       count  allocations of that size
--   churn        bytes  size x allocs
--   source       source first user-code frame ((no stack) when not recorded)
--   source_allocs count allocations of that size from the source
WITH sizes AS (
  SELECT e.snapshot_id, e.device, e.size, count(*) AS allocs, e.size * count(*) AS churn,
    row_number() OVER (PARTITION BY e.snapshot_id, e.device ORDER BY e.size * count(*) DESC, e.size DESC) AS rn
  FROM alloc_event e JOIN report_mem_device d ON d.snapshot_id = e.snapshot_id AND d.device = e.device
  WHERE e.action = 'alloc' GROUP BY e.snapshot_id, e.device, e.size HAVING count(*) > 1
), sources AS (
  SELECT s.snapshot_id, s.device, s.size, s.rn,
    coalesce(f.source, '(no stack)') AS source, count(*) AS n,
    row_number() OVER (PARTITION BY s.snapshot_id, s.device, s.size ORDER BY count(*) DESC,
      coalesce(f.source, '(no stack)')) AS srn
  FROM sizes s JOIN alloc_event e ON e.snapshot_id = s.snapshot_id AND e.device = s.device
    AND e.size = s.size AND e.action = 'alloc'
  LEFT JOIN report_user_frame f ON f.stack_id = e.stack_id
  WHERE s.rn <= min(:top, 5)
  GROUP BY s.snapshot_id, s.device, s.size, source
)
SELECT z.snapshot_id AS snapshot, z.device, z.size, z.allocs, z.churn, o.source, o.n AS source_allocs
FROM sizes z JOIN sources o ON o.snapshot_id = z.snapshot_id AND o.device = z.device AND o.size = z.size
WHERE o.srn <= 3 ORDER BY z.snapshot_id, z.device, z.rn, o.srn;
