-- profdb diff, the run-level metrics of the gate and the trend, per side
-- (docs/definitions.md, "Diff: gate metrics").  Per step over the
-- analysed steps; NULL when the side has no data for the metric (no
-- trace, no snapshot).  The per-name metrics (category[...], kernel[...])
-- are computed by queries/diff/gate.sql from diff_gpu_name.
--   metric: steps (analysed steps: for the trend, not a gate metric),
--   step_time, step_time_median, step_time_p95 (ns), gpu_util (%),
--   memcpy_bytes (bytes), comm_exposed (ns), peak_allocated,
--   peak_reserved (bytes), ooms (count)
CREATE TEMP TABLE diff_metric AS
WITH per_step AS (
  -- the per-step divisor of a side with a trace, NULL without one
  SELECT side, CASE WHEN steps > 0 THEN 1.0 * steps END AS steps FROM diff_run
), util AS (
  SELECT side, 100.0 * sum(busy_ns) / max(sum(wall), 1) AS v FROM (
    SELECT b.side, b.busy_ns, (SELECT sum(s.wall_ns) FROM diff_step s
                               WHERE s.side = b.side AND s.trace_id = b.trace_id) AS wall
    FROM diff_gpu_busy b) GROUP BY side
), m(side, metric, value) AS (
  SELECT side, 'steps', steps FROM diff_run WHERE steps > 0
  UNION ALL SELECT side, 'step_time', mean_wall FROM diff_run
  UNION ALL SELECT side, 'step_time_median', median_wall FROM diff_run
  UNION ALL SELECT side, 'step_time_p95', p95_wall FROM diff_run
  UNION ALL SELECT side, 'gpu_util', v FROM util
  UNION ALL
  SELECT p.side, 'memcpy_bytes', (SELECT coalesce(sum(g.bytes), 0) FROM diff_gpu_name g
                                  WHERE g.side = p.side AND g.kind = 'memcpy') / p.steps
  FROM per_step p
  UNION ALL
  SELECT p.side, 'comm_exposed', (SELECT coalesce(sum(b.comm_ns - b.comm_overlap_ns), 0)
                                  FROM diff_gpu_busy b WHERE b.side = p.side) / p.steps
  FROM per_step p
  UNION ALL SELECT side, 'peak_allocated', max(peak_allocated) FROM diff_mem GROUP BY side
  UNION ALL SELECT side, 'peak_reserved', max(peak_reserved) FROM diff_mem GROUP BY side
  UNION ALL SELECT side, 'ooms', sum(ooms) FROM diff_mem GROUP BY side
)
SELECT side, metric, value FROM m WHERE value IS NOT NULL;
