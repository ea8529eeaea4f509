-- Title: User annotations: host and device time
-- Question: How long do my record_function ranges take on the CPU, how much
--   GPU time did the work launched inside them take, and how long are their
--   projections on the GPU streams (gpu_user_annotation)?
--   ProfilerStep#N ranges are left out (see step_time).
-- Requires: report_window
-- Parameters: :top
-- Empty: the trace has no record_function ranges besides ProfilerStep#N;
--   wrap code in torch.profiler.record_function("name") to see it here
-- Columns:
--   name             symbol annotation name
--   calls            count  CPU ranges (record_function calls)
--   host_total_ns    ns     CPU time inside them
--   device_total_ns  ns     GPU time of the kernels, copies and fills launched inside them
--   device_pct       %      device_total_ns as a share of the GPU time of the scope
--   gpu_ranges       count  gpu_user_annotation ranges of that name in the analysed window
--   gpu_span_ns      ns     their summed duration on the GPU streams (first to last kernel, gaps included)
WITH cpu AS (
  SELECT s.id, s.name_id, s.dur
  FROM _slice s JOIN _slice_tree t ON t.id = s.id
  WHERE s.kind = 2 AND s.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM report_scope k
                WHERE k.trace_id = s.trace_id AND k.step = coalesce(t.step, -1))
), host AS (
  SELECT name_id, count(*) AS calls, sum(dur) AS host_total_ns FROM cpu GROUP BY name_id
), gpu AS (
  SELECT name_id, sum(l.gpu_ns) AS device_total_ns
  FROM (SELECT DISTINCT c.name_id, a.op_id FROM cpu c JOIN report_launch_anc a ON a.anc_id = c.id) x
  JOIN report_launch l USING (op_id)
  GROUP BY name_id
), projected AS (
  SELECT g.name_id, count(*) AS gpu_ranges, sum(g.dur) AS gpu_span_ns
  FROM _gpu g JOIN report_window w ON w.trace_id = g.trace_id
  WHERE g.kind = 13 AND g.ts >= w.ts AND g.ts < w.end_ts
  GROUP BY g.name_id
), names AS (
  SELECT name_id FROM host UNION SELECT name_id FROM projected
)
SELECT n.value AS name, h.calls, h.host_total_ns, coalesce(g.device_total_ns, 0) AS device_total_ns,
  round(100.0 * coalesce(g.device_total_ns, 0) / nullif((SELECT sum(dur) FROM report_gpu), 0), 2) AS device_pct,
  coalesce(p.gpu_ranges, 0) AS gpu_ranges, p.gpu_span_ns
FROM names x JOIN _string n ON n.id = x.name_id
LEFT JOIN host h USING (name_id) LEFT JOIN gpu g USING (name_id) LEFT JOIN projected p USING (name_id)
WHERE n.value NOT GLOB 'ProfilerStep#*'
ORDER BY device_total_ns DESC, coalesce(h.host_total_ns, p.gpu_span_ns) DESC, name LIMIT :top;
