-- Rule: startup_calls
-- 4c. One-time set-up calls (lib/38_claim.sql): the first cudaFree
-- (context creation), the first events and streams, module loading.  Like
-- cold_start it saves no step time (expected_saving 0): the profile
-- holds start-up; it says how to profile the steady state.  Also the
-- operators' first calls that hold one-time library work (cuDNN / cuBLAS
-- / MIOpen set-up, lib/38_claim.sql report_first_call).  Sorted by the
-- share of the job step the GPU idles during them.  And the host stalls
-- that happen once with nothing recorded (lib/38_claim.sql
-- report_opaque_gap: a function compiled before or at its first calls).
-- Reads: measure_claim, measure_first_call, measure_floor, measure_setup, measure_stall,
--   measure_time
SELECT round(min(100.0 * cl.startup / t.job_step_ns, 100), 1) AS priority, 'startup_calls' AS rule,
  'high' AS confidence,
  printf('This profile includes start-up: one-time set-up calls%s leave the GPU idle %.0f%% ' ||
    'of the analysed time (%s per rank step)',
    CASE WHEN fc.list IS NOT NULL THEN ' and operators'' first calls' ELSE '' END ||
      CASE WHEN EXISTS (SELECT 1 FROM measure_stall) THEN ' and host stalls' ELSE '' END,
    100.0 * cl.startup / t.rank_step_ns, profdb_fmt_ns(cl.startup)) AS title,
  CASE WHEN NOT EXISTS (SELECT 1 FROM measure_setup WHERE NOT repeated) THEN printf('The GPU ' ||
    'idles %s per rank step (%s) in one-time work.', profdb_fmt_ns(cl.startup),
    CASE WHEN t.steps > 0 THEN j.job_step_words ELSE 'the whole trace: no ProfilerStep ' ||
      'ranges, start-up included' END) ELSE
  printf('Allocator and set-up calls that run once (the first cudaFree / hipFree creates the ' ||
    'context; events, streams and modules are created once; cuDNN / MIOpen autotuning ' ||
      'synchronizes inside convolutions once per new input shape; each over 1 ms and 100x the ' ||
        'median call of its name, or a name that does not recur through the analysed steps: ' ||
          'in under half of them or not in the later half; without steps, not in each of the ' ||
            'last three tenths of the trace) leave the GPU idle %s per rank step (%s): %s.',
    profdb_fmt_ns(cl.startup),
    CASE WHEN t.steps > 0 THEN j.job_step_words ELSE 'the whole trace: no ProfilerStep ' ||
      'ranges, start-up ' ||
      'included' END,
    (SELECT group_concat(printf('%s %d call(s), %s', name, CAST(round(calls) AS INTEGER),
      profdb_fmt_ns(call_ns)), '; ')
     FROM (SELECT * FROM measure_setup WHERE NOT repeated ORDER BY autotune DESC, call_ns DESC,
       name LIMIT 3))) END ||
    CASE WHEN fc.list IS NULL THEN '' ELSE printf(' First calls of an operator signature (name and input shapes as recorded) ' ||
      'or of a DataLoader''s next() over 1 ms and over 10x the median of its later calls hold ' ||
        'one-time work (cuDNN / cuBLAS / MIOpen handles, kernel loading, algorithm search; ' ||
          'the DataLoader''s workers starting and its first batch): %s.', fc.list) END ||
    coalesce((SELECT printf(' %s GPU idle gap(s) with the host recording nothing (or one ' ||
      'operator with nothing recorded beneath it) occur once in the analysed time: %s per rank ' ||
        'step, the longest %s; one-time work the profiler does not see into (a TorchScript or ' ||
          'compiled function built at its first calls, lazy initialization).',
      CASE WHEN stalls = 1 THEN 'One' ELSE printf('%d', CAST(round(stalls) AS INTEGER)) END,
      profdb_fmt_ns(stall_ns), profdb_fmt_ns(max_ns)) FROM measure_stall), '') AS observation,
  'The profiled window starts with the process: CUDA/HIP creates its context, events and ' ||
    'streams, PyTorch''s caching allocator reserves its first memory, and with ' ||
      'torch.backends.cudnn.benchmark cuDNN (MIOpen: its find mode) times every convolution ' ||
        'algorithm on each new input shape, once; a long run pays this once, not per step.' AS
          hypothesis,
  'Profile the steady state: torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, ' ||
    'warmup=1, active=3)) with prof.step() every iteration, or run a few iterations before ' ||
      'profiling.' AS action,
  printf('None per step: %s of one-time set-up leaves the measured time; the other findings ' ||
    'then show the steady state.',
    profdb_fmt_ns(cl.startup)) AS expected_impact,
  'Re-profile after warm-up: no startup_calls finding; sync_sum without cudaFree / hipFree ' ||
    'over 1 ms.' AS validation,
  0 AS needs_artifact, 0 AS expected_saving_pct, 0 AS expected_saving_ns,
    NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('call', name, 'calls', CAST(round(calls) AS INTEGER),
    'call_ns', CAST(round(call_ns) AS INTEGER)))
   FROM (SELECT * FROM (SELECT name, autotune, calls, call_ns FROM measure_setup WHERE NOT repeated
     UNION ALL
     SELECT name || ' (first call)', 0, calls, call_ns FROM measure_first_call)
     ORDER BY autotune DESC, call_ns DESC, name LIMIT 3)) AS subjects,
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'startup_idle_ns', CAST(round(cl.startup) AS INTEGER))) AS evidence, 1 AS cut_may_explain
FROM measure_claim cl, measure_time t, measure_floor f, measure_time j, (
  SELECT group_concat(printf('%s first call %s (later calls: median %s)', name,
    profdb_fmt_ns(max_dur), profdb_fmt_ns(median_ns)), '; ') AS list
  FROM (SELECT * FROM measure_first_call ORDER BY call_ns DESC, name LIMIT 3)) fc
WHERE t.rank_step_ns > 0 AND t.job_step_ns > 0 AND cl.startup >= f.min_pct / 100 * t.job_step_ns
  AND cl.startup >= f.min_ns;
