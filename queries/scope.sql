-- Title: Scope
-- Question: What does the report cover: which traces (ranks) and steps are
--   analysed, which step is excluded as warm-up, which snapshots and devices?
--   One line per group of traces with the same scope, so that 8 ranks with
--   the same steps read "ranks 0-7 (8 traces): step 10 analysed".  With
--   the whole-trace scopes (trace, hta) one line says so.  Caveats follow
--   when the report holds several jobs (runs) or a job mixes GPU models or
--   world sizes (docs/definitions.md#jobs).
-- Columns:
--   note  -  one line of the scope (the report joins them with '; ')
WITH w AS (
  SELECT w.trace_id, w.label, w.rank, w.steps, w.all_steps, w.warmup_excluded, w.whole,
    (SELECT min(step) FROM report_step s WHERE s.trace_id = w.trace_id) AS first_step,
    (SELECT max(step) FROM report_step s WHERE s.trace_id = w.trace_id) AS last_step,
    (SELECT group_concat(step, ', ') FROM report_step_all s
     WHERE s.trace_id = w.trace_id AND s.warmup AND NOT s.empty) AS warm,
    (SELECT group_concat(step, ', ') FROM report_step_all s
     WHERE s.trace_id = w.trace_id AND s.empty) AS empty
  FROM report_window w),
described AS (
  SELECT trace_id, label, rank,
    CASE WHEN all_steps = 0 THEN 'no ProfilerStep ranges, the whole trace is analysed'
         WHEN steps = 0 THEN 'no step analysed'
         WHEN first_step = last_step THEN printf('step %d analysed', first_step)
         ELSE printf('steps %d-%d analysed (%d)', first_step, last_step, steps) END
    || CASE WHEN warmup_excluded AND warm IS NOT NULL
         THEN ', step ' || warm || ' excluded as warm-up' ELSE '' END
    || CASE WHEN empty IS NOT NULL THEN ', step ' || empty
         || ' skipped (no time of its own: cut short while earlier GPU work ran)' ELSE '' END
    AS what
  FROM w),
grouped AS (
  SELECT what, count(*) AS traces, count(rank) AS ranked, min(rank) AS lo, max(rank) AS hi,
    group_concat(rank, ', ') AS ranks, group_concat(label, ', ') AS labels,
    min(coalesce(rank, -1)) AS first_rank, min(trace_id) AS first_trace
  FROM (SELECT * FROM described ORDER BY rank, trace_id)
  GROUP BY what)
SELECT note FROM (
  SELECT -1 AS part, 0 AS k1, 0 AS k2,
    CASE WHEN coalesce(:scope_hta, 0)
      THEN 'HolisticTraceAnalysis'' scope (--scope hta): the whole trace, GPU work launched before the last ProfilerStep starts'
      ELSE 'the whole trace of every input: every event, inside or outside ProfilerSteps (--scope trace)' END AS note
  WHERE coalesce(:scope_trace, 0)
  UNION ALL
  SELECT 0 AS part, first_rank AS k1, first_trace AS k2,
    CASE WHEN ranked < traces THEN labels
         WHEN traces = 1 THEN printf('rank %d', lo)
         WHEN hi - lo + 1 = traces THEN printf('ranks %d-%d (%d traces)', lo, hi, traces)
         WHEN traces > 16 THEN printf('%d traces of ranks %d-%d', traces, lo, hi)
         ELSE printf('ranks %s', ranks) END || ': ' || what AS note
  FROM grouped WHERE NOT coalesce(:scope_trace, 0)
  UNION ALL
  SELECT 1, s.snapshot_id, 0,
    printf('snapshot %s: device%s %s', s.label, CASE WHEN count(*) > 1 THEN 's' ELSE '' END,
           group_concat(d.device, ', '))
  FROM report_mem_device d JOIN snapshot s USING (snapshot_id)
  GROUP BY d.snapshot_id
  UNION ALL
  -- Coherence (issue 23): a report meant for one job that holds several,
  -- or a job whose ranks ran on different GPU models or world sizes.
  SELECT 2, 0, 0, printf('caveat: %d jobs (runs) in one report (%s%s): the findings average over them; load each job into its own database, or name them with profdb load --run NAME',
    count(*), group_concat(run, ', '), CASE WHEN count(*) > 4 THEN ', ...' ELSE '' END)
  FROM (SELECT DISTINCT run FROM report_run ORDER BY run LIMIT 5)
  HAVING (SELECT count(DISTINCT run) FROM report_run) > 1
  UNION ALL
  SELECT 3, 0, 0, printf('caveat: job %s mixes GPU models (%s): its ranks are not alike', r.run,
    group_concat(DISTINCT d.name))
  FROM report_run r JOIN device d USING (trace_id)
  GROUP BY r.run HAVING count(DISTINCT d.name) > 1
  UNION ALL
  SELECT 4, 0, 0, printf('caveat: job %s mixes world sizes (%s)', r.run,
    group_concat(DISTINCT t.world_size))
  FROM report_run r JOIN report_trace t USING (trace_id)
  GROUP BY r.run HAVING count(DISTINCT t.world_size) > 1)
ORDER BY part, k1, k2;
