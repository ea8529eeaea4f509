-- Title: Step time statistics
-- Question: What is a typical step: mean, median and 95th percentile of
--   the step time, GPU busy time and idle share over the analysed steps?
-- Requires: report_step
-- Empty: no step is analysed: --scope trace or hta analyses the whole
--   trace as one span, or the trace has no ProfilerStep ranges (profile
--   with torch.profiler.schedule(...) and call prof.step() every iteration)
-- Columns:
--   label             -      trace
--   steps             count  steps analysed
--   mean_wall_ns      ns     mean step time
--   median_wall_ns    ns     median step time
--   p95_wall_ns       ns     95th percentile step time
--   min_wall_ns       ns     fastest step
--   max_wall_ns       ns     slowest step
--   mean_gpu_busy_ns  ns     mean GPU busy time per step
--   mean_gpu_idle_pct %      mean share of the step with the GPU idle
SELECT w.label, count(*) AS steps,
  CAST(round(avg(t.wall_ns)) AS INTEGER) AS mean_wall_ns,
  CAST(round(profdb_median(t.wall_ns)) AS INTEGER) AS median_wall_ns,
  CAST(round(profdb_percentile(t.wall_ns, 95)) AS INTEGER) AS p95_wall_ns,
  min(t.wall_ns) AS min_wall_ns, max(t.wall_ns) AS max_wall_ns,
  CAST(round(avg(t.u4)) AS INTEGER) AS mean_gpu_busy_ns,
  round(avg(100.0 * (t.wall_ns - t.u4) / max(t.wall_ns, 1)), 2) AS mean_gpu_idle_pct
FROM report_step_time t JOIN report_window w USING (trace_id)
WHERE t.step IS NOT NULL
GROUP BY t.trace_id ORDER BY w.rank, t.trace_id;
