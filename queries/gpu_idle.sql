-- Title: GPU idle time per stream (HTA's idle-time breakdown)
-- Question: Why is a stream idle between consecutive work?  HTA's
--   get_idle_time_breakdown, with its rules: each gap between a stream's
--   consecutive kernels, copies and fills (next start - previous end, in
--   start order) is host_wait when the next one's launch call started
--   after the previous one ended (the GPU waited for the CPU), kernel_wait
--   when not and the gap is under 30 us (launch and dependency overhead),
--   other otherwise (waiting on events or other streams).  Every gap
--   between consecutive work in scope counts, across step boundaries too;
--   use --scope hta for HTA's scope.  The idle time before the stream's
--   first work and after its last, inside the trace's analysed window, is
--   no gap between two works, so HTA leaves it out of idle_ns; edge_ns has
--   it, so that busy_ns + idle_ns + edge_ns = the window (when the work
--   lies inside it and does not overlap on the stream).
-- Requires: report_gpu
-- Empty: the trace has no GPU activity
-- Brief: label device stream busy_ns edge_ns host_wait_ns kernel_wait_ns other_ns
-- Columns:
--   label            -      trace
--   device           -      device ordinal
--   stream           -      stream id
--   busy_ns          ns     time the stream is busy (overlaps counted once)
--   idle_ns          ns     sum of the gaps between consecutive work
--   edge_ns          ns     analysed window before the stream's first work and after its last
--   host_wait_ns     ns     gaps whose next work was launched after the previous ended
--   kernel_wait_ns   ns     other gaps under 30 us
--   other_ns         ns     other gaps of 30 us or more
--   host_wait_pct    %      host_wait_ns / idle_ns
WITH ordered AS (
  SELECT g.trace_id, g.device, g.stream, g.ts, g.launch_ts,
    lag(g.ts + g.dur) OVER (PARTITION BY g.trace_id, g.device, g.stream
                            ORDER BY g.ts, g.event_id) AS prev_end
  FROM report_gpu g
), gaps AS (
  -- as HTA: the previous work's end (not the latest end so far), so a gap
  -- is negative only where work on one stream overlaps (clock rounding)
  SELECT trace_id, device, stream, ts - prev_end AS gap,
    coalesce(launch_ts > prev_end, 0) AS host_wait
  FROM ordered WHERE prev_end IS NOT NULL
), per_stream AS (
  SELECT trace_id, device, stream, sum(gap) AS idle,
    sum(gap) FILTER (WHERE host_wait) AS host_wait,
    sum(gap) FILTER (WHERE NOT host_wait AND gap < (SELECT max_ns FROM report_kernel_wait))
      AS kernel_wait,
    sum(gap) FILTER (WHERE NOT host_wait AND gap >= (SELECT max_ns FROM report_kernel_wait))
      AS other
  FROM gaps GROUP BY trace_id, device, stream
), busy AS (
  SELECT trace_id, device, stream, interval_union(ts, ts + dur) AS busy_ns,
    min(ts) AS first_ts, max(ts + dur) AS last_end
  FROM report_gpu GROUP BY trace_id, device, stream
)
SELECT w.label, b.device, b.stream, b.busy_ns, coalesce(p.idle, 0) AS idle_ns,
  max(b.first_ts - w.ts, 0) + max(w.end_ts - b.last_end, 0) AS edge_ns,
  coalesce(p.host_wait, 0) AS host_wait_ns, coalesce(p.kernel_wait, 0) AS kernel_wait_ns,
  coalesce(p.other, 0) AS other_ns,
  round(100.0 * coalesce(p.host_wait, 0) / max(coalesce(p.idle, 0), 1), 2) AS host_wait_pct
FROM busy b JOIN report_window w USING (trace_id)
LEFT JOIN per_stream p ON p.trace_id = b.trace_id AND p.device IS b.device AND p.stream IS b.stream
ORDER BY w.rank, b.trace_id, idle_ns DESC, b.device, b.stream;
