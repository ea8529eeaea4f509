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
-- Each level is |union of levels 1..L| - |union of levels 1..L-1|, with
-- intervals clipped to the step's span (lib/15_timeline.sql).

CREATE TEMP TABLE report_step_time AS
WITH clipped AS (
  SELECT k, trace_id, step, a, b,
    CASE WHEN is_comm THEN 4 WHEN kind = 'kernel' THEN 1
         WHEN kind = 'memcpy' THEN 2 ELSE 3 END AS lvl
  FROM report_clip_gpu
  UNION ALL
  SELECT k, trace_id, step, a, b,
    CASE WHEN kind = 'runtime' THEN 5 WHEN is_dataloader THEN 6 ELSE 7 END
  FROM report_clip_cpu
)
SELECT s.trace_id, s.step, s.end_ts - s.ts AS wall_ns,
  coalesce(u.u1, 0) AS u1, coalesce(u.u2, 0) AS u2, coalesce(u.u3, 0) AS u3,
  coalesce(u.u4, 0) AS u4, coalesce(u.u5, 0) AS u5, coalesce(u.u6, 0) AS u6,
  coalesce(u.u7, 0) AS u7
FROM report_span s LEFT JOIN (
  SELECT k,
    interval_union(a, b) FILTER (WHERE lvl <= 1) AS u1,
    interval_union(a, b) FILTER (WHERE lvl <= 2) AS u2,
    interval_union(a, b) FILTER (WHERE lvl <= 3) AS u3,
    interval_union(a, b) FILTER (WHERE lvl <= 4) AS u4,
    interval_union(a, b) FILTER (WHERE lvl <= 5) AS u5,
    interval_union(a, b) FILTER (WHERE lvl <= 6) AS u6,
    interval_union(a, b) AS u7
  FROM clipped GROUP BY k) u ON u.k = s.k;
