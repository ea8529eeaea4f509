-- Export table memset: GPU memsets of a rank, by time.
-- Parameters: :trace_id, :base, :run, :rank.
-- Output:
--   run          STRING  run
--   rank         INT64   rank
--   event_id     INT64   the rank's local event id
--   name         STRING  name as written
--   device       INT64   device ordinal
--   stream       INT64   stream id
--   ts           INT64   start (ns)
--   dur          INT64   duration (ns)
--   step         INT64   ProfilerStep number of the launch
--   bytes        INT64   bytes set
--   correlation  INT64   args correlation
--   external_id  INT64   args External id
--   launch_id    INT64   the runtime call that launched it (local event id)
--   op_id        INT64   the CPU op that launched it (local event id)
SELECT :run AS run, :rank AS rank, event_id - :base AS event_id, name, device, stream, ts,
  dur, step, bytes, correlation, external_id, launch_id - :base AS launch_id,
  op_id - :base AS op_id
FROM memset WHERE trace_id = :trace_id
ORDER BY ts, event_id;
