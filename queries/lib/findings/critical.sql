-- Measure: kernel time on the critical path, per rank step (one row).
-- crit_fill: the same for the fill kernels (fill_kernels); crit_op: for
-- the kernel category of low_gemm_efficiency's operator (gemm_cat), and
-- op_cat_ns: that category's kernel time per rank step.
-- (measured only when the GPU idles over 10% of the rank step, crit_bound:
-- the only case that reads them; each measure holds a trace's kernels of
-- the kind)
-- Builds: measure_critical
-- Reads: _gpu_link, _slice, measure_gemm_op_top, measure_time, measure_top_category,
--   report_clip_sync, report_gpu, report_setup_call, report_step, report_step_all
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
-- host-blocking call (report_clip_sync) or the step's GPU work past its
-- CPU range (the span's tail) when the next step's GPU work queues behind
-- it (launched before the tail ends: the GPU sets the pace there).  A tail
-- the next step does not queue behind is not waited for: the host is
-- already on the next step, and a faster tail only starts the next span
-- sooner, as long (issue 44's audit: kineto's resnet50 traces, whose
-- next step launches 48-62 ms after each 9-16 ms tail).  The last step's
-- tail counts when the step before it was queued behind (the loop's
-- steady behaviour; a single step's tail is the profile's end).  The
-- one-time calls (lib/38_claim.sql: start-up, cuDNN / MIOpen autotuning
-- syncs in the first iterations) are left out: they are not the steady
-- state's wait.  crit: the dominant category's kernel time in those
-- windows, per rank step.
next_launch AS (  -- each step's first launch of GPU work
  SELECT r.trace_id, l.step, min(r.ts) AS ts
  FROM _gpu_link l JOIN _slice r ON r.id = l.launch_id
  WHERE l.step IS NOT NULL AND (SELECT critical_path_bound FROM measure_time)
  GROUP BY r.trace_id, l.step
),
steps AS (
  SELECT trace_id, step, ts + dur AS a, span_end AS b,
    lead(step) OVER (PARTITION BY trace_id ORDER BY ts) AS next_step
  FROM report_step_all WHERE NOT empty  -- (a stub step, cut short, is no next step)
),
tail AS (  -- queued: the next step launched GPU work before this one's span ended
  SELECT s.trace_id, s.step, s.a, s.b, s.next_step, coalesce(n.ts < s.b, 0) AS queued
  FROM steps s LEFT JOIN next_launch n ON n.trace_id = s.trace_id AND n.step = s.next_step
),
waited_tail AS (
  SELECT trace_id, step, a, b FROM (
    SELECT t.*, lag(t.queued) OVER (PARTITION BY t.trace_id ORDER BY t.a) AS prev_queued
    FROM tail t)
  WHERE b > a AND (queued OR (next_step IS NULL AND coalesce(prev_queued, 0)))
),
crit_win AS (
  SELECT trace_id, a, b FROM report_clip_sync
  WHERE event_id NOT IN (SELECT event_id FROM report_setup_call WHERE NOT repeated)
  UNION ALL
  SELECT w.trace_id, w.a, w.b FROM waited_tail w JOIN report_step s USING (trace_id, step)
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
