-- Title: Top GPU kernels
-- Question: Which kernels take the GPU time (nsys cuda_gpu_kern_sum shape)?
-- Requires: report_gpu
-- Parameters: :top
-- Empty: the trace has no GPU kernels; profile with
--   activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]
-- Columns:
--   pct           %      share of all kernel time
--   total_dur_ns  ns     total time
--   instances     count  launches
--   avg_dur_ns    ns     mean duration
--   med_dur_ns    ns     median duration
--   min_dur_ns    ns     shortest
--   max_dur_ns    ns     longest
--   category      -      kernel_category()
--   name          symbol kernel name (shortened in Markdown, full in JSON)
SELECT round(100.0 * sum(dur) / (SELECT sum(dur) FROM report_gpu WHERE kind = 'kernel'), 2) AS pct,
  sum(dur) AS total_dur_ns, count(*) AS instances,
  CAST(round(avg(dur)) AS INTEGER) AS avg_dur_ns,
  CAST(round(profdb_median(dur)) AS INTEGER) AS med_dur_ns,
  min(dur) AS min_dur_ns, max(dur) AS max_dur_ns, g.category, n.name
FROM report_gpu g JOIN report_gpu_name n USING (name_id) WHERE g.kind = 'kernel'
GROUP BY g.name_id ORDER BY total_dur_ns DESC, n.name LIMIT :top;
