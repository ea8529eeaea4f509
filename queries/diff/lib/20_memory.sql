-- profdb diff, memory: the most recent snapshot of each run (highest
-- snapshot_id), per device.  See lib/10_sides.sql for the conventions.

-- The snapshot compared on each side.
CREATE TEMP TABLE diff_snapshot AS
SELECT 'after' AS side, max(snapshot_id) AS snapshot_id FROM main.snapshot
HAVING count(*) > 0
UNION ALL
SELECT 'before', max(snapshot_id) FROM base.snapshot HAVING count(*) > 0;

-- Per side and device: the allocator's state when the snapshot was taken,
-- the replayed peak, and the OOMs recorded.
--   reserved, allocated, inactive: bytes of segments, active and inactive
--   blocks; peak_allocated, peak_reserved: mem_peak(); ooms: 'oom' entries
CREATE TEMP TABLE diff_mem AS
WITH blocks AS (
  SELECT 'after' AS side, g.device, sum(g.total_size) AS reserved,
    (SELECT coalesce(sum(b.size), 0) FROM main.block b JOIN main.segment x USING (segment_id)
     WHERE x.snapshot_id = s.snapshot_id AND x.device = g.device
       AND b.state = 'active_allocated') AS allocated,
    (SELECT coalesce(sum(b.size), 0) FROM main.block b JOIN main.segment x USING (segment_id)
     WHERE x.snapshot_id = s.snapshot_id AND x.device = g.device
       AND b.state = 'inactive') AS inactive,
    count(*) AS segments, s.snapshot_id
  FROM diff_snapshot s JOIN main.segment g ON g.snapshot_id = s.snapshot_id
  WHERE s.side = 'after' GROUP BY g.device
  UNION ALL
  SELECT 'before', g.device, sum(g.total_size),
    (SELECT coalesce(sum(b.size), 0) FROM base.block b JOIN base.segment x USING (segment_id)
     WHERE x.snapshot_id = s.snapshot_id AND x.device = g.device
       AND b.state = 'active_allocated'),
    (SELECT coalesce(sum(b.size), 0) FROM base.block b JOIN base.segment x USING (segment_id)
     WHERE x.snapshot_id = s.snapshot_id AND x.device = g.device
       AND b.state = 'inactive'),
    count(*), s.snapshot_id
  FROM diff_snapshot s JOIN base.segment g ON g.snapshot_id = s.snapshot_id
  WHERE s.side = 'before' GROUP BY g.device
)
SELECT b.side, b.device, b.reserved, b.allocated, b.inactive, b.segments,
  p.peak_allocated, p.peak_reserved,
  CASE b.side
    WHEN 'after' THEN (SELECT count(*) FROM main.alloc_event e WHERE e.snapshot_id = b.snapshot_id
                       AND e.device = b.device AND e.action = 'oom')
    ELSE (SELECT count(*) FROM base.alloc_event e WHERE e.snapshot_id = b.snapshot_id
          AND e.device = b.device AND e.action = 'oom') END AS ooms
FROM blocks b JOIN diff_sides d ON d.side = b.side
LEFT JOIN mem_peak p ON p.snapshot_id = b.snapshot_id AND p.device = b.device
  AND p.schema = d.schema_name;

-- The first user frame of each stack (frame_rank()), per side.
CREATE TEMP TABLE diff_user_frame AS
SELECT side, stack_id, filename, line, name FROM (
  SELECT 'after' AS side, stack_id, filename, line, name,
    row_number() OVER (PARTITION BY stack_id ORDER BY frame_rank(filename), depth) AS pick
  FROM main.stack_frame
  UNION ALL
  SELECT 'before', stack_id, filename, line, name,
    row_number() OVER (PARTITION BY stack_id ORDER BY frame_rank(filename), depth)
  FROM base.stack_frame)
WHERE pick = 1;

