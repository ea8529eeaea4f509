-- Title: Host-device synchronization
-- Question: Where does the CPU wait for the GPU?  Explicit synchronize
--   calls, and ops that copy a value to the host (aten::item,
--   _local_scalar_dense: .item(), .cpu(), printing a tensor).  The calls
--   nest (aten::item > _local_scalar_dense > cudaMemcpyAsync >
--   cudaStreamSynchronize), so the last row counts the time once.
-- Requires: report_sync
-- Empty: no synchronizing calls were recorded in the analysed steps
-- Columns:
--   name            -      call or op (report_sync_name lists them)
--   calls           count  calls
--   total_dur_ns    ns     total time blocked in it
--   avg_dur_ns      ns     mean duration (empty on the total row)
--   max_dur_ns      ns     longest call
--   pct_window      %      share of the analysed window (all traces)
WITH per_name AS (
  SELECT 0 AS o, name, count(*) AS calls, sum(dur) AS total_dur_ns,
    CAST(round(avg(dur)) AS INTEGER) AS avg_dur_ns, max(dur) AS max_dur_ns
  FROM report_sync GROUP BY name
), per_thread AS (
  SELECT count(*) AS calls, interval_union(ts, ts + dur) AS busy, max(dur) AS longest
  FROM report_sync GROUP BY trace_id, pid, tid
), total AS (
  SELECT 1 AS o, '(all of the above, nested calls counted once)' AS name, sum(calls) AS calls,
    sum(busy) AS total_dur_ns, NULL AS avg_dur_ns, max(longest) AS max_dur_ns
  FROM per_thread
)
SELECT name, calls, total_dur_ns, avg_dur_ns, max_dur_ns,
  round(100.0 * total_dur_ns / max((SELECT sum(end_ts - ts) FROM report_span), 1), 2) AS pct_window
FROM (SELECT * FROM per_name UNION ALL SELECT * FROM total WHERE calls > 0)
ORDER BY o, total_dur_ns DESC, name;
