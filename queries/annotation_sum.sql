-- Title: User annotations: host and device time
-- Question: How long do my record_function ranges take on the CPU, how much
--   GPU time did the work launched inside them take, and how long are
--   their projections on the GPU streams (gpu_user_annotation)?  Nesting is
--   preserved as in module_sum (rows in tree order; path, parent_path and
--   depth in the JSON).  ProfilerStep#N ranges are left out (see
--   step_time).  Work that autograd runs on its own threads is not inside
--   the annotation that called backward().
-- Requires: report_range_node
-- Parameters: :top
-- Empty: the trace has no record_function ranges besides ProfilerStep#N;
--   wrap code in torch.profiler.record_function("name") to see it here
-- Columns:
--   annotation       -      the annotation's name, indented under the annotation enclosing it
--   calls            count  CPU ranges (record_function calls) with this path
--   host_total_ns    ns     CPU time inside them
--   device_total_ns  ns     GPU time of the kernels, copies and fills launched inside them
--   device_pct       %      device_total_ns as a share of the GPU time of the scope
--   gpu_ranges       count  gpu_user_annotation ranges of this name (not of this path: they carry no nesting) in the analysed window
--   gpu_span_ns      ns     their summed duration on the GPU streams (first to last kernel, gaps included)
--   depth            count  0 at the top
--   path             -      enclosing annotations and itself, outermost first, joined by ' > '
--   parent_path      -      path of the enclosing annotation (NULL at the top)
WITH projected AS (
  SELECT profdb_display_name(n.value) AS name, count(*) AS gpu_ranges, sum(g.dur) AS gpu_span_ns
  FROM _gpu g JOIN report_window w ON w.trace_id = g.trace_id JOIN _string n ON n.id = g.name_id
  WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'gpu_annotation') AND g.ts >= w.ts AND g.ts < w.end_ts
  GROUP BY n.id
)
SELECT replace(hex(zeroblob(r.depth)), '00', char(160, 160)) || r.name AS annotation, r.calls,
  r.host_total_ns, r.device_total_ns,
  round(100.0 * r.device_total_ns / nullif((SELECT sum(dur) FROM report_gpu), 0), 2) AS device_pct,
  coalesce(p.gpu_ranges, 0) AS gpu_ranges, p.gpu_span_ns, r.depth, r.path, r.parent_path
FROM report_range_node r LEFT JOIN projected p USING (name)
WHERE r.tree = 'annotation'
ORDER BY r.sort_key LIMIT 4 * :top;
