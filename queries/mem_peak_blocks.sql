-- Title: Largest allocations at the peak
-- Question: Which single allocations are the biggest at the peak, and
--   where were they made (first frames of their stacks)?
-- Requires: report_mem_live
-- Parameters: :top
-- Empty: no memory snapshot is loaded, or nothing was live at the peak
-- Columns:
--   snapshot      -      snapshot id
--   device        -      device ordinal
--   size          bytes  requested bytes
--   alloc_seq     -      allocator event that made it (empty: before the window)
--   source        source first user-code frame (file:line function)
--   stack         -      first five Python frames (file name:line function), innermost first
WITH ranked AS (
  SELECT l.*, row_number() OVER (PARTITION BY l.snapshot_id, l.device
                                 ORDER BY l.size DESC, l.addr) AS rn
  FROM report_mem_live l
)
SELECT r.snapshot_id AS snapshot, r.device, r.size, r.alloc_seq,
  (SELECT f.source FROM report_user_frame f
   WHERE f.stack_id = r.stack_id) AS source,
  (SELECT group_concat(base || ':' || line || ' ' || name, ' < ')
   FROM (SELECT f.name, f.line, replace(p, rtrim(p, replace(p, '/', '')), '') AS base
         FROM (SELECT s.*, replace(coalesce(s.filename, '?'), '\', '/') AS p
               FROM stack_frame s WHERE s.stack_id = r.stack_id) f
         WHERE f.filename LIKE '%.py' OR NOT EXISTS (SELECT 1 FROM stack_frame x
           WHERE x.stack_id = r.stack_id AND x.filename LIKE '%.py')
         ORDER BY f.depth LIMIT 5)) AS stack
FROM ranked r WHERE r.rn <= :top ORDER BY r.snapshot_id, r.device, r.rn;
