-- Title: GPU utilization
-- Question: How busy is each device, and each stream of it, during the
--   analysed window?  busy = time covered by kernels, copies or fills
--   (overlapping work counted once).
-- Requires: report_clip_gpu
-- Empty: the trace has no GPU activity; profile with
--   activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]
-- Columns:
--   label      -      trace
--   device     -      device ordinal
--   stream     -      stream id ('all' = the device, streams together)
--   busy_ns    ns     time with work on the device/stream, within the window
--   window_ns  ns     analysed window (sum of the step spans)
--   busy_pct   %      busy_ns / window_ns
--   kernels    count  kernels running in the window (one crossing a step boundary counts in both)
--   memcpys    count  copies, likewise
--   memsets    count  fills, likewise
WITH per_stream AS (
  SELECT trace_id, device, CAST(stream AS TEXT) AS stream, k,
    interval_union(a, b) AS busy, sum(kind = 'kernel') AS k_n,
    sum(kind = 'memcpy') AS c_n, sum(kind = 'memset') AS f_n
  FROM report_clip_gpu GROUP BY trace_id, device, stream, k
  UNION ALL
  SELECT trace_id, device, 'all', k, interval_union(a, b), sum(kind = 'kernel'),
    sum(kind = 'memcpy'), sum(kind = 'memset')
  FROM report_clip_gpu GROUP BY trace_id, device, k
), span_total AS (
  SELECT trace_id, sum(end_ts - ts) AS window_ns FROM report_span GROUP BY trace_id
)
SELECT w.label, p.device, p.stream, sum(p.busy) AS busy_ns, t.window_ns,
  round(100.0 * sum(p.busy) / max(t.window_ns, 1), 2) AS busy_pct,
  sum(p.k_n) AS kernels, sum(p.c_n) AS memcpys, sum(p.f_n) AS memsets
FROM per_stream p JOIN report_window w USING (trace_id) JOIN span_total t USING (trace_id)
GROUP BY p.trace_id, p.device, p.stream
ORDER BY w.rank, p.trace_id, p.device, p.stream = 'all' DESC, busy_ns DESC, p.stream;
