-- Title: GPU idle time per stream
-- Question: Why is a stream idle between consecutive kernels?
--   host_wait: the next work was launched only after the previous finished
--   (the GPU waited for the CPU); short_gap: queued work started within
--   10 us (launch/dependency overhead); other: queued work started later
--   (waiting on events or other streams).  Gaps within analysed steps only.
-- Requires: report_gpu
-- Empty: the trace has no GPU activity
-- Columns:
--   label          -      trace
--   device         -      device ordinal
--   stream         -      stream id
--   busy_ns        ns     time the stream is busy (overlaps counted once)
--   idle_ns        ns     sum of the gaps between consecutive work
--   host_wait_ns   ns     idle because the work was launched late
--   short_gap_ns   ns     gaps under 10 us with the work already queued
--   other_ns       ns     longer gaps with the work already queued
--   host_wait_pct  %      host_wait_ns / idle_ns
WITH ordered AS (
  SELECT g.trace_id, g.device, g.stream, g.ts, g.launch_ts,
    max(g.ts + g.dur) OVER (PARTITION BY g.trace_id, g.device, g.stream ORDER BY g.ts, g.event_id
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM report_gpu g
), gaps AS (
  -- a gap counts when it lies within one analysed span
  SELECT o.trace_id, o.device, o.stream, o.ts - o.prev_end AS gap,
    o.launch_ts >= o.prev_end AS late
  FROM ordered o
  WHERE o.prev_end IS NOT NULL AND o.ts > o.prev_end
    AND (SELECT s.end_ts FROM report_span s WHERE s.trace_id = o.trace_id
         AND s.ts <= o.prev_end ORDER BY s.ts DESC LIMIT 1) >= o.ts
), per_stream AS (
  SELECT trace_id, device, stream, sum(gap) AS idle,
    sum(CASE WHEN late THEN gap END) AS host_wait,
    sum(CASE WHEN late IS NOT 1 AND gap < 10000 THEN gap END) AS short_gap,
    sum(CASE WHEN late IS NOT 1 AND gap >= 10000 THEN gap END) AS other
  FROM gaps GROUP BY trace_id, device, stream
), busy AS (
  SELECT trace_id, device, stream, interval_union(ts, ts + dur) AS busy_ns
  FROM report_gpu GROUP BY trace_id, device, stream
)
SELECT w.label, b.device, b.stream, b.busy_ns, coalesce(p.idle, 0) AS idle_ns,
  coalesce(p.host_wait, 0) AS host_wait_ns, coalesce(p.short_gap, 0) AS short_gap_ns,
  coalesce(p.other, 0) AS other_ns,
  round(100.0 * coalesce(p.host_wait, 0) / max(coalesce(p.idle, 0), 1), 2) AS host_wait_pct
FROM busy b JOIN report_window w USING (trace_id)
LEFT JOIN per_stream p ON p.trace_id = b.trace_id AND p.device IS b.device AND p.stream IS b.stream
ORDER BY w.rank, b.trace_id, idle_ns DESC, b.device, b.stream;
