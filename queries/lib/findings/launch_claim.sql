-- Measure: what launch_bound takes of the GPU idle time left by the other owners, per rank step
-- (one row).
-- What launch_bound takes of the GPU idle time the calls above leave
-- (idle_left), per rank step (ns; 0 when it does not fire): fusion and
-- CUDA graphs remove the steady-state launch calls' CPU time, no more than
-- that idle time.  gpu_idle keeps the rest (rest = idle_left - ns), so
-- the owners' savings add up to the idle time at most.
-- Builds: measure_launch_claim
-- Reads: measure_claim, measure_floor, measure_gpu, measure_launch, measure_time
CREATE TEMP TABLE measure_launch_claim (
  idle_left REAL,     -- GPU idle time outside the other owners' calls, ns
  ns        ANY,      -- launch_bound's part (0: it does not fire), ns
  rest      ANY       -- gpu_idle's part: idle_left - ns, ns
) STRICT;
INSERT INTO measure_launch_claim
  SELECT idle_left, ns, idle_left - ns AS rest FROM (
    SELECT i.idle_left,
      CASE WHEN i.kernels > 100 AND i.short_kernels > 0.5 * i.kernels
             AND i.idle_left > 0.2 * i.outside
             AND i.bound >= f.min_pct / 100 * i.job_step_ns AND i.bound >= f.min_ns
           THEN i.bound ELSE 0 END AS ns
    FROM measure_floor f, (
      SELECT t.rank_step_ns - t.gpu_busy_ns - cl.claimed AS idle_left,
        t.rank_step_ns - cl.claimed AS outside,
        min(l.steady_ns, t.rank_step_ns - t.gpu_busy_ns - cl.claimed) AS bound, t.job_step_ns,
          g.kernels, g.short_kernels
      FROM measure_time t, measure_claim cl, measure_launch l, measure_gpu g) i);
