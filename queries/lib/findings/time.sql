-- Measure: the analysed step time, per rank step, and the job step (one row).
-- Per rank step (the mean over the ranks and their analysed steps, so a
-- job with more ranks that behave alike gives the same figures), and the
-- job step (lib/52_job.sql): js, the mean job step, is the denominator
-- of every expected_saving_pct.
-- Builds: measure_time
-- Reads: report_job, report_step_time
CREATE TEMP TABLE measure_time (
  wall           REAL,     -- rank step: mean analysed wall time per rank step, ns
  busy           REAL,     -- GPU busy (kernels, copies, fills, collectives) per rank step, ns
  kern           REAL,     -- kernels other than communication per rank step, ns
  dataloader     REAL,     -- data loading with nothing of a higher level running, per rank step,
                           --   ns
  runtime        REAL,     -- runtime calls with no GPU work running, per rank step, ns
  cpu            REAL,     -- other CPU work with nothing above running, per rank step, ns
  other          REAL,     -- nothing recorded, per rank step, ns
  n              INTEGER,  -- rank steps (one per rank and analysed step; a trace without steps is
                           --   one)
  memcpy_exposed REAL,     -- copies with no kernel running, per rank step, ns
  steps          INTEGER,  -- analysed ProfilerSteps (0: traces without steps)
  js             INTEGER,  -- the mean job step (report_job.job_step_ns), ns: every saving
                           --   percentage's denominator
  job_steps      INTEGER,  -- job steps
  longest        INTEGER,  -- the longest job step, ns
  ranks          INTEGER,  -- ranks reported on (at least 1)
  crit_bound     INTEGER,  -- 1: the GPU idles over 10% of the rank step, so a kernel-time saving
                           --   is bounded by that kernel time on the critical path
                           --   (measure_critical)
  per            TEXT      -- in words: what one job step means here
) STRICT;
INSERT INTO measure_time
  SELECT 1.0 * sum(wall_ns) / count(*) AS wall, 1.0 * sum(u4) / count(*) AS busy,
    1.0 * sum(u1) / count(*) AS kern,
    1.0 * sum(u6 - u5) / count(*) AS dataloader, 1.0 * sum(u5 - u4) / count(*) AS runtime,
    1.0 * sum(u7 - u6) / count(*) AS cpu, 1.0 * sum(wall_ns - u7) / count(*) AS other,
    count(*) AS n, 1.0 * sum(u2 - u1) / count(*) AS memcpy_exposed,
    sum(step IS NOT NULL) AS steps,
    (SELECT job_step_ns FROM report_job) AS js, (SELECT job_steps FROM report_job) AS job_steps,
    (SELECT longest_ns FROM report_job) AS longest,
    max((SELECT ranks FROM report_job), 1) AS ranks,
    -- crit_bound: the GPU idles over 10% of the rank step, so a kernel-time
    -- saving (dominant_category, fill_kernels, low_gemm_efficiency) is
    -- bounded by that kernel time's share on the critical path (measure_critical)
    sum(u4) < 0.9 * sum(wall_ns) AS crit_bound, NULL AS per
  FROM report_step_time;
UPDATE measure_time SET per = printf('mean over %d rank(s) x %d job step(s); a job step, set ' ||
  'by its slowest rank, lasts %s',
  ranks, job_steps, profdb_fmt_ns(js));
