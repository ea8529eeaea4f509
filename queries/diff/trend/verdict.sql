-- Title: Trend
-- Question: Over the series, how did the run-level figures move from the
--   first run to the last, and which run first fails a gate check against
--   the run before it?
-- Columns:
--   topic      -      what the line is about
--   statement  -      the verdict, with its numbers
WITH ends AS (
  SELECT (SELECT min(run) FROM trend_input) AS a, (SELECT max(run) FROM trend_input) AS z
), v AS (
  SELECT metric, max(value) FILTER (WHERE run = ends.a) AS first,
    max(value) FILTER (WHERE run = ends.z) AS last
  FROM trend_metric, ends GROUP BY metric
), fails AS (
  SELECT run, group_concat(rule || ' (' || measured || ')', '; ') AS failing
  FROM (SELECT * FROM trend_check WHERE passed = 0 ORDER BY run, ord) GROUP BY run
), lines(ord, topic, statement) AS (
  SELECT 1, 'Runs', printf('%d runs, compared in the order given.', count(*)) FROM trend_input
  UNION ALL
  SELECT 2, 'Step time', printf('%s -> %s per step from the first run to the last (%+.1f%%).',
    profdb_fmt_ns(first), profdb_fmt_ns(last), 100.0 * (last - first) / first)
  FROM v WHERE metric = 'step_time' AND first > 0 AND last IS NOT NULL
  UNION ALL
  SELECT 3, 'GPU utilization', printf('%.1f%% -> %.1f%% (%+.1f points).', first, last, last - first)
  FROM v WHERE metric = 'gpu_util' AND first IS NOT NULL AND last IS NOT NULL
  UNION ALL
  SELECT 4, 'Peak memory', printf('peak allocated %s -> %s (%+.1f%%).', profdb_fmt_bytes(first),
    profdb_fmt_bytes(last), 100.0 * (last - first) / max(first, 1))
  FROM v WHERE metric = 'peak_allocated' AND first IS NOT NULL AND last IS NOT NULL
  UNION ALL
  SELECT 5, 'Gate', CASE
    WHEN NOT EXISTS (SELECT 1 FROM trend_check) THEN NULL
    WHEN NOT EXISTS (SELECT 1 FROM fails) THEN
      'every run passes every check against the run before it.'
    ELSE (SELECT printf('first failure at run %d (%s) against run %d: %s. Runs failing: %s.',
                        f.run, i.input, f.run - 1, f.failing,
                        (SELECT group_concat(run, ', ') FROM fails))
          FROM fails f JOIN trend_input i USING (run) ORDER BY f.run LIMIT 1) END
)
SELECT topic, statement FROM lines WHERE statement IS NOT NULL ORDER BY ord;
