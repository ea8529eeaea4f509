-- Measure: the analysed step time, per rank step, and the job step (one row).
-- Per rank step (the mean over the ranks and their analysed steps, so a
-- job with more ranks that behave alike gives the same figures), and the
-- job step (lib/52_job.sql): job_step_ns, the mean job step, is the denominator
-- of every expected_saving_pct.
-- Builds: measure_time
-- Reads: report_clip_gpu, report_job, report_pretrace_gpu, report_step_time
CREATE TEMP TABLE measure_time (
  rank_step_ns        REAL,     -- rank step: mean analysed wall time per rank step, ns
  gpu_busy_ns         REAL,     -- GPU busy (kernels, copies, fills, collectives) per rank step, ns
  kernel_ns           REAL,     -- kernels other than communication per rank step, ns
  dataloader_ns       REAL,     -- data loading with nothing above it running, per rank step, ns
  runtime_ns          REAL,     -- runtime calls with no GPU work running, per rank step, ns
  cpu_ns              REAL,     -- other CPU work with nothing above running, per rank step, ns
  unrecorded_ns       REAL,     -- nothing recorded, per rank step, ns
  rank_steps          INTEGER,  -- rank steps: one per rank and analysed step (a trace without
                                --   steps: one)
  memcpy_exposed_ns   REAL,     -- copies with no kernel running, per rank step, ns
  steps               INTEGER,  -- analysed ProfilerSteps (0: traces without steps)
  job_step_ns         INTEGER,  -- the mean job step (report_job.job_step_ns), ns: every saving
                                --   percentage's denominator
  job_steps           INTEGER,  -- job steps
  longest_job_step_ns INTEGER,  -- the longest job step, ns
  ranks               INTEGER,  -- ranks reported on (at least 1)
  critical_path_bound INTEGER,  -- 1: the GPU idles over 10% of the rank step, the work launched
                                --   before the trace left out (report_pretrace_gpu: a harness's
                                --   backlog is no step's own), so a kernel-time saving is bounded
                                --   by that kernel time on the critical path (measure_critical)
  job_step_words      TEXT,     -- in words: what one job step means here
  pretrace_ns         REAL,     -- GPU busy per rank step in work launched before the trace
                                --   (report_pretrace_gpu), ns
  gpu_idle_words      TEXT      -- in words: the GPU's idle share of the rank step, and without
                                --   pretrace_ns when there is some (critical_path_bound's)
) STRICT;
-- report_step_time's u1..u7 are cumulative unions of its levels (lib/30_step_time.sql):
-- u1 kernels, u2 + copies, u4 + fills and collectives (GPU busy), u5 + runtime calls,
-- u6 + data loading, u7 + any other CPU work.
INSERT INTO measure_time
  WITH pretrace AS (  -- the GPU work launched before the trace, in the spans: no step's own
    SELECT coalesce(sum(ns), 0) AS ns FROM (
      SELECT interval_union(c.a, c.b) AS ns FROM report_clip_gpu c
      WHERE c.event_id IN (SELECT event_id FROM report_pretrace_gpu) GROUP BY c.trace_id))
  SELECT 1.0 * sum(wall_ns) / count(*) AS rank_step_ns, 1.0 * sum(u4) / count(*) AS gpu_busy_ns,
    1.0 * sum(u1) / count(*) AS kernel_ns,
    1.0 * sum(u6 - u5) / count(*) AS dataloader_ns, 1.0 * sum(u5 - u4) / count(*) AS runtime_ns,
    1.0 * sum(u7 - u6) / count(*) AS cpu_ns, 1.0 * sum(wall_ns - u7) / count(*) AS unrecorded_ns,
    count(*) AS rank_steps, 1.0 * sum(u2 - u1) / count(*) AS memcpy_exposed_ns,
    sum(step IS NOT NULL) AS steps,
    (SELECT job_step_ns FROM report_job) AS job_step_ns,
    (SELECT job_steps FROM report_job) AS job_steps,
    (SELECT longest_ns FROM report_job) AS longest_job_step_ns,
    max((SELECT ranks FROM report_job), 1) AS ranks,
    -- critical_path_bound: the GPU idles over 10% of the rank step, so a kernel-time
    -- saving (dominant_category, fill_kernels, low_gemm_efficiency) is
    -- bounded by that kernel time's share on the critical path (measure_critical);
    -- the GPU work launched before the trace is no step's own (issue 44's audit:
    -- TraceLens' Qwen1.5 trace, 35% idle without it, 8% with it)
    sum(u4) - (SELECT ns FROM pretrace) < 0.9 * sum(wall_ns) AS critical_path_bound,
    NULL AS job_step_words, 1.0 * (SELECT ns FROM pretrace) / count(*) AS pretrace_ns,
    NULL AS gpu_idle_words
  FROM report_step_time;
UPDATE measure_time SET job_step_words = printf('mean over %d rank(s) x %d job step(s); '
  || 'a job step, set by its slowest rank, lasts %s',
  ranks, job_steps, profdb_fmt_ns(job_step_ns)),
  gpu_idle_words = printf('%.0f%% of the rank step', 100.0 * (rank_step_ns - gpu_busy_ns) /
    max(rank_step_ns, 1)) || CASE WHEN pretrace_ns > 0 THEN printf(' (%.0f%% with the %s per ' ||
      'rank step of GPU work launched before the trace, no step''s own, set aside)',
      100.0 * (rank_step_ns - gpu_busy_ns + pretrace_ns) / max(rank_step_ns, 1),
      profdb_fmt_ns(pretrace_ns)) ELSE '' END;
