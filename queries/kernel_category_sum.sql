-- Title: GPU time by kernel category
-- Question: Which kinds of GPU work take the time?  Categories come from
--   kernel_category() (GEMM, attention, communication, ...).
-- Requires: report_gpu
-- Empty: the trace has no GPU activity; profile with
--   activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]
-- Chart: bars x=category y=pct
-- Columns:
--   category      -      kernel_category() of the kernel (copies and fills are Memcpy/Memset)
--   total_dur_ns  ns     total GPU time (sum of durations)
--   pct           %      share of all GPU activity time
--   instances     count  kernels, copies or fills
--   avg_dur_ns    ns     mean duration
--   per_step_ns   ns     total per analysed step (per trace when there are no steps)
SELECT category, sum(dur) AS total_dur_ns,
  round(100.0 * sum(dur) / (SELECT sum(dur) FROM report_gpu), 2) AS pct,
  count(*) AS instances, CAST(round(avg(dur)) AS INTEGER) AS avg_dur_ns,
  CAST(round(1.0 * sum(dur) / max((SELECT count(*) FROM report_span), 1)) AS INTEGER)
    AS per_step_ns
FROM report_gpu GROUP BY category ORDER BY total_dur_ns DESC, category;
