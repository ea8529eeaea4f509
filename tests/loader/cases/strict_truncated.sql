-- complete events before the cut are kept; the trace is marked truncated
-- at the decompressed offset where the input ended
SELECT status, truncated_at, events, json_bytes FROM trace;
SELECT name, ts, dur FROM cpu_op ORDER BY ts;
