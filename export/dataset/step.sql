-- Export table step: the ProfilerStep#N ranges of a rank, by time.
-- Parameters: :trace_id, :base, :run, :rank.
-- Output:
--   run       STRING  run
--   rank      INT64   rank
--   step      INT64   step number N of ProfilerStep#N
--   event_id  INT64   the step's CPU slice (the rank's local event id)
--   ts        INT64   CPU range start (ns, the rank's clock)
--   dur       INT64   CPU range duration (ns)
--   gpu_ts    INT64   start of the step's GPU annotation (ns), NULL when none
--   gpu_dur   INT64   its duration (ns)
--   span_ts   INT64   the step's span start (CPU start or first GPU work it launched, ns)
--   span_dur  INT64   the span's duration (ns): the step time
SELECT :run AS run, :rank AS rank, step, event_id - :base AS event_id, ts, dur, gpu_ts,
  gpu_dur, span_ts, span_dur
FROM step WHERE trace_id = :trace_id
ORDER BY ts, step;
