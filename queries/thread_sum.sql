-- Title: Busiest threads
-- Question: Which CPU threads are busy, and for how much of the analysed
--   window?  busy = time covered by any op, annotation (ProfilerStep#N
--   excluded), Python frame or runtime call on the thread.
-- Requires: report_clip_cpu
-- Parameters: :top
-- Empty: the trace has no CPU events
-- Columns:
--   label      -      trace
--   pid        -      process
--   tid        -      thread
--   thread     -      thread name, when the trace names it
--   busy_ns    ns     time covered by the thread's events (cpu_busy, clipped to the step spans)
--   busy_pct   %      busy_ns / analysed window
--   ops        count  operators the thread ran in the analysed steps
WITH span_total AS (
  SELECT trace_id, sum(end_ts - ts) AS window_ns FROM report_span GROUP BY trace_id
), busy AS (
  SELECT trace_id, pid, tid, sum(b - a) AS busy FROM report_clip_cpu
  GROUP BY trace_id, pid, tid
), ops AS (
  SELECT trace_id, pid, tid, sum(calls) AS n FROM report_op_thread GROUP BY trace_id, pid, tid
)
SELECT w.label, c.pid, c.tid,
  (SELECT name FROM thread t WHERE t.trace_id = c.trace_id AND t.pid IS c.pid AND t.tid IS c.tid) AS thread,
  c.busy AS busy_ns, round(100.0 * c.busy / max(t.window_ns, 1), 2) AS busy_pct,
  coalesce(o.n, 0) AS ops
FROM busy c JOIN report_window w USING (trace_id) JOIN span_total t USING (trace_id)
LEFT JOIN ops o ON o.trace_id = c.trace_id AND o.pid IS c.pid AND o.tid IS c.tid
ORDER BY busy_ns DESC, w.rank, c.trace_id, c.pid, c.tid LIMIT :top;
