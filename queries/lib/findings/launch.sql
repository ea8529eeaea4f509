-- Measure: kernel launch calls' CPU time per rank step; calls per rank (one row).
-- Launch calls' CPU time per rank step; calls per rank.  cold_ns: the
-- part in cold-start calls (lib/37_launch.sql: the first launch of a
-- kernel, over 1 ms and 100x the median launch), one-time start-up that
-- neither fusion nor CUDA graphs save; steady_ns: the rest.  A CUDA/HIP
-- graph launch (cudaGraphLaunch, hipGraphLaunch) is not counted: it is
-- already the one call a graph replay costs (issue 44), which fusion or
-- capturing cannot remove.
-- Builds: measure_launch
-- Reads: _slice, _string, measure_time, report_cold_launch, report_gpu
CREATE TEMP TABLE measure_launch (
  launch_ns  REAL,     -- launch calls, ns
  calls      REAL,     -- launch calls per rank
  cold_ns    REAL,     -- cold-start launch calls, ns
  steady_ns  REAL,     -- the other launch calls, ns
  cold_calls REAL      -- cold-start launch calls per rank
) STRICT;
INSERT INTO measure_launch
  SELECT coalesce(sum(l.dur), 0) / t.n AS launch_ns, count(*) / t.ranks AS calls,
    coalesce(sum(l.dur) FILTER (WHERE c.launch_id IS NOT NULL), 0) / t.n AS cold_ns,
    coalesce(sum(l.dur) FILTER (WHERE c.launch_id IS NULL), 0) / t.n AS steady_ns,
    count(c.launch_id) / t.ranks AS cold_calls
  FROM _slice l LEFT JOIN report_cold_launch c ON c.launch_id = l.id,
    (SELECT 1.0 * max(rank_steps, 1) AS n, 1.0 * ranks AS ranks FROM measure_time) t
  WHERE l.id IN (SELECT launch_id FROM report_gpu WHERE kind = 'kernel')
    AND (SELECT value FROM _string WHERE id = l.name_id) NOT GLOB '*GraphLaunch*';
