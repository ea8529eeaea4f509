-- Measure: kernel time on the critical path, per rank step (one row).
-- crit_fill: the same for the fill kernels (fill_kernels); crit_op: for
-- the kernel category of low_gemm_efficiency's operator (gemm_cat), and
-- op_cat_ns: that category's kernel time per rank step; crit_copy: for
-- the copies (memcpy).
-- (measured only when the GPU idles over 10% of the rank step, crit_bound:
-- the only case that reads them; each measure holds a trace's kernels of
-- the kind)
-- Builds: measure_critical
-- Reads: _gpu_link, _slice, measure_gemm_op_top, measure_replay_span, measure_time,
--   measure_top_category, report_clip_sync, report_coll_call, report_gpu, report_gpu_gap,
--   report_pretrace_gpu, report_queued_gap,
--   report_setup_call, report_span, report_step_all, report_sync_class
CREATE TEMP TABLE measure_critical (
  crit      REAL,     -- the top category's kernel time inside the windows something waits in, ns
  crit_fill REAL,     -- the same for the fill kernels, ns
  crit_op   REAL,     -- the same for the kernel category of measure_gemm_op_top, ns
  op_cat_ns REAL,     -- that category's kernel time, ns
  crit_copy REAL,     -- the copies' time inside those windows, ns
  crit_pinned REAL    -- the top category's kernel time inside waited windows (with their
                      --   chains) before their span's last pin (below): waited for, but
                      --   finished sooner it only lengthens the wait at the pin, ns
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
-- allocator and set-up calls (lib/38_claim.sql) are left out: the one-time
-- ones (start-up, cuDNN / MIOpen autotuning syncs in the first iterations)
-- are not the steady state's wait, and the repeated ones are
-- allocator_calls' to remove: with the caching allocator at work nothing
-- waits there (issue 44's audit: TraceLens' train_resnet18, whose 153 ms
-- of Convolution "waited for" ran inside 1,355 hipFree calls).  So is a
-- call that waits on GPU work outside the trace (report_sync_class
-- 'outside'): its end is that work's, and faster kernels inside it only
-- lengthen the wait (issue 44's third unseen audit: 85 ms of Elementwise
-- inside a closing sync that went on 1.27 s with the GPU idle and
-- nothing queued).  crit: the
-- dominant category's kernel time in those windows, per rank step, but for
-- the work launched before the trace (a harness's backlog:
-- report_pretrace_gpu).
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
waited AS (  -- each window, with its span
  SELECT c.trace_id, c.k, c.a, c.b FROM report_clip_sync c
  WHERE c.event_id NOT IN (SELECT event_id FROM report_setup_call)
    AND c.event_id NOT IN (SELECT event_id FROM report_sync_class WHERE class = 'outside')
  UNION ALL
  SELECT w.trace_id, s.k, w.a, w.b
  FROM waited_tail w JOIN report_span s ON s.trace_id = w.trace_id AND s.step = w.step
),
-- Inside a span, GPU work before the GPU waited on something else is not
-- waited for: finished sooner, it only lengthens that wait.  Such a wait
-- (a pin) ends: a GPU idle gap of over 1 ms that began with work queued
-- (report_queued_gap: an event, another stream, work outside the trace;
-- shorter ones may be the GPU's own scheduling between dependent work); a
-- collective's last arrival, when it waited for a peer
-- (report_coll_call.wait_ns); a collective's end when its peers are not
-- loaded (its waiting is unknown: no saving without evidence).  Each
-- window counts from its span's last pin, if later (issue 44's audit:
-- HTA's rank0, whose every exposed copy is followed by a queued wait of up
-- to 65 ms or a 25.6 ms SendRecv with its 15 peers not loaded).
pin AS (
  SELECT trace_id, b AS t FROM report_queued_gap WHERE b - a > 1000000
  UNION ALL
  SELECT trace_id, CASE WHEN matched THEN ts + wait_ns ELSE ts + dur END
  FROM report_coll_call WHERE NOT matched OR wait_ns > 0
),
span_pin AS MATERIALIZED (  -- each span's last pin: one index probe a pin
  SELECT s.k, max(x.t) AS t
  FROM (SELECT p.t, (SELECT s2.k FROM report_span s2 WHERE s2.trace_id = p.trace_id
                     AND s2.ts < p.t ORDER BY s2.ts DESC LIMIT 1) AS k
        FROM pin p) x
  JOIN report_span s ON s.k = x.k
  WHERE x.t <= s.end_ts
  GROUP BY s.k
),
-- A wait whose start finds the GPU busy also waits for the GPU work
-- queued before it: from the end of the last GPU idle gap the host could
-- have filled (one that began with nothing queued) the GPU runs its queue
-- back to back (or waits on queued work), and finishing any of that chain
-- sooner ends the wait sooner (issue 44's eighth audit: a compiled
-- ResNet-18 whose closing synchronize waits for a 10.2 ms chain queued
-- since 15.90 ms; its Convolution "waited for" was the 0.50 ms run inside
-- the call, where replaying the trace with them halved ends it 1.26 ms
-- sooner).  Each wait's start, then, is its chain's: the end of the last
-- such gap begun before it, unless the GPU idles at its start (a gap
-- begun before it ends after it) or the span has none (the span's start).
-- Only in a whole-trace span (no ProfilerStep ranges: its end is the
-- trace's, what the closing wait ends), and only where a replay of the
-- trace bounds the findings (measure_replay_span: every analysed span
-- closed): a chain the host soon catches up with shortens the wait by
-- less than its kernels' time, which the replay measures (that ResNet-18:
-- 2.46 ms by the chain, 1.27 ms replayed).  A step's replay ends at its
-- last node, GPU work past the host's range included, which nothing may
-- wait for (the next step not queued behind it: waited_tail above), so
-- there the replay is no bound for a longer window.
-- One sorted pass per span over its gaps and waits.
gap_or_wait AS (  -- (the fillable gaps taken as a set, not looked up one by one)
  SELECT k, trace_id, a, b, 0 AS wait, 0 AS fillable FROM report_gpu_gap
  WHERE k IN (SELECT k FROM waited)
  UNION ALL
  SELECT k, trace_id, a, b, 0, 1 FROM (SELECT k, trace_id, a, b FROM report_gpu_gap
                                       EXCEPT SELECT k, trace_id, a, b FROM report_queued_gap)
  WHERE k IN (SELECT k FROM waited)
  UNION ALL
  SELECT k, trace_id, a, b, 1, 0 FROM waited
),
chained AS (
  SELECT *, max(b) FILTER (WHERE NOT wait) OVER w AS gap_end,
    max(b) FILTER (WHERE fillable) OVER w AS fillable_end
  FROM gap_or_wait
  WINDOW w AS (PARTITION BY k, trace_id ORDER BY a, wait ROWS UNBOUNDED PRECEDING)
),
chain AS (
  SELECT c.trace_id, c.k, CASE WHEN c.gap_end > c.a OR s.step IS NOT NULL
                                 OR NOT EXISTS (SELECT 1 FROM measure_replay_span) THEN c.a
                               ELSE coalesce(c.fillable_end, s.ts) END AS a, c.b
  FROM chained c JOIN report_span s ON s.k = c.k
  WHERE c.wait
),
crit_win AS (
  SELECT w.trace_id, max(w.a, coalesce(sp.t, w.a)) AS a, w.b
  FROM chain w LEFT JOIN span_pin sp ON sp.k = w.k
  WHERE max(w.a, coalesce(sp.t, w.a)) < w.b
),
-- The GPU work launched before the trace is no step's own: a faster kernel
-- of the step does not shorten a wait for that backlog (issue 44's fifth
-- audit: TraceLens' Qwen1.5 trace, whose 7.39 ms of Elementwise "waited
-- for" was all inside the opening sync, all backlog).
pretrace AS (SELECT event_id FROM report_pretrace_gpu)
  SELECT coalesce(sum(x.ns), 0) / t.n AS crit, coalesce(sum(x.fill_ns), 0) / t.n AS crit_fill,
    coalesce(sum(x.op_ns), 0) / t.n AS crit_op, coalesce(sum(x.op_cat_ns),
      0) / t.n AS op_cat_ns, coalesce(sum(x.copy_ns), 0) / t.n AS crit_copy,
    coalesce(sum(x.all_ns - x.ns), 0) / t.n AS crit_pinned FROM (
    SELECT k.trace_id, (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.event_id NOT IN pretrace AND g.kind = 'kernel'
          AND g.category = (SELECT category FROM measure_top_category))) AS ns,
      (SELECT interval_overlap(a, b, w) FROM (
        SELECT w.a, w.b, 1 AS w FROM chain w WHERE w.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.event_id NOT IN pretrace AND g.kind = 'kernel'
          AND g.category = (SELECT category FROM measure_top_category))) AS all_ns,
      (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.event_id NOT IN pretrace AND g.kind = 'kernel'
          AND g.is_fill)) AS fill_ns,
      (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.event_id NOT IN pretrace AND g.kind = 'kernel'
          AND g.category = (SELECT category FROM measure_gemm_op_top))) AS op_ns,
      (SELECT sum(g.dur) FROM report_gpu g
       WHERE g.trace_id = k.trace_id AND g.kind = 'kernel' AND g.event_id NOT IN pretrace
         AND g.category = (SELECT category FROM measure_gemm_op_top)) AS op_cat_ns,
      (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.event_id NOT IN pretrace AND g.kind = 'memcpy')) AS copy_ns
    FROM (SELECT DISTINCT trace_id FROM report_gpu) k
    WHERE (SELECT critical_path_bound FROM measure_time)) x,
    (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t;
