-- Title: Kernel launch overhead
-- Question: Is the GPU fed fast enough?  How long from a launch call to
--   the kernel starting (call start -> kernel start: the call itself plus
--   queueing), how long the kernel queued after the call returned (call
--   end -> kernel start, clipped at 0: HTA's launch_delay), how short are
--   kernels, and how much CPU time goes to launching?  A kernel launched by
--   a CUDA graph (cudaGraphLaunch / hipGraphLaunch) shares one call with
--   the graph's other kernels: its delay is queueing inside the graph, not
--   launch overhead.
-- Requires: report_gpu
-- Empty: the trace has no GPU kernels with their launching runtime call
--   (needs CPU and CUDA activity in the same trace)
-- Columns:
--   label                 -      trace
--   kernels               count  kernels analysed
--   launched              count  kernels whose launch call is in the trace
--   graph_kernels         count  of those, kernels launched by a CUDA/HIP graph launch
--   median_delay_ns       ns     median of kernel start - launch call start (graph kernels excluded)
--   p95_delay_ns          ns     95th percentile of that delay
--   median_queue_ns       ns     median of max(0, kernel start - launch call end) (graph kernels excluded)
--   p95_queue_ns          ns     95th percentile of that queueing
--   graph_queue_ns        ns     median of kernel start - graph launch call end: queueing inside the graph
--   short_kernel_pct      %      kernels shorter than 10 us
--   median_kernel_ns      ns     median kernel duration
--   launch_calls          count  distinct launch calls (one cudaGraphLaunch launches many kernels)
--   launch_call_ns        ns     total time in those launch calls on the CPU, each call counted once
WITH k AS (
  SELECT g.trace_id, g.dur, g.ts - l.ts AS delay, max(0, g.ts - l.ts - l.dur) AS queue,
    l.dur AS launch_dur, l.id AS launch,
    n.value GLOB '*GraphLaunch*' AS graph
  FROM report_gpu g LEFT JOIN _slice l ON l.id = g.launch_id
  LEFT JOIN _string n ON n.id = l.name_id
  WHERE g.kind = 'kernel'
),
-- CPU time in launch calls per trace, each call once (grouped here, not
-- per trace in a subquery: that scanned every trace's kernels for each).
calls AS (
  SELECT x.trace_id, sum(l.dur) AS launch_call_ns
  FROM (SELECT DISTINCT trace_id, launch FROM k WHERE launch IS NOT NULL) x
  JOIN _slice l ON l.id = x.launch GROUP BY x.trace_id
)
SELECT w.label, count(*) AS kernels, count(k.launch) AS launched,
  coalesce(sum(k.graph), 0) AS graph_kernels,
  CAST(round(profdb_median(k.delay) FILTER (WHERE NOT k.graph)) AS INTEGER) AS median_delay_ns,
  CAST(round(profdb_percentile(k.delay, 95) FILTER (WHERE NOT k.graph)) AS INTEGER) AS p95_delay_ns,
  CAST(round(profdb_median(k.queue) FILTER (WHERE NOT k.graph)) AS INTEGER) AS median_queue_ns,
  CAST(round(profdb_percentile(k.queue, 95) FILTER (WHERE NOT k.graph)) AS INTEGER) AS p95_queue_ns,
  CAST(round(profdb_median(k.queue) FILTER (WHERE k.graph)) AS INTEGER) AS graph_queue_ns,
  round(100.0 * sum(k.dur < 10000) / count(*), 2) AS short_kernel_pct,
  CAST(round(profdb_median(k.dur)) AS INTEGER) AS median_kernel_ns,
  count(DISTINCT k.launch) AS launch_calls,
  c.launch_call_ns
FROM k JOIN report_window w USING (trace_id) LEFT JOIN calls c USING (trace_id)
GROUP BY k.trace_id ORDER BY w.rank, k.trace_id;
