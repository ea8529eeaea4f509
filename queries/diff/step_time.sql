-- Title: Step time
-- Question: How long does a job step take before and after, and what is
--   the speedup?  Over the analysed job steps of each run: job step k is
--   step k on every rank, as long as its slowest rank's span (warm-up
--   excluded; a step's time is its span, as in the report); ranks are
--   never counted as steps.
-- Requires: diff_run
-- Empty: neither database has a profiler trace
-- Columns:
--   statistic    -      mean, median, p95, min or max over the job steps
--   before_ns    ns     before (base database)
--   after_ns     ns     after (main database)
--   delta_ns     ns     after - before
--   change_pct   %      delta / before (empty when before is 0)
--   speedup      -      before / after (above 1: faster)
WITH stats(ord, statistic, b, a) AS (
  SELECT 1, 'mean', b.mean_wall, a.mean_wall FROM diff_run b, diff_run a
  WHERE b.side = 'before' AND a.side = 'after'
  UNION ALL SELECT 2, 'median', b.median_wall, a.median_wall FROM diff_run b, diff_run a
  WHERE b.side = 'before' AND a.side = 'after'
  UNION ALL SELECT 3, 'p95', b.p95_wall, a.p95_wall FROM diff_run b, diff_run a
  WHERE b.side = 'before' AND a.side = 'after'
  UNION ALL SELECT 4, 'min', b.min_wall, a.min_wall FROM diff_run b, diff_run a
  WHERE b.side = 'before' AND a.side = 'after'
  UNION ALL SELECT 5, 'max', b.max_wall, a.max_wall FROM diff_run b, diff_run a
  WHERE b.side = 'before' AND a.side = 'after'
)
SELECT statistic, CAST(round(b) AS INTEGER) AS before_ns, CAST(round(a) AS INTEGER) AS after_ns,
  CAST(round(a - b) AS INTEGER) AS delta_ns,
  CASE WHEN b > 0 THEN round(100.0 * (a - b) / b, 2) END AS change_pct,
  CASE WHEN a > 0 AND b > 0 THEN round(1.0 * b / a, 3) END AS speedup
FROM stats WHERE a IS NOT NULL OR b IS NOT NULL
ORDER BY ord;
