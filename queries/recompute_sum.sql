-- Title: Activation checkpointing recompute
-- Question: How much CPU time goes to recomputing activations (gradient
--   checkpointing)?  Ops, annotations and Python frames whose names mention
--   checkpoint or recompute, nested ones counted once per thread.
-- Requires: report_marker
-- Empty: no checkpoint or recompute ranges in the analysed steps (no
--   activation checkpointing, or profiled without with_stack=True to see
--   torch.utils.checkpoint frames)
-- Columns:
--   label          -      trace
--   events         count  matching events
--   top_name       symbol the matching name with the most time
--   recompute_ns   ns     time covered by them (overlaps counted once per thread)
--   pct_window     %      share of the analysed window
WITH hits AS (
  SELECT * FROM report_marker WHERE recompute
), per_thread AS (
  SELECT trace_id, interval_union(ts, ts + dur) AS busy, count(*) AS n
  FROM hits GROUP BY trace_id, pid, tid
), span_total AS (
  SELECT trace_id, sum(end_ts - ts) AS window_ns FROM report_span GROUP BY trace_id
)
SELECT w.label, sum(p.n) AS events,
  (SELECT h.name FROM hits h WHERE h.trace_id = p.trace_id GROUP BY h.name
   ORDER BY sum(h.dur) DESC, h.name LIMIT 1) AS top_name,
  sum(p.busy) AS recompute_ns, round(100.0 * sum(p.busy) / max(t.window_ns, 1), 2) AS pct_window
FROM per_thread p JOIN report_window w USING (trace_id) JOIN span_total t USING (trace_id)
GROUP BY p.trace_id ORDER BY w.rank, p.trace_id;
