-- Title: Launch queue length
-- Question: How far ahead of the GPU is the host?  Per stream, the number
--   of launched-not-yet-started operations (kernels, copies, fills): one
--   enters the queue when its launch call starts and leaves it when it
--   starts on the GPU (HolisticTraceAnalysis' get_queue_length_summary,
--   docs/definitions.md "Queue length").  A long queue means the GPU has
--   work waiting: idle then is not the host's fault.  The statistics are
--   over the queue's changes (one sample after each launch and each start),
--   as HTA's are; queued_ns is time-weighted.  The kernels of a CUDA/HIP
--   graph launch all enter at the graph launch call (HTA drops them).
--   With --scope hta: HTA's launch calls only, its µs times.
-- Requires: report_gpu
-- Empty: no GPU work with its launching runtime call in the trace
--   (needs CPU and CUDA activity in the same trace)
-- Columns:
--   label           -      trace
--   rank            -      rank of the trace
--   device          -      GPU ordinal
--   stream          -      stream id
--   launched        count  operations queued (launch calls whose GPU work is in scope)
--   mean_queue      count  mean queue length over the samples (2 per operation)
--   max_queue       count  largest queue length
--   full_ns         ns     time with 1,024 or more queued (the launch queue's size: the host blocks)
--   p95_queue       count  95th percentile of the samples
--   p50_queue       count  median of the samples
--   queued_ns       ns     time with at least one operation queued, first launch to last start
--   graph_launched  count  of those, launched by a CUDA/HIP graph launch
--   mean_queue_low  count  the same with equal times ordered starts first (HTA's mean lies in between)
WITH op AS (
  SELECT g.trace_id, g.device, g.stream, r.ts AS launch_ts, g.ts AS start_ts,
    n.value GLOB '*GraphLaunch*' AS graph, coalesce(:scope_hta, 0) AS hta
  FROM report_gpu g JOIN _slice r ON r.id = g.launch_id JOIN _string n ON n.id = r.name_id
  WHERE r.ts IS NOT NULL
    AND (NOT coalesce(:scope_hta, 0)
         -- hta/common/trace_symbol_table.py get_runtime_launch_events_mask
         OR n.value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel',
                        'cuLaunchKernelEx', 'cudaMemcpyAsync', 'cudaMemsetAsync',
                        'hipLaunchKernel', 'hipExtModuleLaunchKernel', 'hipMemcpyAsync',
                        'hipMemsetAsync', 'hipMemcpyWithStream'))
),
-- Each change of a queue: +1 at the launch, -1 at the start.  With equal
-- times a launch goes first (t: ns; HTA's rounded µs, in ns, with --scope hta).
ev AS (
  SELECT o.trace_id, o.device, o.stream, o.graph,
    CASE WHEN o.hta THEN CAST(hta_ts(o.launch_ts, h.rounded) * 1000 AS INTEGER) ELSE o.launch_ts END AS t, 1 AS d
  FROM op o LEFT JOIN report_hta_trace h USING (trace_id)
  UNION ALL
  SELECT o.trace_id, o.device, o.stream, 0,
    CASE WHEN o.hta THEN CAST(hta_ts(o.start_ts, h.rounded) * 1000 AS INTEGER) ELSE o.start_ts END, -1
  FROM op o LEFT JOIN report_hta_trace h USING (trace_id)
),
q AS (
  SELECT trace_id, device, stream, graph, t, d,
    sum(d) OVER (PARTITION BY trace_id, device, stream ORDER BY t, d DESC
                 ROWS UNBOUNDED PRECEDING) AS len,
    -- (next to len: windows of one ordering share its sort when adjacent)
    lead(t) OVER (PARTITION BY trace_id, device, stream ORDER BY t, d DESC) - t AS held,
    sum(d) OVER (PARTITION BY trace_id, device, stream ORDER BY t, d
                 ROWS UNBOUNDED PRECEDING) AS len_low
  FROM ev
)
SELECT w.label, w.rank, q.device, q.stream, sum(q.d = 1) AS launched,
  round(avg(q.len), 4) AS mean_queue, max(q.len) AS max_queue,
  CAST(coalesce(sum(q.held) FILTER (WHERE q.len >= 1024), 0) AS INTEGER) AS full_ns,
  round(profdb_percentile(q.len, 95), 2) AS p95_queue, profdb_median(q.len) AS p50_queue,
  CAST(coalesce(sum(q.held) FILTER (WHERE q.len > 0), 0) AS INTEGER) AS queued_ns,
  sum(q.graph) AS graph_launched, round(avg(q.len_low), 4) AS mean_queue_low
FROM q JOIN report_window w USING (trace_id)
GROUP BY q.trace_id, q.device, q.stream
ORDER BY w.rank, q.trace_id, q.stream, q.device;
