-- Step time breakdown, computed once for the step_time* sections and the
-- findings.  For every analysed step (or the whole trace without steps) the
-- wall time is split by what ran, in the priority order of the deprecated
-- TensorBoard profiler: at each instant the highest-priority activity
-- present wins, so the parts sum to the wall time.
--   1 kernel         GPU kernels other than communication
--   2 memcpy         GPU copies
--   3 memset         GPU fills
--   4 communication  NCCL/collective kernels
--   5 runtime        CUDA/HIP runtime and driver calls on the CPU
--   6 data loading   enumerate(DataLoader)... ranges
--   7 cpu            any other CPU op, annotation or Python frame
--   other            nothing recorded (e.g. Python between ops untraced)
-- interval_layers() gives each level's exclusive time in one sweep over
-- the intervals clipped to the step's span (lib/15_timeline.sql); the
-- table keeps the cumulative unions u1..u7 (u7 = anything recorded).

CREATE TEMP TABLE report_step_time AS
WITH clipped AS (
  SELECT k, a, b,
    CASE WHEN is_comm THEN 3 WHEN kind = 'kernel' THEN 0
         WHEN kind = 'memcpy' THEN 1 ELSE 2 END AS layer
  FROM report_clip_gpu
  UNION ALL
  SELECT k, a, b, CASE class WHEN 'runtime' THEN 4 ELSE 5 END FROM report_clip_calls
  UNION ALL
  SELECT k, a, b, 6 FROM report_clip_cpu
), layers AS (
  SELECT k, interval_layers(a, b, layer, 7) AS x FROM clipped GROUP BY k
), parts AS (
  SELECT k, x ->> 0 AS p1, x ->> 1 AS p2, x ->> 2 AS p3, x ->> 3 AS p4, x ->> 4 AS p5,
    x ->> 5 AS p6, x ->> 6 AS p7
  FROM layers
)
-- u1..u7: the union of levels 1..L (cumulative sums of the parts).
SELECT s.trace_id, s.step, s.end_ts - s.ts AS wall_ns,
  coalesce(p.p1, 0) AS u1, coalesce(p.p1 + p.p2, 0) AS u2,
  coalesce(p.p1 + p.p2 + p.p3, 0) AS u3, coalesce(p.p1 + p.p2 + p.p3 + p.p4, 0) AS u4,
  coalesce(p.p1 + p.p2 + p.p3 + p.p4 + p.p5, 0) AS u5,
  coalesce(p.p1 + p.p2 + p.p3 + p.p4 + p.p5 + p.p6, 0) AS u6,
  coalesce(p.p1 + p.p2 + p.p3 + p.p4 + p.p5 + p.p6 + p.p7, 0) AS u7
FROM report_span s LEFT JOIN parts p ON p.k = s.k;
