-- Title: Allocation sizes that changed, by source
-- Question: Which allocations grew or shrank (e.g. activations that scale
--   with sequence length)?  For each user-code source allocating in both
--   runs (first user frame, frame_rank()), matched across checkouts by the
--   file's path suffix and the function (diff_source_match): its largest
--   allocation before and after and their ratio; largest after first.
--   Allocations come from the allocator trace, or from the blocks held
--   when the snapshot was taken when a snapshot has no trace.
-- Requires: diff_alloc_source
-- Parameters: :top
-- Empty: the runs' allocator traces have no source in common (snapshots
--   recorded without stacks, only one run has a snapshot, or the lines
--   moved further apart than --line-tolerance)
-- Columns:
--   device           -      device ordinal
--   source           source file:line function of the first user frame, after
--   matched_by       -      how the before source matched: same path and line, or the path suffix in common (and the line delta)
--   origin           -      allocator trace, or allocated blocks (held at the snapshot), after
--   before_max       bytes  largest allocation from it, before
--   after_max        bytes  largest allocation from it, after
--   ratio            -      after_max / before_max
--   before_allocs    count  allocations from it, before
--   after_allocs     count  allocations from it, after
--   scales           -      grew (ratio above 1.05), shrank (below 0.95) or same
SELECT a.device, a.source, m.matched_by, a.origin, b.max_size AS before_max, a.max_size AS after_max,
  round(1.0 * a.max_size / max(b.max_size, 1), 3) AS ratio, b.allocs AS before_allocs,
  a.allocs AS after_allocs,
  CASE WHEN a.max_size > 1.05 * b.max_size THEN 'grew'
       WHEN a.max_size < 0.95 * b.max_size THEN 'shrank' ELSE 'same' END AS scales
FROM diff_source_match m
JOIN diff_alloc_source a ON a.side = 'after' AND a.device = m.device AND a.source = m.after_source
JOIN diff_alloc_source b ON b.side = 'before' AND b.device = m.device AND b.source = m.before_source
ORDER BY a.max_size <> b.max_size DESC, max(a.max_size, b.max_size) DESC, a.source LIMIT :top;
