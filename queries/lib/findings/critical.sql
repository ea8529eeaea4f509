-- Measure: kernel time on the critical path, per rank step (one row).
-- crit_fill: the same for the fill kernels (fill_kernels); crit_op: for
-- the kernel category of low_gemm_efficiency's operator (gemm_cat), and
-- op_cat_ns: that category's kernel time per rank step.
-- (measured only when the GPU idles over 10% of the rank step, crit_bound:
-- the only case that reads them; each measure holds a trace's kernels of
-- the kind)
-- Builds: measure_critical
-- Reads: measure_gemm_op_top, measure_time, measure_top_category, report_clip_sync, report_gpu,
--   report_setup_call, report_step
CREATE TEMP TABLE measure_critical (
  crit      REAL,     -- the top category's kernel time inside the windows something waits in, ns
  crit_fill REAL,     -- the same for the fill kernels, ns
  crit_op   REAL,     -- the same for the kernel category of measure_gemm_op_top, ns
  op_cat_ns REAL      -- that category's kernel time, ns
) STRICT;
INSERT INTO measure_critical
WITH
-- When the host, not the GPU, sets the step (the GPU idles most of it), a
-- faster kernel shortens the step only where something waits for it: a
-- host-blocking call (report_clip_sync) or the step's end, when its GPU
-- work runs past the ProfilerStep's CPU range (the span's tail).  The
-- one-time calls (lib/38_claim.sql: start-up, cuDNN / MIOpen autotuning
-- syncs in the first iterations) are left out: they are not the steady
-- state's wait.  crit: the dominant category's kernel time in those
-- windows, per rank step.
crit_win AS (
  SELECT trace_id, a, b FROM report_clip_sync
  WHERE event_id NOT IN (SELECT event_id FROM report_setup_call WHERE NOT repeated)
  UNION ALL
  SELECT trace_id, ts + dur, span_end FROM report_step WHERE span_end > ts + dur
)
  SELECT coalesce(sum(x.ns), 0) / t.n AS crit, coalesce(sum(x.fill_ns), 0) / t.n AS crit_fill,
    coalesce(sum(x.op_ns), 0) / t.n AS crit_op, coalesce(sum(x.op_cat_ns),
      0) / t.n AS op_cat_ns FROM (
    SELECT k.trace_id, (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.kind = 'kernel'
          AND g.category = (SELECT category FROM measure_top_category))) AS ns,
      (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.kind = 'kernel' AND g.is_fill)) AS fill_ns,
      (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.kind = 'kernel'
          AND g.category = (SELECT category FROM measure_gemm_op_top))) AS op_ns,
      (SELECT sum(g.dur) FROM report_gpu g
       WHERE g.trace_id = k.trace_id AND g.kind = 'kernel'
         AND g.category = (SELECT category FROM measure_gemm_op_top)) AS op_cat_ns
    FROM (SELECT DISTINCT trace_id FROM report_gpu) k
    WHERE (SELECT critical_path_bound FROM measure_time)) x,
    (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t;
