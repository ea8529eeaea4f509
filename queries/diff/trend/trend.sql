-- Title: Runs in order
-- Question: How did step time, GPU utilization and peak memory move over
--   the series, and where would the gate have first failed?  One row per
--   run in the order given; each run's checks are against the run before
--   it (as a nightly CI job would run them).
-- Requires: trend_input
-- Chart: panels x=run lines=step_time_ns,gpu_util_pct,peak_allocated mark=first_failure
-- Brief: run input step_time_ns step_time_p95_ns gpu_util_pct peak_allocated gate first_failure
-- Columns:
--   run                -      position in the series
--   input              -      the database or file
--   steps              count  analysed steps (all ranks)
--   step_time_ns       ns     mean step time
--   step_time_p95_ns   ns     95th percentile step time
--   gpu_util_pct       %      GPU utilization
--   peak_allocated     bytes  replayed peak allocated of the latest snapshot (largest device)
--   peak_reserved      bytes  replayed peak reserved
--   ooms               count  OOMs of the latest snapshot
--   gate               -      first run: baseline; else PASS, or FAIL with the failing checks against the run before
--   first_failure      -      'first failure' on the first run that fails a check
WITH m AS (
  SELECT run,
    max(value) FILTER (WHERE metric = 'steps') AS steps,
    max(value) FILTER (WHERE metric = 'step_time') AS st,
    max(value) FILTER (WHERE metric = 'step_time_p95') AS p95,
    max(value) FILTER (WHERE metric = 'gpu_util') AS util,
    max(value) FILTER (WHERE metric = 'peak_allocated') AS pa,
    max(value) FILTER (WHERE metric = 'peak_reserved') AS pr,
    max(value) FILTER (WHERE metric = 'ooms') AS ooms
  FROM trend_metric GROUP BY run
), g AS (
  SELECT run, count(*) AS checks,
    group_concat(CASE WHEN passed = 0 THEN rule || ' (' || measured || ')' END, '; ') AS failing
  FROM (SELECT * FROM trend_check ORDER BY run, ord) GROUP BY run
), first AS (
  SELECT min(run) AS run FROM g WHERE failing IS NOT NULL
)
SELECT i.run, i.input, CAST(m.steps AS INTEGER) AS steps,
  CAST(round(m.st) AS INTEGER) AS step_time_ns, CAST(round(m.p95) AS INTEGER) AS step_time_p95_ns,
  round(m.util, 2) AS gpu_util_pct, CAST(m.pa AS INTEGER) AS peak_allocated,
  CAST(m.pr AS INTEGER) AS peak_reserved, CAST(m.ooms AS INTEGER) AS ooms,
  CASE WHEN i.run = 1 THEN 'baseline' WHEN g.checks IS NULL THEN NULL
       WHEN g.failing IS NULL THEN 'PASS' ELSE 'FAIL: ' || g.failing END AS gate,
  CASE WHEN i.run = (SELECT run FROM first) THEN 'first failure' END AS first_failure
FROM trend_input i LEFT JOIN m USING (run) LEFT JOIN g USING (run)
ORDER BY i.run;
