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
  SELECT g.trace_id, g.device, g.stream, g.step, g.ts, g.ts + g.dur AS end_ts,
    (SELECT l.ts FROM slice l WHERE l.event_id = g.launch_id) AS launch_ts,
    max(g.ts + g.dur) OVER (PARTITION BY g.trace_id, g.device, g.stream ORDER BY g.ts, g.event_id
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM report_gpu g
), gaps AS (
  SELECT *, ts - prev_end AS gap FROM ordered WHERE prev_end IS NOT NULL AND ts > prev_end
    AND EXISTS (SELECT 1 FROM report_span s WHERE s.trace_id = ordered.trace_id
                AND s.ts <= ordered.prev_end AND ordered.ts <= s.end_ts)
)
SELECT w.label, b.device, b.stream, b.busy_ns, coalesce(sum(g.gap), 0) AS idle_ns,
  coalesce(sum(CASE WHEN g.launch_ts >= g.prev_end THEN g.gap END), 0) AS host_wait_ns,
  coalesce(sum(CASE WHEN (g.launch_ts IS NULL OR g.launch_ts < g.prev_end) AND g.gap < 10000
               THEN g.gap END), 0) AS short_gap_ns,
  coalesce(sum(CASE WHEN (g.launch_ts IS NULL OR g.launch_ts < g.prev_end) AND g.gap >= 10000
               THEN g.gap END), 0) AS other_ns,
  round(100.0 * coalesce(sum(CASE WHEN g.launch_ts >= g.prev_end THEN g.gap END), 0)
        / max(coalesce(sum(g.gap), 0), 1), 2) AS host_wait_pct
FROM (SELECT trace_id, device, stream, interval_union(ts, ts + dur) AS busy_ns
      FROM report_gpu GROUP BY trace_id, device, stream) b
JOIN report_window w USING (trace_id)
LEFT JOIN gaps g ON g.trace_id = b.trace_id AND g.device IS b.device AND g.stream IS b.stream
GROUP BY b.trace_id, b.device, b.stream
ORDER BY w.rank, b.trace_id, idle_ns DESC, b.device, b.stream;
