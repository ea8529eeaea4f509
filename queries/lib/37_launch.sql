-- Kernel launch calls and the cold start (findings: cold_start,
-- launch_bound, gpu_idle): the GPU's idle time during the cold-start
-- calls (report_kernel_launch and report_cold_launch, which the
-- critical path's replay also reads, are lib/13_cold_launch.sql's).

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
