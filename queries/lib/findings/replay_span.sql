-- Measure: the analysed spans whose replay bounds the findings (rows).
-- The analysed spans, when every one was replayed and is closed (no GPU
-- work held by something the graph does not hold, its CPU work on one
-- thread: lib/63's report_cp_replay_span); else none: the scope is not the
-- default one, a span is past the graph's cap, or open.  The replay bounds
-- (measure_replay, measure_replay_removed) read them, and so does the
-- critical path's wait windows (measure_critical), which count the GPU
-- work queued into a wait only where a replay bounds what they promise.
-- Builds: measure_replay_span
-- Reads: report_cp_replay, report_cp_replay_span, report_cp_span_all
CREATE TEMP TABLE measure_replay_span (
  trace_id INTEGER,  -- an analysed span's trace
  step     INTEGER   -- and step (-1: the whole trace)
) STRICT;
INSERT INTO measure_replay_span
SELECT p.trace_id, p.step FROM report_cp_span_all p
WHERE NOT coalesce(:scope_trace, 0) AND NOT coalesce(:scope_hta, 0)
  AND NOT EXISTS (
    SELECT 1 FROM report_cp_span_all q
    WHERE NOT EXISTS (SELECT 1 FROM report_cp_replay r
                      WHERE r.trace_id = q.trace_id AND r.step = q.step)
       OR NOT EXISTS (SELECT 1 FROM report_cp_replay_span o
                      WHERE o.trace_id = q.trace_id AND o.step = q.step AND o.open_ops = 0
                        AND o.threads <= 1));
