-- Export table memory_event: the trace's [memory] instant events
-- (profile_memory=True): allocations (+bytes) and frees (-bytes), by time.
-- Parameters: :trace_id, :base, :last, :run, :rank.
-- Output:
--   run              STRING  run
--   rank             INT64   rank
--   event_id         INT64   the rank's local event id
--   name             STRING  '[memory]' or '[OutOfMemory]'
--   pid              INT64   process
--   tid              INT64   thread
--   ts               INT64   time (ns)
--   addr             INT64   address
--   bytes            INT64   bytes allocated (> 0) or freed (< 0)
--   total_allocated  INT64   allocated bytes after the event
--   total_reserved   INT64   reserved bytes after the event
--   device_type      INT64   device type (0 CPU, 1 CUDA)
--   device_id        INT64   device ordinal
SELECT :run AS run, :rank AS rank, event_id - :base AS event_id, name, pid, tid, ts, addr,
  bytes, total_allocated, total_reserved, device_type, device_id
FROM memory_event
WHERE trace_id = :trace_id AND event_id > :base AND event_id <= :last
ORDER BY ts, event_id;