-- Allocations per side, device and source (first user frame): how many,
-- the largest, and the total requested bytes.  From the compared
-- snapshot's allocator trace when it recorded allocations, else from the
-- blocks allocated when the snapshot was taken (snapshots saved without
-- the trace still carry each block's stack).
--   origin: 'allocator trace' or 'allocated blocks'
--   source: 'file:line function', '(no stack)' without one
CREATE TEMP TABLE diff_alloc_source AS
WITH traced AS (
  SELECT 'after' AS side, e.device, e.size, e.stack_id FROM main.alloc_event e
  JOIN diff_snapshot s ON s.side = 'after' AND s.snapshot_id = e.snapshot_id
  WHERE e.action = 'alloc'
  UNION ALL
  SELECT 'before', e.device, e.size, e.stack_id FROM base.alloc_event e
  JOIN diff_snapshot s ON s.side = 'before' AND s.snapshot_id = e.snapshot_id
  WHERE e.action = 'alloc'
), held AS (
  SELECT 'after' AS side, b.device, b.requested_size AS size, b.stack_id FROM main.block b
  JOIN diff_snapshot s ON s.side = 'after' AND s.snapshot_id = b.snapshot_id
  WHERE b.state = 'active_allocated'
    AND NOT EXISTS (SELECT 1 FROM traced t WHERE t.side = 'after')
  UNION ALL
  SELECT 'before', b.device, b.requested_size, b.stack_id FROM base.block b
  JOIN diff_snapshot s ON s.side = 'before' AND s.snapshot_id = b.snapshot_id
  WHERE b.state = 'active_allocated'
    AND NOT EXISTS (SELECT 1 FROM traced t WHERE t.side = 'before')
), e AS (
  SELECT 'allocator trace' AS origin, * FROM traced
  UNION ALL
  SELECT 'allocated blocks', * FROM held
)
SELECT e.side, e.origin, e.device, f.filename, f.line, f.name AS function,
  CASE WHEN f.stack_id IS NULL THEN '(no stack)'
       ELSE coalesce(f.filename, '?') || ':' || coalesce(f.line, '?') || ' '
            || coalesce(f.name, '?') END AS source,
  count(*) AS allocs, max(e.size) AS max_size, sum(e.size) AS bytes
FROM e LEFT JOIN diff_user_frame f ON f.side = e.side AND f.stack_id = e.stack_id
GROUP BY e.side, e.origin, e.device, f.filename, f.line, f.name;

-- Sources matched across the runs, so that the same line of the same
-- program in two checkouts (different absolute paths) or a slightly edited
-- file matches: same device and function name, the file names sharing at
-- least their last component (path_common_suffix()), lines at most
-- :line_tolerance apart.  Each source takes its best partner (longest
-- common path suffix, then nearest line, then name order), one to one.
--   suffix_parts: path components in common; line_delta: after - before
--   matched_by: 'same path and line', or 'path suffix DIR/FILE' (+ line delta)
CREATE TEMP TABLE diff_source_match AS
WITH pairs AS (
  SELECT a.device, a.source AS after_source, b.source AS before_source,
    path_common_suffix(a.filename, b.filename) AS suffix_parts, a.line - b.line AS line_delta,
    a.filename AS after_file
  FROM diff_alloc_source a JOIN diff_alloc_source b
    ON b.side = 'before' AND b.device = a.device AND b.function IS a.function
  WHERE a.side = 'after' AND a.filename IS NOT NULL AND b.filename IS NOT NULL
    AND abs(a.line - b.line) <= :line_tolerance
    AND path_common_suffix(a.filename, b.filename) > 0
), ranked AS (
  SELECT *,
    row_number() OVER (PARTITION BY device, after_source
                       ORDER BY suffix_parts DESC, abs(line_delta), before_source) AS for_after,
    row_number() OVER (PARTITION BY device, before_source
                       ORDER BY suffix_parts DESC, abs(line_delta), after_source) AS for_before
  FROM pairs
)
SELECT device, after_source, before_source, suffix_parts, line_delta,
  CASE WHEN after_source = before_source THEN 'same path and line'
    ELSE 'path suffix ' || (
      -- the last suffix_parts components of the after file name
      WITH RECURSIVE cut(rest, n) AS (
        SELECT replace(after_file, '\', '/'), 0
        UNION ALL
        SELECT substr(rest, instr(rest, '/') + 1), n + 1 FROM cut WHERE instr(rest, '/') > 0)
      SELECT rest FROM cut
      WHERE n = (SELECT max(n) FROM cut) - suffix_parts + 1)
      || CASE WHEN line_delta <> 0 THEN printf(', line %+d', line_delta) ELSE '' END
  END AS matched_by
FROM ranked WHERE for_after = 1 AND for_before = 1;
