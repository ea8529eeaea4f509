-- Title: Kernel launch overhead
-- Question: Is the GPU fed fast enough?  How long from a launch call to
--   the kernel starting, how short are kernels, and how much CPU time goes
--   to launching?
-- Requires: report_gpu
-- Empty: the trace has no GPU kernels with their launching runtime call
--   (needs CPU and CUDA activity in the same trace)
-- Columns:
--   label                 -      trace
--   kernels               count  kernels analysed
--   launched              count  kernels whose launch call is in the trace
--   median_delay_ns       ns     median of kernel start - launch call start
--   p95_delay_ns          ns     95th percentile of that delay
--   short_kernel_pct      %      kernels shorter than 10 us
--   median_kernel_ns      ns     median kernel duration
--   launch_calls          count  distinct launch calls (one cudaGraphLaunch launches many kernels)
--   launch_call_ns        ns     total time in those launch calls on the CPU, each call counted once
WITH k AS (
  SELECT g.trace_id, g.dur, g.ts - l.ts AS delay, l.dur AS launch_dur, l.id AS launch
  FROM report_gpu g LEFT JOIN _slice l ON l.id = g.launch_id
  WHERE g.kind = 'kernel'
)
SELECT w.label, count(*) AS kernels, count(k.launch) AS launched,
  CAST(round(profdb_median(k.delay)) AS INTEGER) AS median_delay_ns,
  CAST(round(profdb_percentile(k.delay, 95)) AS INTEGER) AS p95_delay_ns,
  round(100.0 * sum(k.dur < 10000) / count(*), 2) AS short_kernel_pct,
  CAST(round(profdb_median(k.dur)) AS INTEGER) AS median_kernel_ns,
  count(DISTINCT k.launch) AS launch_calls,
  (SELECT sum(l.dur) FROM _slice l WHERE l.id IN (SELECT x.launch FROM k x WHERE x.trace_id = k.trace_id))
    AS launch_call_ns
FROM k JOIN report_window w USING (trace_id)
GROUP BY k.trace_id ORDER BY w.rank, k.trace_id;
