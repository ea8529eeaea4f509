-- Title: GPU utilization, copies and communication
-- Question: Is the GPU busier after?  Per step: GPU busy time, its share
--   of the step time (per device, averaged over devices and ranks), copy
--   time and volume, collective time and how much of it overlaps compute.
--   The change row is after - before (percentage points for %).
-- Requires: diff_run
-- Empty: neither database has a profiler trace
-- Columns:
--   side                -      before, after, or change
--   gpu_busy_ns         ns     GPU busy time per step (work launched in the analysed steps)
--   utilization_pct     %      busy time / step time, per device
--   idle_pct            %      100 - utilization_pct
--   memcpy_ns           ns     copy time per step
--   memcpy_bytes        bytes  bytes copied per step
--   comm_ns             ns     collective (NCCL/RCCL) time per step
--   comm_overlap_pct    %      share of the collective time overlapped with compute kernels
WITH dev AS (
  SELECT b.side, b.busy_ns, b.comm_ns, b.comm_overlap_ns,
    (SELECT sum(s.wall_ns) FROM diff_step s WHERE s.side = b.side AND s.trace_id = b.trace_id)
      AS wall_ns
  FROM diff_gpu_busy b
), side AS (
  SELECT d.side, d.ord, p.steps,
    (SELECT sum(busy_ns) FROM dev WHERE dev.side = d.side) AS busy,
    (SELECT 100.0 * sum(busy_ns) / max(sum(wall_ns), 1) FROM dev WHERE dev.side = d.side) AS util,
    (SELECT sum(comm_ns) FROM dev WHERE dev.side = d.side) AS comm,
    (SELECT sum(comm_overlap_ns) FROM dev WHERE dev.side = d.side) AS overlap,
    (SELECT sum(total_dur) FROM diff_gpu_name g WHERE g.side = d.side AND g.kind = 'memcpy')
      AS copy_ns,
    (SELECT sum(bytes) FROM diff_gpu_name g WHERE g.side = d.side AND g.kind = 'memcpy')
      AS copy_bytes
  FROM diff_sides d JOIN diff_per_step p USING (side)
), per AS (
  SELECT ord, side, 1.0 * coalesce(busy, 0) / steps AS busy, util,
    CASE WHEN util IS NOT NULL THEN 100 - util END AS idle,
    1.0 * coalesce(copy_ns, 0) / steps AS copy_ns, 1.0 * coalesce(copy_bytes, 0) / steps AS copy_bytes,
    1.0 * coalesce(comm, 0) / steps AS comm,
    CASE WHEN comm > 0 THEN 100.0 * overlap / comm END AS overlap_pct
  FROM side
), rows AS (
  SELECT * FROM per
  UNION ALL
  SELECT 2, 'change', a.busy - b.busy, a.util - b.util, a.idle - b.idle, a.copy_ns - b.copy_ns,
    a.copy_bytes - b.copy_bytes, a.comm - b.comm, a.overlap_pct - b.overlap_pct
  FROM per a, per b WHERE a.side = 'after' AND b.side = 'before'
)
SELECT side, CAST(round(busy) AS INTEGER) AS gpu_busy_ns, round(util, 2) AS utilization_pct,
  round(idle, 2) AS idle_pct, CAST(round(copy_ns) AS INTEGER) AS memcpy_ns,
  CAST(round(copy_bytes) AS INTEGER) AS memcpy_bytes, CAST(round(comm) AS INTEGER) AS comm_ns,
  round(overlap_pct, 2) AS comm_overlap_pct
FROM rows ORDER BY ord;
