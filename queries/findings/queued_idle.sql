-- Rule: queued_idle
-- 4f. The GPU idles although work is already queued on it (launched, not
-- started; lib/38_claim.sql, 'queued'): launching sooner fills none of it,
-- so no host-side finding promises it (issue 44, pattern 1).  This rule
-- owns that time and says what the GPU waited on (measure_queued_gap:
-- its own step between operations, a graph's own scheduling, an event, or
-- nothing the trace records), with
-- saving 0: the cause is in the dependency, not in the profiled host code.
-- Reads: measure_claim, measure_floor, measure_queued_gap, measure_time
WITH by_owner AS (  -- each owner's gaps per rank step, ns
  SELECT q.owner, sum(q.b - q.a) / (SELECT 1.0 * max(rank_steps, 1) FROM measure_time) AS ns
  FROM measure_queued_gap q GROUP BY q.owner
), by_op AS (  -- the gaps by the operation that ended them: the three with the most idle
  SELECT q.name, q.stream, q.owner, q.launch, count(*) AS gaps,
    sum(q.b - q.a) / (SELECT 1.0 * max(rank_steps, 1) FROM measure_time) AS ns,
    max(q.b - q.a) AS longest_ns, max(q.queued_ns) AS queued_ns
  FROM measure_queued_gap q GROUP BY q.name, q.stream, q.owner, q.launch
  ORDER BY ns DESC, q.name, q.stream LIMIT 3
)
SELECT round(min(100.0 * cl.queued / t.job_step_ns, 100), 1) AS priority,
  'queued_idle' AS rule,
  'medium' AS confidence,
  printf('The GPU idles with work already queued for %.0f%% of the analysed time',
    100.0 * cl.queued / t.rank_step_ns) AS title,
  printf('GPU idle time that began with work launched but not started: %s per rank step (%s), ' ||
    'in %d gaps; what the waiting operation waited on, over whole gaps (cold-start launches, ' ||
    'one-time set-up and waits on work outside the trace take their part of a gap first, so ' ||
    'these can add up to more): %s. Most: %s.',
    profdb_fmt_ns(cl.queued),
    CASE WHEN t.steps > 0 THEN t.job_step_words ELSE 'the whole trace: no ProfilerStep ranges' END,
    (SELECT count(*) FROM measure_queued_gap),
    (SELECT group_concat(printf('%s %s', profdb_fmt_ns(ns), CASE owner
       WHEN 'switch' THEN 'in gaps under 30 us (the GPU''s own step from one operation to the next)'
       WHEN 'graph' THEN 'inside CUDA/HIP graph replays'
       WHEN 'event' THEN 'on events (a stream-wait since the stream''s previous launch)'
       ELSE 'on nothing the trace records' END), '; ')
     FROM (SELECT * FROM by_owner ORDER BY ns DESC, owner)),
    (SELECT group_concat(printf('%s per rank step before %s on stream %s (%d gaps, the ' ||
       'longest %s; %s)', profdb_fmt_ns(ns),
       coalesce(name, 'the span''s end'), coalesce(stream, '-'), gaps, profdb_fmt_ns(longest_ns),
       CASE WHEN name IS NULL THEN 'no operation of the span followed'
            WHEN launch IS NULL THEN 'launched before the trace began'
            ELSE printf('queued up to %s after its %s', profdb_fmt_ns(queued_ns), launch) END),
       '; ')
     FROM by_op)) AS observation,
  CASE (SELECT owner FROM by_owner ORDER BY ns DESC, owner LIMIT 1)
    WHEN 'switch' THEN 'Most of it is short gaps between queued operations: the GPU''s own ' ||
      'time to finish one operation and start the next (dependency checks, the next kernel''s ' ||
      'set-up), which only fewer, larger operations reduce.'
    WHEN 'graph' THEN 'The GPU work sits in CUDA/HIP graph replays: the graph''s nodes wait on ' ||
      'the graph''s own dependencies and scheduling, not on the host.'
    WHEN 'event' THEN 'The waiting stream waits on an event whose producer runs none of this ' ||
      'trace''s GPU work in the gap: another stream''s work not in the trace, or a producer in ' ||
      'another process or before the window.'
    ELSE 'No dependency is recorded for the waiting operation and its stream''s own work had ' ||
      'ended: the GPU ran work this trace does not hold (another process on the same GPU, GPU ' ||
      'records lost or sampled), or waited on an event whose wait was not recorded.'
  END AS hypothesis,
  'The GPU already has the work: find what it waits on before changing host code. Short ' ||
    'gaps: fewer, larger kernels (fusion, torch.compile). Graph ' ||
    'replays: look at the graph''s dependencies and its first nodes. Events: find the event''s ' ||
      'producer (profile that stream or process) and record it sooner or drop the wait. ' ||
      'Nothing recorded: check for another process on the GPU (nvidia-smi, MPS) and re-profile ' ||
      'with every GPU record kept (no sampling; enable_cuda_sync_events=True records the waits).'
    AS action,
  'None promised: the cause is the GPU''s dependency, not the profiled host code.'
    AS expected_impact,
  'Re-profile after acting on the cause: the queued idle time (gpu_idle''s queued_idle_ns) ' ||
    'shrinks.' AS validation,
  0 AS needs_artifact, 0 AS expected_saving_pct, 0 AS expected_saving_ns,
    NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('operation', name, 'stream', stream, 'owner', owner,
     'gaps', gaps, 'idle_ns', CAST(round(ns) AS INTEGER), 'longest_ns', longest_ns,
     'queued_ns', queued_ns, 'launch', launch))
   FROM by_op) AS subjects,
  json_object('sections', json_array('gpu_idle', 'queue_length', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns, 'queued_idle_ns', CAST(round(cl.queued) AS INTEGER),
      'switch_ns', (SELECT CAST(round(sum(ns)) AS INTEGER) FROM by_owner WHERE owner = 'switch'),
      'graph_ns', (SELECT CAST(round(sum(ns)) AS INTEGER) FROM by_owner WHERE owner = 'graph'),
      'event_ns', (SELECT CAST(round(sum(ns)) AS INTEGER) FROM by_owner WHERE owner = 'event'),
      'unseen_ns', (SELECT CAST(round(sum(ns)) AS INTEGER) FROM by_owner
                    WHERE owner = 'unseen'))) AS evidence, 1 AS cut_may_explain
FROM measure_claim cl, measure_time t, measure_floor f
WHERE t.rank_step_ns > 0 AND t.job_step_ns > 0 AND cl.queued >= f.min_pct / 100 * t.job_step_ns
  AND cl.queued >= f.min_ns;
