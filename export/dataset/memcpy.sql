-- Export table memcpy: GPU memory copies of a rank, by time.
-- Parameters: :trace_id, :base, :run, :rank.
-- Output:
--   run             STRING  run
--   rank            INT64   rank
--   event_id        INT64   the rank's local event id
--   name            STRING  e.g. 'Memcpy HtoD (Pageable -> Device)'
--   copy_kind       STRING  'HtoD', 'DtoH', 'DtoD', 'HtoH', 'PtoP' (or the name)
--   device          INT64   device ordinal
--   stream          INT64   stream id
--   ts              INT64   start (ns)
--   dur             INT64   duration (ns)
--   step            INT64   ProfilerStep number of the launch
--   bytes           INT64   bytes copied
--   bandwidth_gbps  DOUBLE  bytes / dur (GB/s)
--   correlation     INT64   args correlation
--   external_id     INT64   args External id
--   launch_id       INT64   the runtime call that launched it (local event id)
--   op_id           INT64   the CPU op that launched it (local event id)
SELECT :run AS run, :rank AS rank, event_id - :base AS event_id, name, copy_kind, device,
  stream, ts, dur, step, bytes, bandwidth_gbps, correlation, external_id,
  launch_id - :base AS launch_id, op_id - :base AS op_id
FROM memcpy WHERE trace_id = :trace_id
ORDER BY ts, event_id;
