-- Rule: wait_outside_trace
-- 4e. The host blocks while the GPU stays idle (lib/38_claim.sql,
-- 'outside'): the wait is for work this trace does not hold, so no
-- change to the profiled code is known to save it (expected_saving 0).
-- Reads: measure_claim, measure_floor, measure_time, report_sync_class, report_sync_sourced
SELECT round(min(100.0 * cl.outside / t.job_step_ns, 100), 1) AS priority,
  'wait_outside_trace' AS rule,
  'medium' AS confidence,
  -- (the host's wait, not the GPU's: issue 44's third unseen audit, a
  -- closing sync whose queued work ran in its first 112 ms, then 1.27 s
  -- of idle GPU with nothing queued)
  printf('The host waits on work this trace does not show for %.0f%% of the analysed time',
    100.0 * cl.outside / t.rank_step_ns) AS title,
  printf('Host-blocking calls wait %s per rank step (%s) while no GPU work of the process ' ||
    'runs (over 1 ms and over 90%% of each call): %s.',
    profdb_fmt_ns(cl.outside),
    CASE WHEN t.steps > 0 THEN j.job_step_words ELSE 'the whole trace: no ProfilerStep ranges' END,
    (SELECT group_concat(printf('%s of %s', name, profdb_fmt_ns(b - a)), '; ')
     FROM (SELECT name, a, b FROM report_sync_class WHERE class = 'outside' ORDER BY b - a DESC,
       name LIMIT 3))) AS observation,
  'The blocked call waits for GPU work the trace does not show: work queued behind an event ' ||
    'recorded outside the profiled window or process (another process or thread not traced, a ' ||
      'producer that ran before the window), work launched by a thread or process not traced, ' ||
        'or work whose GPU records were lost.' AS hypothesis,
  'The host waits on work outside this trace: profile a longer window that holds the producer ' ||
    '(or profile the producing process / thread), then act on what it shows.' AS action,
  'None promised: the cause is not in this trace.' AS expected_impact,
  'Re-profile with the producer in the window: no wait_outside_trace finding.' AS validation,
  0 AS needs_artifact, 0 AS expected_saving_pct, 0 AS expected_saving_ns,
    NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('call', c.name, 'source', y.source, 'blocked_ns', c.b - c.a))
   FROM (SELECT * FROM report_sync_class WHERE class = 'outside' ORDER BY b - a DESC,
     name LIMIT 3) c
   LEFT JOIN report_sync_sourced y USING (event_id)) AS subjects,
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'outside_idle_ns', CAST(round(cl.outside) AS INTEGER))) AS evidence, 1 AS cut_may_explain
FROM measure_claim cl, measure_time t, measure_floor f, measure_time j
WHERE t.rank_step_ns > 0 AND t.job_step_ns > 0 AND cl.outside >= f.min_pct / 100 * t.job_step_ns
  AND cl.outside >= f.min_ns;
