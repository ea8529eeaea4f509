-- Rule: straggler
-- 9. Straggler ranks: late arrival at collectives (straggler_f above);
-- the saving is the wait of the ranks that were on time, over the steady
-- calls (start-up calls left out: lib/50_collectives.sql).
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
),
-- The stragglers grouped by their figures: ranks that tie exactly are
-- one group (ranks: at most 5 named, then how many more).
straggler_g AS (
  SELECT s.run, count(*) AS n, min(s.rank) AS first_rank, s.late_ns,
    s.mean_lateness_ns, s.last_arrivals, s.tied_last, s.collectives,
    (SELECT group_concat(x.rank, ', ') FROM (SELECT y.rank FROM report_straggler y
       WHERE y.run = s.run AND y.straggler AND y.late_ns = s.late_ns
         AND y.mean_lateness_ns = s.mean_lateness_ns AND y.last_arrivals = s.last_arrivals
         AND y.tied_last = s.tied_last AND y.collectives = s.collectives
       ORDER BY y.rank LIMIT 5) x)
      || CASE WHEN count(*) > 5 THEN printf(' and %d more', count(*) - 5) ELSE '' END AS ranks
  FROM report_straggler s WHERE s.straggler
  GROUP BY s.run, s.late_ns, s.mean_lateness_ns, s.last_arrivals, s.tied_last, s.collectives
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
      'collective kernels).%s',
    r.ranks, r.run,
    -- the 3 latest groups of stragglers; ranks with the same figures are
    -- one group, named as a tie (rank_sum has every rank)
    (SELECT group_concat(printf('%s arrives %s after the first rank on average, %s after ' ||
      'the median in total, last%s in %d of %d calls%s',
        CASE WHEN g.n > 1 THEN printf('ranks %s tie: each', g.ranks) ELSE 'rank ' || g.ranks END,
        profdb_fmt_ns(g.mean_lateness_ns), profdb_fmt_ns(g.late_ns),
        CASE WHEN g.n > 1 AND g.tied_last = g.last_arrivals THEN ' together' ELSE '' END,
        g.last_arrivals, g.collectives,
        CASE WHEN g.tied_last > 0 AND NOT (g.n > 1 AND g.tied_last = g.last_arrivals)
          THEN printf(' (%d of them tied with other ranks)', g.tied_last) ELSE '' END), '; ')
       || CASE WHEN (SELECT count(*) FROM report_straggler s WHERE s.run = r.run AND s.straggler)
                    > (SELECT sum(n) FROM (SELECT n FROM straggler_g x WHERE x.run = r.run
                                           ORDER BY x.late_ns DESC, x.first_rank LIMIT 3))
            THEN printf('; %d more late ranks in rank_sum',
              (SELECT count(*) FROM report_straggler s WHERE s.run = r.run AND s.straggler)
              - (SELECT sum(n) FROM (SELECT n FROM straggler_g x WHERE x.run = r.run
                                     ORDER BY x.late_ns DESC, x.first_rank LIMIT 3)))
            ELSE '' END
     FROM (SELECT * FROM straggler_g g WHERE g.run = r.run
           ORDER BY g.late_ns DESC, g.first_rank LIMIT 3) g),
    CASE WHEN r.startup_calls > 0 THEN printf(' The first %s, whose arrival ' ||
      'spread is outlying against the run''s, %s start-up and left out (%s of waiting, ' ||
        'one-time: a rank whose profiler started late, communicator set-up at a group''s ' ||
          'first call, first launches that differ between ranks).',
      CASE WHEN r.startup_calls > 1 THEN r.startup_calls || ' matched calls' ELSE 'matched call' END,
      CASE WHEN r.startup_calls > 1 THEN 'are' ELSE 'is' END,
      profdb_fmt_ns(r.startup_wait_ns)) ELSE '' END) AS observation,
  'The late ranks do more work before the collective (imbalanced data or embedding shards), ' ||
    'or their host or GPU is slower (throttling, noisy neighbours, a slow data loader); ranks ' ||
      'with the longest steps are the ones that waited.' AS hypothesis,
  'Compare what the late ranks run before the collective (step_time, gpu_kernel_sum with ' ||
    '--trace) with the others: input sizes per rank, sharding balance, host load and GPU ' ||
      'clocks.' AS action,
  printf('Up to %s per job step (%.1f%% of the %s job step) if the late ranks arrived with ' ||
    'the others: the other ranks'' waiting inside their collective kernels ' ||
      '(communication.wait_ns)%s, which no other finding claims.',
    profdb_fmt_ns(r.step_saving_ns), 100.0 * r.step_saving_ns / r.job_step_ns,
      profdb_fmt_ns(r.job_step_ns),
    CASE WHEN r.startup_calls > 0 THEN ' in the steady calls' ELSE '' END) AS expected_impact,
  'Re-profile all ranks: rank_sum.straggler is no everywhere and late_ns under 1% of the job ' ||
    'step.' AS validation,
  0 AS needs_artifact,
  round(min(100.0 * r.step_saving_ns / r.job_step_ns, 100), 2) AS expected_saving_pct,
  r.step_saving_ns AS expected_saving_ns, NULL AS expected_saving_bytes, r.stragglers AS subjects,
  json_object('sections', json_array('rank_sum', 'communication'), 'run', r.run,
    'saving_ns', r.saving_ns, 'job_steps', r.job_steps, 'job_step_ns', r.job_step_ns,
    'analysed_ns', r.analysed_ns, 'startup_calls', r.startup_calls,
    'startup_wait_ns', r.startup_wait_ns,
    'late_ns', (SELECT json_group_object(s.rank, s.late_ns) FROM report_straggler s
                WHERE s.run = r.run AND s.straggler)) AS evidence, 1 AS cut_may_explain
FROM straggler_j r, measure_floor f WHERE r.analysed_ns > 0 AND r.step_saving_ns >= f.min_ns
  AND 100.0 * r.step_saving_ns / r.job_step_ns >= f.min_pct;
