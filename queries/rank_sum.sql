-- Title: Ranks and stragglers
-- Question: With several ranks loaded, which rank's steps are slower than
--   the others'?  A straggler's mean step is over 5% above the median of
--   the ranks' mean steps.
-- Requires: report_step_time
-- Empty: only one trace is loaded; load every rank's trace into one
--   database (profdb load run_dir/ -o run.db) to compare ranks
-- Columns:
--   rank              -      distributed rank
--   label             -      trace
--   steps             count  steps analysed
--   mean_wall_ns      ns     mean step time
--   mean_gpu_busy_ns  ns     mean GPU busy time per step
--   vs_median_pct     %      mean step time relative to the median rank (+ = slower)
--   straggler         -      'yes' when vs_median_pct > 5
WITH per_rank AS (
  SELECT t.trace_id, w.rank, w.label, count(*) AS steps, avg(t.wall_ns) AS mean_wall,
    avg(t.u4) AS mean_busy
  FROM report_step_time t JOIN report_window w USING (trace_id)
  GROUP BY t.trace_id
), med AS (SELECT profdb_median(mean_wall) AS m FROM per_rank)
SELECT p.rank, p.label, p.steps, CAST(round(p.mean_wall) AS INTEGER) AS mean_wall_ns,
  CAST(round(p.mean_busy) AS INTEGER) AS mean_gpu_busy_ns,
  round(100.0 * (p.mean_wall - med.m) / max(med.m, 1), 2) AS vs_median_pct,
  CASE WHEN 100.0 * (p.mean_wall - med.m) / max(med.m, 1) > 5 THEN 'yes' ELSE 'no' END AS straggler
FROM per_rank p, med
WHERE (SELECT count(*) FROM per_rank) > 1
ORDER BY p.rank, p.trace_id;
