-- Rule: straggler
-- 9. Straggler ranks: late arrival at collectives (straggler_f above);
-- the saving is the wait of the ranks that were on time.
-- Reads: measure_floor, measure_time, report_job_step, report_straggler, report_straggler_run
WITH
-- Straggler ranks: late arrival at collectives (lib/50_collectives.sql),
-- with the fields of the findings contract (docs/report-schema.md).
-- The saving is the run's over its job steps, per job step.
straggler_j AS (
  SELECT r.*, CAST(round(1.0 * r.saving_ns / max((SELECT count(*) FROM report_job_step j
    WHERE j.run = r.run), 1)) AS INTEGER) AS step_saving_ns,
    (SELECT max(n,
      1) FROM (SELECT count(*) AS n FROM report_job_step j WHERE j.run = r.run)) AS job_steps,
    t.job_step_ns
  FROM report_straggler_run r, measure_time t WHERE t.job_step_ns > 0
)
SELECT round(100.0 * r.step_saving_ns / r.job_step_ns, 1) AS priority, 'straggler' AS rule,
  'high' AS confidence,
  printf('Rank%s %s reach%s the collectives late; the other ranks wait for %s',
    CASE WHEN json_array_length(r.stragglers) > 1 THEN 's' ELSE '' END,
    -- at most 5 ranks named; the subjects (JSON) list them all
    (SELECT group_concat(x, ', ') || CASE WHEN json_array_length(r.stragglers) > 5
       THEN printf(' and %d more', json_array_length(r.stragglers) - 5) ELSE '' END
     FROM (SELECT j.value ->> 'rank' AS x FROM json_each(r.stragglers) j LIMIT 5)),
    CASE WHEN json_array_length(r.stragglers) > 1 THEN '' ELSE 'es' END,
    CASE WHEN json_array_length(r.stragglers) > 1 THEN 'them' ELSE 'it' END) AS title,
  printf('Over %d ranks of run %s, matched collective calls: %s (rank_sum: late_ns is the ' ||
    'time after the median rank''s arrival, mean_wait_ns the peers'' wait inside their ' ||
      'collective kernels).',
    r.ranks, r.run,
    -- the 3 latest stragglers (rank_sum has every rank)
    (SELECT group_concat(printf('rank %d arrives %s after the first rank on average, %s after ' ||
      'the median in total, last in %d of %d calls',
        s.rank, profdb_fmt_ns(s.mean_lateness_ns), profdb_fmt_ns(s.late_ns), s.last_arrivals,
          s.collectives), '; ')
       || CASE WHEN json_array_length(r.stragglers) > 3
            THEN printf('; %d more late ranks in rank_sum', json_array_length(r.stragglers) - 3)
            ELSE '' END
     FROM (SELECT * FROM report_straggler s WHERE s.run = r.run AND s.straggler
           ORDER BY s.late_ns DESC, s.rank LIMIT 3) s)) AS observation,
  'The late ranks do more work before the collective (imbalanced data or embedding shards), ' ||
    'or their host or GPU is slower (throttling, noisy neighbours, a slow data loader); ranks ' ||
      'with the longest steps are the ones that waited.' AS hypothesis,
  'Compare what the late ranks run before the collective (step_time, gpu_kernel_sum with ' ||
    '--trace) with the others: input sizes per rank, sharding balance, host load and GPU ' ||
      'clocks.' AS action,
  printf('Up to %s per job step (%.1f%% of the %s job step) if the late ranks arrived with ' ||
    'the others: the other ranks'' waiting inside their collective kernels ' ||
      '(communication.wait_ns), which no other finding claims.',
    profdb_fmt_ns(r.step_saving_ns), 100.0 * r.step_saving_ns / r.job_step_ns,
      profdb_fmt_ns(r.job_step_ns)) AS expected_impact,
  'Re-profile all ranks: rank_sum.straggler is no everywhere and late_ns under 1% of the job ' ||
    'step.' AS validation,
  0 AS needs_artifact,
  round(min(100.0 * r.step_saving_ns / r.job_step_ns, 100), 2) AS expected_saving_pct,
  r.step_saving_ns AS expected_saving_ns, NULL AS expected_saving_bytes, r.stragglers AS subjects,
  json_object('sections', json_array('rank_sum', 'communication'), 'run', r.run,
    'saving_ns', r.saving_ns, 'job_steps', r.job_steps, 'job_step_ns', r.job_step_ns,
    'analysed_ns', r.analysed_ns,
    'late_ns', (SELECT json_group_object(s.rank, s.late_ns) FROM report_straggler s
                WHERE s.run = r.run AND s.straggler)) AS evidence, 1 AS cut_may_explain
FROM straggler_j r, measure_floor f WHERE r.analysed_ns > 0 AND r.step_saving_ns >= f.min_ns
  AND 100.0 * r.step_saving_ns / r.job_step_ns >= f.min_pct;
