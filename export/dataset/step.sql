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
--   warmup    INT64   1: the report excludes it as warm-up (unless --include-warmup), else 0
--   analysed  INT64   1: profdb report analyses it (its default scope: not warm-up, not empty), else 0
-- warmup and analysed come from the report's own definition,
-- queries/lib/05_steps.sql (temp.report_step_all, which ex_export runs
-- before the tables), so a per-step query of the dataset can select the
-- steps the report analyses: WHERE analysed = 1.
SELECT :run AS run, :rank AS rank, s.step, s.event_id - :base AS event_id, s.ts, s.dur,
  s.gpu_ts, s.gpu_dur, s.span_ts, s.span_dur, coalesce(a.warmup, 0) AS warmup,
  coalesce(NOT a.warmup AND NOT a.empty, 0) AS analysed
FROM step s
LEFT JOIN temp.report_step_all a ON a.trace_id = s.trace_id AND a.step = s.step
  AND a.event_id = s.event_id
WHERE s.trace_id = :trace_id
ORDER BY s.ts, s.step;
