-- The job model (docs/definitions.md#jobs): a job is a run (lib/12_runs.sql)
-- and its ranks; job step k is ProfilerStep k on every rank of the job,
-- and it lasts as long as its slowest rank's step span (synchronous
-- training waits for the slowest rank at the next collective).  Every
-- finding and verdict is per job step: a saving is the mean over the
-- job's ranks and steps of what each rank's step would lose, and its
-- percentage is its share of the mean job step, so adding ranks that
-- behave alike changes no figure.  A trace without steps is one job step
-- (its whole analysed window).

-- One row per job step.
--   run             the job (report_run.run)
--   step            ProfilerStep number (-1: traces without steps)
--   ranks           ranks that ran the step
--   dur_ns          job step duration: the longest rank's step span
--   min_ns          the shortest rank's step span
--   median_ns       the median rank's step span
--   slowest_rank    the rank holding dur_ns (ties: the lowest rank)
--   fastest_rank    the rank holding min_ns (ties: the lowest rank)
CREATE TEMP TABLE report_job_step AS
WITH s AS (
  SELECT r.run, coalesce(t.step, -1) AS step, w.rank, t.trace_id, t.wall_ns
  FROM report_step_time t JOIN report_run r USING (trace_id) JOIN report_window w USING (trace_id)
)
SELECT run, step, count(*) AS ranks, max(wall_ns) AS dur_ns, min(wall_ns) AS min_ns,
  CAST(round(profdb_median(wall_ns)) AS INTEGER) AS median_ns,
  (SELECT x.rank FROM s x WHERE x.run = s.run AND x.step = s.step
   ORDER BY x.wall_ns DESC, x.rank, x.trace_id LIMIT 1) AS slowest_rank,
  (SELECT x.rank FROM s x WHERE x.run = s.run AND x.step = s.step
   ORDER BY x.wall_ns, x.rank, x.trace_id LIMIT 1) AS fastest_rank
FROM s GROUP BY run, step;

-- The denominators of the findings and the verdicts (one row).
--   runs              jobs reported on
--   ranks             traces (ranks) reported on
--   job_steps         job steps (all jobs)
--   rank_steps        rank steps: one per rank and analysed step
--   job_step_ns       mean job step duration
--   longest_ns        the longest job step
CREATE TEMP TABLE report_job AS
SELECT (SELECT count(DISTINCT run) FROM report_job_step) AS runs,
  (SELECT count(DISTINCT trace_id) FROM report_step_time) AS ranks,
  count(*) AS job_steps, coalesce(sum(ranks), 0) AS rank_steps,
  CAST(round(avg(dur_ns)) AS INTEGER) AS job_step_ns, max(dur_ns) AS longest_ns
FROM report_job_step;
