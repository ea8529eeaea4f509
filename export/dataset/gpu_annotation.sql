-- Export table gpu_annotation: record_function ranges on the GPU timeline
-- (ProfilerStep#N and user ranges as the GPU ran them), by time.
-- Parameters: :trace_id, :base, :run, :rank.
-- Output:
--   run          STRING  run
--   rank         INT64   rank
--   event_id     INT64   the rank's local event id
--   name         STRING  range name
--   device       INT64   device ordinal
--   stream       INT64   stream id
--   ts           INT64   start (ns)
--   dur          INT64   duration (ns)
--   external_id  INT64   args External id
SELECT :run AS run, :rank AS rank, event_id - :base AS event_id, name, device, stream, ts,
  dur, external_id
FROM gpu_annotation WHERE trace_id = :trace_id
ORDER BY ts, event_id;
