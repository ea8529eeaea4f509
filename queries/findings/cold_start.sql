-- Rule: cold_start
-- 4b. Cold start: the analysed time holds cold-start launch calls
-- (lib/13_cold_launch.sql), one-time start-up (lazy module loading on a
-- kernel's first launch) that a longer run pays once.  It saves no step
-- time (expected_saving 0): it says the profile over-states the step by
-- that much, and how to profile the steady state.  Sorted by the share of
-- the job step those calls take.
-- Reads: _string, measure_cold, measure_floor, measure_time, report_cold_launch, report_span
SELECT round(min(100.0 * cm.call_ns / t.job_step_ns, 100), 1) AS priority, 'cold_start' AS rule,
  'high' AS confidence,
  printf('This profile is a cold start: %d first kernel launch(es) per rank take %.0f%% of ' ||
    'the analysed time (%s per rank step)',
    cm.calls, 100.0 * cm.call_ns / t.rank_step_ns, profdb_fmt_ns(cm.call_ns)) AS title,
  printf('%d launch call(s) per rank that are the first launch of their kernel take %s per ' ||
    'rank step (%s), each over 1 ms and over 100x the steady launch calls (the median later ' ||
      'call of its kernel, else of the trace: at most %s); the largest takes %s; the GPU ' ||
        'idles %s per rank step during them (launch_overhead).',
    cm.calls, profdb_fmt_ns(cm.call_ns),
    CASE WHEN t.steps > 0 THEN j.job_step_words ELSE 'the whole trace: no ProfilerStep ' ||
      'ranges, start-up ' ||
      'included' END,
    profdb_fmt_ns(cm.median_ns), profdb_fmt_ns(cm.largest_ns),
    profdb_fmt_ns(cm.idle_ns)) AS observation,
  'The profiled window starts with the process: CUDA loads each kernel''s module on its first ' ||
    'launch (lazy loading, CUDA_MODULE_LOADING=LAZY, the default since CUDA 11.7), and ' ||
      'cuDNN/cuBLAS initialize; a long run pays this once, not per step.' AS hypothesis,
  'Profile the steady state: torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, ' ||
    'warmup=1, active=3)) with prof.step() every iteration, or run a few iterations before ' ||
      'profiling; CUDA_MODULE_LOADING=EAGER moves the loading to start-up.' AS action,
  printf('None per step: %s of one-time start-up leaves the measured time; the other findings ' ||
    'then show the steady state.',
    profdb_fmt_ns(cm.call_ns)) AS expected_impact,
  'Re-profile after warm-up: no cold_start finding; launch_overhead without calls over 1 ms.' AS
    validation,
  0 AS needs_artifact, 0 AS expected_saving_pct, 0 AS expected_saving_ns,
    NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('kernel', name, 'launch_ns', dur)) FROM (
     SELECT n.value AS name, c.dur FROM report_cold_launch c JOIN _string n ON n.id = c.name_id
     WHERE EXISTS (SELECT 1 FROM report_span s WHERE s.trace_id = c.trace_id
                   AND c.ts < s.end_ts AND c.ts + c.dur > s.ts)
     ORDER BY c.dur DESC, name LIMIT 3)) AS subjects,
  json_object('sections', json_array('launch_overhead', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'cold_start_calls', cm.calls, 'cold_start_call_ns', CAST(round(cm.call_ns) AS INTEGER),
      'cold_start_idle_ns', CAST(round(cm.idle_ns) AS INTEGER), 'largest_call_ns', cm.largest_ns,
      'median_launch_ns', cm.median_ns)) AS evidence, 1 AS cut_may_explain
FROM measure_cold cm, measure_time t, measure_floor f, measure_time j
WHERE cm.calls > 0 AND t.rank_step_ns > 0 AND t.job_step_ns > 0
  AND cm.call_ns >= f.min_pct / 100 * t.job_step_ns AND cm.call_ns >= f.min_ns;
