-- load_summary.sql — what the database holds after a load, in words, for
-- profdb load's closing line (load_summary.c): traces and their ranks,
-- GPUs, profiled steps, memory snapshots.
--   "8 traces: ranks 0-7 of 8, 8x Tesla V100-SXM2-32GB, step 10, 1 snapshot"
--   "1024 traces: ranks 0-1023 of 1024, 1024x Tesla V100-SXM2-32GB (8 a host), step 10"
-- Output: one row, one column:
--   summary  the line ('nothing loaded' for an empty database)
WITH traces AS (
  SELECT count(*) AS n, count(rank) AS ranked, min(rank) AS lo, max(rank) AS hi,
    max(world_size) AS world, count(DISTINCT rank) AS distinct_ranks
  FROM trace),
gpus AS (  -- a rank per GPU: a job's GPUs of a model are its traces that list it;
           -- one trace (one process) may list several, all of its host's
           -- (each rank's trace lists the host's devices, so 1024 ranks of 8
           -- per host read "1024x NAME (8 a host)", not "8x NAME")
  SELECT group_concat(CASE WHEN traces > per_trace THEN traces ELSE per_trace END || 'x '
           || name || CASE WHEN traces > per_trace AND per_trace > 1
                           THEN printf(' (%d a host)', per_trace) ELSE '' END, ', ') AS text
  FROM (
    SELECT name, max(c) AS per_trace, count(*) AS traces FROM (
      SELECT trace_id, coalesce(name, 'GPU') AS name, count(*) AS c FROM device GROUP BY 1, 2)
    GROUP BY name ORDER BY name)),
steps AS (
  SELECT min(step) AS lo, max(step) AS hi, count(DISTINCT step) AS n FROM step),
snapshots AS (SELECT count(*) AS n FROM snapshot),
parts AS (
  SELECT 1 AS k, CASE WHEN t.n = 0 THEN NULL ELSE
      printf('%d trace%s', t.n, CASE WHEN t.n > 1 THEN 's' ELSE '' END)
      || CASE WHEN t.ranked = 0 THEN ''
              WHEN t.n = 1 THEN printf(': rank %d', t.lo)
              WHEN t.distinct_ranks = t.n AND t.hi - t.lo + 1 = t.n THEN printf(': ranks %d-%d', t.lo, t.hi)
              ELSE printf(': %d ranks', t.distinct_ranks) END
      || CASE WHEN t.ranked > 0 AND t.world IS NOT NULL THEN printf(' of %d', t.world) ELSE '' END
    END AS text FROM traces t
  UNION ALL SELECT 2, text FROM gpus
  UNION ALL SELECT 3, CASE WHEN n = 0 THEN NULL WHEN lo = hi THEN printf('step %d', lo)
                          ELSE printf('steps %d-%d', lo, hi) END FROM steps
  UNION ALL SELECT 4, CASE WHEN n = 0 THEN NULL
                          ELSE printf('%d snapshot%s', n, CASE WHEN n > 1 THEN 's' ELSE '' END) END
            FROM snapshots)
SELECT coalesce(group_concat(text, ', '), 'nothing loaded') AS summary
FROM (SELECT text FROM parts WHERE text IS NOT NULL ORDER BY k);
