-- Rule: collective_waiting
-- 11. A process group whose collectives mostly wait: over its matched
-- steady calls (coll_sum; start-up calls, whose skew is one-time, left
-- out: lib/50_collectives.sql), the time before the last peer arrived is more than
-- half of the collective time, and at least the floor per rank step.  It
-- names the group (data, tensor, pipeline parallel: by its ranks), which
-- rank_sum and straggler do not.  The waiting is the straggler finding's
-- saving when that finding fires for the run: then this one promises
-- nothing (no time promised twice); else the group's waiting per rank
-- step (docs/definitions.md#collective-bandwidth).
-- Reads: measure_floor, measure_time, report_coll_call, report_straggler_run
WITH
grp AS (
  SELECT run, "group", count(*) AS calls, sum(wait_ns) AS wait_ns, sum(transfer_ns) AS transfer_ns,
    group_concat(DISTINCT kind) AS kinds,
    EXISTS (SELECT 1 FROM report_straggler_run s WHERE s.run = c.run) AS straggler
  FROM report_coll_call c WHERE matched AND NOT startup AND run IS NOT NULL
  GROUP BY run, "group"
),
waiting AS (
  SELECT g.*, 1.0 * g.wait_ns / max(t.rank_steps, 1) AS step_wait_ns, t.job_step_ns
  FROM grp g, measure_time t, measure_floor f
  WHERE t.job_step_ns > 0 AND 2 * g.wait_ns > g.wait_ns + g.transfer_ns
    AND 1.0 * g.wait_ns / max(t.rank_steps, 1) >= f.min_ns
    AND 100.0 * g.wait_ns / max(t.rank_steps, 1) / t.job_step_ns >= f.min_pct
),
total AS (
  SELECT CAST(round(sum(step_wait_ns)) AS INTEGER) AS step_wait_ns,
    CAST(round(sum(step_wait_ns) FILTER (WHERE NOT straggler)) AS INTEGER) AS saving_ns,
    max(job_step_ns) AS job_step_ns, count(*) AS n, sum(straggler) AS with_straggler
  FROM waiting HAVING count(*) > 0
)
SELECT round(100.0 * x.step_wait_ns / x.job_step_ns, 1) AS priority, 'collective_waiting' AS rule,
  'medium' AS confidence,
  printf('Process group%s %s wait%s for late peers more than %s transfer%s',
    CASE WHEN x.n > 1 THEN 's' ELSE '' END,
    (SELECT group_concat(w."group", ', ') FROM
       (SELECT "group" FROM waiting ORDER BY wait_ns DESC, "group" LIMIT 3) w)
      || CASE WHEN x.n > 3 THEN printf(' and %d more', x.n - 3) ELSE '' END,
    CASE WHEN x.n > 1 THEN '' ELSE 's' END,
    CASE WHEN x.n > 1 THEN 'they' ELSE 'it' END,
    CASE WHEN x.n > 1 THEN '' ELSE 's' END) AS title,
  printf('Per rank step (%s): %s. Waiting is the time inside a collective kernel before the ' ||
    'group''s last rank arrived (communication.wait_ns; coll_sum.wait_pct per kind and size).',
    profdb_fmt_ns(x.job_step_ns),
    (SELECT group_concat(printf('%s (%s) waits %s, %.0f%% of its collective time, over %d calls',
       w."group", w.kinds, profdb_fmt_ns(w.step_wait_ns),
         100.0 * w.wait_ns / (w.wait_ns + w.transfer_ns), w.calls), '; ')
     FROM (SELECT * FROM waiting ORDER BY wait_ns DESC, "group" LIMIT 3) w)) AS observation,
  'The group''s ranks reach its collectives at different times: uneven work before them ' ||
    '(sharding, sequence lengths, pipeline stages), a slow rank, or a collective of another ' ||
      'group that some members join first.' AS hypothesis,
  'Compare what the group''s ranks run before the collective (rank_sum, step_time per rank); ' ||
    'balance their inputs or stages; the straggler finding names a late rank when there is ' ||
      'one.' AS action,
  CASE WHEN x.saving_ns > 0
    THEN printf('Up to %s per job step (%.1f%% of the %s job step) if the group''s ranks ' ||
      'arrived together: the waiting inside its collective kernels.',
      profdb_fmt_ns(x.saving_ns), 100.0 * x.saving_ns / x.job_step_ns,
        profdb_fmt_ns(x.job_step_ns))
    ELSE 'The straggler finding''s saving already counts this waiting; this finding names ' ||
      'the group it happens in.' END AS expected_impact,
  'Re-profile: coll_sum.wait_pct of the group under 50%.' AS validation,
  0 AS needs_artifact,
  round(min(100.0 * coalesce(x.saving_ns, 0) / x.job_step_ns, 100), 2) AS expected_saving_pct,
  coalesce(x.saving_ns, 0) AS expected_saving_ns, NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('group', w."group"))
   FROM (SELECT * FROM waiting ORDER BY wait_ns DESC, "group") w) AS subjects,
  json_object('sections', json_array('coll_sum', 'communication', 'rank_sum'),
    'groups', (SELECT json_group_array(json_object('run', w.run, 'group', w."group",
       'wait_ns', w.wait_ns, 'transfer_ns', w.transfer_ns, 'straggler', w.straggler))
     FROM waiting w)) AS evidence,
  1 AS cut_may_explain
FROM total x;
