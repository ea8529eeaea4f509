-- Kernel launch calls and the cold start: which launch calls are the
-- one-time start-up of their kernel (findings cold_start, launch_bound,
-- gpu_idle: lib/37_launch.sql; the critical path's replay, which holds GPU
-- work such a call held at its recorded start: lib/63; the export embeds
-- this file with the replay's, CMakeLists.txt profdb_report_replay_sql).
--
-- A profile taken without warm-up steps holds
-- the one-time start-up of every kernel: with CUDA's lazy module loading
-- (CUDA_MODULE_LOADING=LAZY, the default since CUDA 11.7 / PyTorch 2.x)
-- the first launch of each kernel loads its module and can take hundreds
-- of milliseconds, where a steady-state launch takes microseconds.  Fusion
-- and CUDA graphs do not save that time; profiling after warm-up (or
-- CUDA_MODULE_LOADING=EAGER) moves it out of the measured steps.
--
-- A launch call is *cold-start* when it is the first call of the trace
-- that launches its kernel (by name), it launches exactly one kernel (not
-- a CUDA-graph replay), and it is an outlier against the *steady* launch
-- calls, those that are not the first of their kernel: over 1 ms and over
-- 100 times the median of the later calls that launch the same kernel, or,
-- for a kernel launched once, of the trace's later launch calls (none: the
-- 1 ms alone).  Not the median of all calls: when most launches are first
-- launches (a short or cold profile) that median is itself inflated by the
-- start-up it should reveal (issue 44, pattern 2) (docs/definitions.md,
-- "Cold start").

-- Every call that launched exactly one kernel, in the reported traces.
--   trace_id, launch_id  the runtime call (_slice.id)
--   ts, dur              the call's start and duration (ns)
--   name_id              the kernel's name
--   first                1 for the first call of the trace that launched it
--   pid, device          the calling process and the kernel's GPU
CREATE TEMP TABLE report_kernel_launch AS
WITH one AS (
  SELECT g.trace_id, l.launch_id, min(g.name_id) AS name_id, min(g.device) AS device
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id
  WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'kernel')
    AND l.launch_id IS NOT NULL
    AND g.trace_id IN (SELECT trace_id FROM report_trace)
  GROUP BY g.trace_id, l.launch_id HAVING count(*) = 1
)
SELECT o.trace_id, o.launch_id, r.ts, r.dur, o.name_id,
  r.ts = min(r.ts) OVER (PARTITION BY o.trace_id, o.name_id) AS first, r.pid, o.device
FROM one o JOIN _slice r ON r.id = o.launch_id
WHERE r.dur IS NOT NULL;

-- The cold-start calls.
--   trace_id, launch_id, ts, dur, name_id, pid, device  as report_kernel_launch
--   median_ns                             the steady launch call it is
--                                         compared with: the median later
--                                         call of its kernel, else of the
--                                         trace (ns; 0: no later call)
CREATE TEMP TABLE report_cold_launch AS
WITH own AS (
  SELECT trace_id, name_id, profdb_median(dur) AS median_ns FROM report_kernel_launch
  WHERE NOT first GROUP BY trace_id, name_id
), tr AS (
  SELECT trace_id, profdb_median(dur) AS median_ns FROM report_kernel_launch
  WHERE NOT first GROUP BY trace_id
), ref AS (
  SELECT l.*, coalesce(o.median_ns, t.median_ns, 0) AS median_ns
  FROM report_kernel_launch l LEFT JOIN own o ON o.trace_id = l.trace_id AND o.name_id = l.name_id
  LEFT JOIN tr t ON t.trace_id = l.trace_id
  WHERE l.first AND l.dur > 1000000
)
SELECT trace_id, launch_id, ts, dur, name_id, median_ns, pid, device FROM ref
WHERE dur > 100 * median_ns;
CREATE INDEX temp.report_cold_launch_by_id ON report_cold_launch(launch_id);
