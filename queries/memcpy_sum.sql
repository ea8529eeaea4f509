-- Title: Memory transfers by direction
-- Question: How much data moves between host and device (and device to
--   device), how long it takes and at what bandwidth?
-- Requires: report_gpu
-- Empty: the trace has no GPU copies (or no GPU activity at all)
-- Columns:
--   copy_kind     -      HtoD, DtoH, DtoD, HtoH, PtoP (from the copy's name)
--   copies        count  copies
--   bytes         bytes  bytes moved (copies that record their size)
--   total_dur_ns  ns     total copy time
--   pct_gpu       %      share of all GPU activity time
--   gbps          GB/s   bytes / total_dur_ns (GB = 1e9 bytes)
--   avg_bytes     bytes  mean bytes per copy
SELECT m.copy_kind, count(*) AS copies, sum(m.bytes) AS bytes, sum(m.dur) AS total_dur_ns,
  round(100.0 * sum(m.dur) / (SELECT sum(dur) FROM report_gpu), 2) AS pct_gpu,
  round(1.0 * sum(m.bytes) / max(sum(m.dur), 1), 2) AS gbps,
  CAST(round(avg(m.bytes)) AS INTEGER) AS avg_bytes
FROM report_gpu g JOIN memcpy m ON m.event_id = g.event_id
WHERE g.kind = 'memcpy'
GROUP BY m.copy_kind ORDER BY total_dur_ns DESC, m.copy_kind;
