-- Kernel launch calls and the cold start (findings: cold_start,
-- launch_bound, gpu_idle).  A profile taken without warm-up steps holds
-- the one-time start-up of every kernel: with CUDA's lazy module loading
-- (CUDA_MODULE_LOADING=LAZY, the default since CUDA 11.7 / PyTorch 2.x)
-- the first launch of each kernel loads its module and can take hundreds
-- of milliseconds, where a steady-state launch takes microseconds.  Fusion
-- and CUDA graphs do not save that time; profiling after warm-up (or
-- CUDA_MODULE_LOADING=EAGER) moves it out of the measured steps.
--
-- A launch call is *cold-start* when it is the first call of the trace
-- that launches its kernel (by name), it launches exactly one kernel (not
-- a CUDA-graph replay), and it is an outlier against the trace's median
-- launch call: over 1 ms and over 100 times that median
-- (docs/definitions.md, "Cold start").

-- Every call that launched exactly one kernel, in the reported traces.
--   trace_id, launch_id  the runtime call (_slice.id)
--   ts, dur              the call's start and duration (ns)
--   name_id              the kernel's name
--   first                1 for the first call of the trace that launched it
CREATE TEMP TABLE report_kernel_launch AS
WITH one AS (
  SELECT g.trace_id, l.launch_id, min(g.name_id) AS name_id
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id
  WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'kernel')
    AND l.launch_id IS NOT NULL
    AND g.trace_id IN (SELECT trace_id FROM report_trace)
  GROUP BY g.trace_id, l.launch_id HAVING count(*) = 1
)
SELECT o.trace_id, o.launch_id, r.ts, r.dur, o.name_id,
  r.ts = min(r.ts) OVER (PARTITION BY o.trace_id, o.name_id) AS first
FROM one o JOIN _slice r ON r.id = o.launch_id
WHERE r.dur IS NOT NULL;

-- The cold-start calls.
--   trace_id, launch_id, ts, dur, name_id  as report_kernel_launch
--   median_ns                             the trace's median launch call (ns)
CREATE TEMP TABLE report_cold_launch AS
WITH med AS (
  SELECT trace_id, profdb_median(dur) AS median_ns FROM report_kernel_launch GROUP BY trace_id
)
SELECT l.trace_id, l.launch_id, l.ts, l.dur, l.name_id, m.median_ns
FROM report_kernel_launch l JOIN med m USING (trace_id)
WHERE l.first AND l.dur > 1000000 AND l.dur > 100 * m.median_ns;
CREATE INDEX temp.report_cold_launch_by_id ON report_cold_launch(launch_id);

-- The time the GPU stood idle during cold-start calls, per analysed span:
-- each call clipped to the span, less the GPU work running then
-- (report_clip_gpu).  Calls on two threads at once would count their
-- common idle time twice; the findings cap the sum at the span's idle.
--   k, trace_id  the span (report_span)
--   calls        cold-start calls overlapping the span
--   call_ns      their time inside the span (ns)
--   idle_ns      the part of it with no GPU work running (ns)
CREATE TEMP TABLE report_cold_span AS
WITH c AS (
  SELECT s.k, s.trace_id, max(c.ts, s.ts) AS a, min(c.ts + c.dur, s.end_ts) AS b
  FROM report_span s JOIN report_cold_launch c
    ON c.trace_id = s.trace_id AND c.ts < s.end_ts AND c.ts + c.dur > s.ts
)
SELECT c.k, c.trace_id, count(*) AS calls, sum(c.b - c.a) AS call_ns,
  sum(c.b - c.a - coalesce((
    SELECT interval_union(max(g.a, c.a), min(g.b, c.b)) FROM report_clip_gpu g
    WHERE g.trace_id = c.trace_id AND g.k = c.k AND g.a < c.b AND g.b > c.a), 0)) AS idle_ns
FROM c GROUP BY c.k, c.trace_id;
