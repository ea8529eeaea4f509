-- The critical path of each analysed step (the whole trace without steps):
-- HolisticTraceAnalysis' CriticalPathAnalysis graph (hta/analyzers/
-- critical_path_analysis.py, v0.6.0 commit f4d0062), built from the loaded
-- tables, and its longest path (profdb_critical_path, sqlext/
-- critical_path.c, builds the nodes, the lock and call-stack edges and
-- walks the graph; this file and lib/61 give it the events and the GPU
-- edges).  docs/definitions.md, "Critical path".
--
-- Nodes are the start and the end of each CPU operator and runtime call
-- (dur > 0, starting in the span) and of each kernel, copy and fill whose
-- launch call starts in the span.  Edges, in HTA's order:
--   1. runtime lock (cudaLaunchKernel, cudaMemcpyAsync, cudaHostAlloc, all
--      threads): each end takes the starts seen since the previous end;
--   2. per thread (the backward pass's thread merged into the forward
--      pass's, as HTA does), consecutive points of the call stack:
--      'operator' (time inside an operator), 'dependency' into a
--      top-level operator (0);
--      the end of a blocking call (HTA's BLOCKING_SYNC_CALLS) weighs 0;
--   3. per GPU operation: 'operator' (its run), 'launch' from its launch
--      call's start when its stream had nothing queued and nothing running,
--      else 'kernel_kernel' from the previous operation's end on the stream
--      (gaps under 1.5 ms); 'sync' (0) from the operation a Stream / Context
--      / Event Sync waited for to its call's end (without --scope hta the
--      call's time after it, lib/61), and from the operation a
--      cudaStreamWaitEvent waits for to the next operation launched there.
-- Times: ns; with --scope hta HTA's µs (rounded as HTA rounds, in its
-- doubles: hta_start_ns, hta_end_ns), each ProfilerStep's CPU range, streams keyed
-- by stream alone, HTA's launch calls only, CPU events without a stream
-- arg, one GPU operation per launch call (the one HTA links).  Without
-- it: every launch call whose GPU work carries its correlation (CUDA/HIP
-- graph launches included), streams keyed by (device, stream), the
-- report's steps.
-- Run only when a selected section requires a table named here, or the
-- findings run (lib/findings/replay.sql; report_sql.c, lib_wanted):
-- On demand: report_cp_path report_cp_path_sum findings

-- Spans analysed, in a database's report and in a dataset's: trace_id,
-- step (-1: the whole trace), [ts, end_ts] (ns), rounded (HTA's µs).
CREATE TEMP TABLE report_cp_span_all(trace_id INTEGER, step INTEGER, ts INTEGER, end_ts INTEGER,
  rounded INTEGER, PRIMARY KEY (trace_id, step)) WITHOUT ROWID;
INSERT INTO report_cp_span_all
SELECT s.trace_id, s.step, s.ts, s.ts + s.dur, 0 FROM report_step s
WHERE NOT coalesce(:scope_hta, 0)
UNION ALL
SELECT s.trace_id, s.step,
  hta_start_ns(s.ts, h.rounded), hta_end_ns(s.ts, s.dur, h.rounded), h.rounded
FROM report_step_all s JOIN report_hta_trace h USING (trace_id)
WHERE coalesce(:scope_hta, 0)
UNION ALL
SELECT w.trace_id, -1, w.ts, w.end_ts, coalesce(h.rounded, 0)
FROM report_window w LEFT JOIN report_hta_trace h USING (trace_id)
WHERE w.whole AND NOT (coalesce(:scope_hta, 0)
                       AND EXISTS (SELECT 1 FROM report_step_all a WHERE a.trace_id = w.trace_id));

-- The spans whose graph is built here: none in a dataset's report, whose
-- summaries leave most CPU operators out (lib/90_unavailable.sql says so;
-- lib/63 reads the replays each rank's export made).
CREATE TEMP TABLE report_cp_span(trace_id INTEGER, step INTEGER, ts INTEGER, end_ts INTEGER,
  rounded INTEGER, PRIMARY KEY (trace_id, step)) WITHOUT ROWID;
INSERT INTO report_cp_span
SELECT * FROM report_cp_span_all WHERE NOT (SELECT summaries FROM report_built_from);

-- Launch calls counted (HTA: get_runtime_launch_events_mask), by name id.
CREATE TEMP TABLE report_cp_launch_name(name_id INTEGER PRIMARY KEY);
-- (nothing without a span: a dataset's report reads no GPU link for it)
INSERT INTO report_cp_launch_name
SELECT id FROM _string
WHERE EXISTS (SELECT 1 FROM report_cp_span)
  AND (value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel', 'cuLaunchKernelEx',
                 'cudaMemcpyAsync', 'cudaMemsetAsync', 'hipLaunchKernel', 'hipExtModuleLaunchKernel',
                 'hipMemcpyAsync', 'hipMemsetAsync', 'hipMemcpyWithStream')
       OR (NOT coalesce(:scope_hta, 0)
           AND id IN (SELECT r.name_id FROM _gpu_link l JOIN _slice r ON r.id = l.launch_id)));

-- Every GPU operation with its launch call (the whole trace: HTA counts the
-- queue over it; NULL queue lengths for a launch call not counted): op (_gpu.id), launch (_slice.id), skey (the stream's
-- key), step (_gpu_link.step: the step its launch starts in),
-- start/end/launch times as the scope takes them, q_launch / q_start
-- the stream's queue length just after its launch / its start (a launch
-- counted before a start at equal times), tid of the launch call, linked
-- (1 for the operation HTA links its launch call to: of the operations
-- sharing a correlation the last in the file, as pandas' merge assigns in
-- hta/common/trace.py transform_correlation_to_index; so of a graph
-- launch's kernels HTA keeps one).
CREATE TEMP TABLE report_cp_op(op INTEGER PRIMARY KEY, trace_id INTEGER, step INTEGER, launch INTEGER,
  skey INTEGER, stream INTEGER, ts INTEGER, end_ts INTEGER, launch_ts INTEGER, launch_dur INTEGER,
  pid, tid, q_launch INTEGER, q_start INTEGER, linked INTEGER);
WITH o AS (
  SELECT g.id AS op, g.trace_id, l.step, l.launch_id AS launch,
    CASE WHEN coalesce(:scope_hta, 0) THEN g.stream ELSE g.device * 4294967296 + g.stream END AS skey,
    g.stream, g.ts, g.dur, r.ts AS lts, r.dur AS ldur, r.pid, r.tid, r.name_id,
    coalesce((SELECT rounded FROM report_hta_trace h WHERE h.trace_id = g.trace_id), 0) AS rd
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _slice r ON r.id = l.launch_id
  WHERE g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.trace_id IN (SELECT trace_id FROM report_cp_span)
    AND EXISTS (SELECT 1 FROM report_cp_span)  -- (no scan of _gpu without a span)
    AND g.ts IS NOT NULL AND g.dur IS NOT NULL AND r.ts IS NOT NULL
), t AS (
  SELECT op, trace_id, step, launch, skey, stream, pid, tid, name_id,
    op = max(op) OVER (PARTITION BY launch) AS linked,
    hta_start_ns(ts, rd) AS ts, hta_end_ns(ts, dur, rd) AS end_ts, hta_start_ns(lts, rd) AS lts,
    -- (HTA's duration: of the rounded times, so 0 or -1 µs for some)
    hta_end_ns(lts, ldur, rd) - hta_start_ns(lts, rd) AS ldur
  FROM o
), ev AS (
  SELECT op, trace_id, skey, lts AS t, 1 AS d FROM t
  WHERE name_id IN (SELECT name_id FROM report_cp_launch_name)
  UNION ALL SELECT op, trace_id, skey, ts, -1 FROM t
  WHERE name_id IN (SELECT name_id FROM report_cp_launch_name)
), q AS (
  SELECT op, d, sum(d) OVER (PARTITION BY trace_id, skey ORDER BY t, d DESC, op
                             ROWS UNBOUNDED PRECEDING) AS len
  FROM ev
)
INSERT INTO report_cp_op
SELECT t.op, t.trace_id, t.step, t.launch, t.skey, t.stream, t.ts, t.end_ts, t.lts, t.ldur, t.pid, t.tid,
  q.ql, q.qs, t.linked
FROM t LEFT JOIN (SELECT op, max(len) FILTER (WHERE d = 1) AS ql, max(len) FILTER (WHERE d = -1) AS qs
             FROM q GROUP BY op) q USING (op);

-- A GPU operation whose start comes over gap_ns after the later of its
-- launch and its stream's previous end has a start nothing but a recorded
-- wait explains (lib/61 infers bare waits only for such starts; lib/63
-- calls a span with one unexplained open).
CREATE TEMP TABLE report_cp_open(gap_ns INTEGER);
INSERT INTO report_cp_open VALUES (200000);

-- The backward pass's thread merged into the forward pass's, as HTA does
-- (CriticalPathAnalysis._construct_graph_from_call_stacks): in a span where
-- exactly one thread has CPU operators or annotations whose name holds
-- 'forward' and exactly one other 'autograd', the latter's events join the
-- former's call stack, so the path can run from the forward pass through
-- the backward pass (the forward thread waits in backward() meanwhile);
-- without --scope hta Python frames may name the forward pass (frames).
-- trace_id, step, bwd_tid (the autograd thread), main_tid.
CREATE TEMP TABLE report_cp_merge(trace_id INTEGER, step INTEGER, bwd_tid, main_tid,
  PRIMARY KEY (trace_id, step)) WITHOUT ROWID;
WITH nm AS (
  SELECT id, instr(value, 'forward') > 0 AS fwd, instr(value, 'autograd') > 0 AS bwd FROM _string
  WHERE (instr(value, 'forward') > 0 OR instr(value, 'autograd') > 0)
    AND EXISTS (SELECT 1 FROM report_cp_span)
), t AS (
  SELECT p.trace_id, p.step, s.tid, nm.fwd, nm.bwd, c.py
  FROM _slice s JOIN nm ON nm.id = s.name_id JOIN _slice_tree st ON st.id = s.id
  JOIN report_cp_span p ON p.trace_id = s.trace_id AND p.step IN (-1, st.step)
  -- (without --scope hta also PyTorch 1.8-1.9's 'Operator' category)
  JOIN (SELECT id, value = 'python_function' AS py FROM _string
        WHERE value IN ('cpu_op', 'user_annotation')
           OR (value IN ('python_function', 'Operator') AND NOT coalesce(:scope_hta, 0))) c
    ON c.id = s.raw_cat_id
  -- (the name first: few slices name the passes, and a test on s alone
  -- runs before the joins)
  WHERE s.name_id IN (SELECT id FROM nm) AND s.dur > 0
    AND s.id NOT IN (SELECT id FROM report_hta_slice_stream WHERE stream <> -1)
    AND hta_start_ns(s.ts, p.rounded) BETWEEN p.ts AND p.end_ts
    AND hta_end_ns(s.ts, s.dur, p.rounded) > hta_start_ns(s.ts, p.rounded)
), thread AS (  -- per thread: operators naming the forward / backward pass, frames the forward
  SELECT trace_id, step, tid, max(fwd AND NOT py) AS fo, max(bwd AND NOT py) AS bo,
    max(fwd AND py) AS fp
  FROM t GROUP BY trace_id, step, tid
), step_thread AS (  -- the thread of each step span's ProfilerStep#N; of
  -- a whole trace's, the one thread with CPU operators but the one whose
  -- operators name 'autograd'
  SELECT p.trace_id, p.step, s.tid FROM report_cp_span p
  JOIN report_step_all r ON r.trace_id = p.trace_id AND r.step = p.step
  JOIN _slice s ON s.id = r.event_id
  UNION ALL
  SELECT b.trace_id, -1, min(s.tid) FROM (
    SELECT trace_id, min(tid) AS tid FROM thread WHERE step = -1 AND bo
    GROUP BY trace_id HAVING count(*) = 1) b
  JOIN _slice s ON s.trace_id = b.trace_id AND s.tid IS NOT b.tid
  WHERE NOT coalesce(:scope_hta, 0) AND s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
  GROUP BY b.trace_id HAVING count(DISTINCT s.tid) = 1
), span AS (
  SELECT h.trace_id, h.step, min(h.tid) FILTER (WHERE h.bo) AS b, count(*) FILTER (WHERE h.bo) AS nb,
    min(h.tid) FILTER (WHERE h.fo) AS fo, count(*) FILTER (WHERE h.fo) AS nfo,
    min(h.tid) FILTER (WHERE h.bo AND h.tid IS NOT st.tid) AS bs,
    count(*) FILTER (WHERE h.bo AND h.tid IS NOT st.tid) AS nbs, st.tid AS st
  FROM thread h LEFT JOIN step_thread st USING (trace_id, step) GROUP BY h.trace_id, h.step
), frames AS (  -- without --scope hta, when no operator names the forward pass: Python
  -- frames on one thread but the backward pass's do (with_stack; the frames
  -- never name the backward pass: the main thread's run in torch/autograd/
  -- to call backward(), and the autograd thread's may run forward() again
  -- for activation checkpointing)
  SELECT h.trace_id, h.step, min(h.tid) AS f, count(*) AS n
  FROM thread h JOIN span x USING (trace_id, step)
  WHERE h.fp AND h.tid IS NOT x.b GROUP BY h.trace_id, h.step
)
INSERT INTO report_cp_merge
SELECT x.trace_id, x.step, x.b, CASE WHEN x.nfo = 1 THEN x.fo ELSE p.f END
FROM span x LEFT JOIN frames p USING (trace_id, step)
WHERE x.nb = 1 AND (x.nfo = 1 OR (x.nfo = 0 AND p.n = 1))
  AND x.b IS NOT CASE WHEN x.nfo = 1 THEN x.fo ELSE p.f END
  -- (HTA tests the two thread ids for truth: a thread id 0 merges nothing)
  AND NOT (coalesce(:scope_hta, 0) AND (x.b = 0 OR x.fo = 0))
UNION ALL
-- without --scope hta, where neither names the forward pass: the step's
-- thread (it calls backward() and waits in it; PyTorch's plain loop, no
-- module names recorded) and the one other thread with operators naming
-- 'autograd' (the calling thread may run some of the engine's CPU work,
-- e.g. AccumulateGrad for a CPU leaf: HTA's rule finds two threads there)
SELECT x.trace_id, x.step, x.bs, x.st
FROM span x LEFT JOIN frames p USING (trace_id, step)
WHERE NOT coalesce(:scope_hta, 0) AND x.st IS NOT NULL AND x.nbs = 1
  AND NOT (x.nb = 1 AND (x.nfo = 1 OR (x.nfo = 0 AND p.n IS 1))
           AND x.b IS NOT CASE WHEN x.nfo = 1 THEN x.fo ELSE p.f END)
  AND NOT (x.nfo = 1 AND x.fo IS NOT x.st);

-- The events with nodes in each span: ev (_slice.id or _gpu.id), gpu (1
-- for GPU work), ts/end_ts (the scope's times), pid/tid (CPU thread),
-- skey (GPU stream key), lock (takes the CUDA runtime lock), blocking
-- (HTA's blocking calls: their end weighs 0), parent (_slice_tree parent),
-- kind (its kind on the path and in the replay's what-ifs: 'cpu_op',
-- 'runtime' or 'gpu:' and its kernel category; lib/61's walk names the
-- same), whatif (the second what-if that scales it, lib/63: 'fill' for a
-- fill kernel, report_gpu_name.is_fill; 'launch' for a launch call,
-- report_cp_launch_name; else NULL), name_id (its name: read here once,
-- not by each later statement's join).
CREATE TEMP TABLE report_cp_ev(trace_id INTEGER, step INTEGER, ev INTEGER, gpu INTEGER,
  ts INTEGER, end_ts INTEGER, pid, tid, skey INTEGER, lock INTEGER, blocking INTEGER,
  parent INTEGER, kind TEXT, whatif TEXT, name_id INTEGER,
  PRIMARY KEY (trace_id, step, ev)) WITHOUT ROWID;
WITH nm AS MATERIALIZED (  -- (once per name, not per event)
  SELECT id, value IN ('cudaLaunchKernel', 'cudaMemcpyAsync', 'cudaHostAlloc') AS lock,
    value IN ('cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize',
              'cudaMemcpy', 'cudaMemcpyAsync')
    -- (without --scope hta a poll waits for nothing: GPU work that ends
    -- during one, such as NCCL's watchdog's every ms, ended by chance)
    OR (value = 'cudaEventQuery' AND coalesce(:scope_hta, 0))
    OR (NOT coalesce(:scope_hta, 0) AND value NOT GLOB 'aten::*'
        AND value IN (SELECT name FROM report_sync_name)) AS blocking,
    id IN (SELECT name_id FROM report_cp_launch_name) AS launch
  FROM _string
), c AS (
  SELECT p.trace_id, p.step, s.id AS ev,
    hta_start_ns(s.ts, p.rounded) AS ts, hta_end_ns(s.ts, s.dur, p.rounded) AS end_ts,
    s.pid, CASE WHEN s.tid IS m.bwd_tid THEN m.main_tid ELSE s.tid END AS tid,
    s.name_id, s.kind, p.ts AS pts, p.end_ts AS pend, st.parent_id
  FROM _slice s JOIN _slice_tree st ON st.id = s.id
  -- a step's slices by the step their start lies in (one pass, no scan per step)
  JOIN report_cp_span p ON p.trace_id = s.trace_id AND p.step IN (-1, st.step)
  LEFT JOIN report_cp_merge m ON m.trace_id = p.trace_id AND m.step = p.step
  LEFT JOIN report_hta_trace h ON h.trace_id = p.trace_id
  WHERE s.kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'runtime')) AND s.dur > 0
    AND s.id NOT IN (SELECT id FROM report_hta_slice_stream WHERE stream <> -1)
    AND EXISTS (SELECT 1 FROM report_cp_span)  -- (no scan of _slice without a span)
    -- (--scope hta: HTA's trace keeps no CPU event from the last ProfilerStep#N's start on)
    AND (h.filtered IS NOT 1 OR hta_start_ns(s.ts, p.rounded) < h.last_start * 1000)
)
INSERT INTO report_cp_ev
SELECT c.trace_id, c.step, c.ev, 0, c.ts, c.end_ts, c.pid, c.tid, NULL, nm.lock, nm.blocking,
  c.parent_id,
  CASE WHEN c.kind = (SELECT kind FROM _kind WHERE name = 'runtime') THEN 'runtime' ELSE 'cpu_op' END,
  iif(nm.launch, 'launch', NULL), c.name_id
FROM c JOIN nm ON nm.id = c.name_id
-- (positive as the scope times it: HTA drops events its rounding leaves at 0 or -1 µs)
WHERE c.ts BETWEEN c.pts AND c.pend AND c.end_ts > c.ts
UNION ALL
SELECT p.trace_id, p.step, o.op, 1, o.ts, o.end_ts, NULL, NULL, o.skey, 0, 0, NULL,
  'gpu:' || coalesce(n.category, 'Other'),
  iif(n.is_fill AND g.kind = (SELECT kind FROM _kind WHERE name = 'kernel'), 'fill', NULL), g.name_id
FROM report_cp_op o JOIN report_cp_span p ON p.trace_id = o.trace_id AND p.step IN (-1, o.step)
JOIN _gpu g ON g.id = o.op LEFT JOIN report_gpu_name n ON n.name_id = g.name_id
LEFT JOIN report_hta_trace h ON h.trace_id = p.trace_id
WHERE o.launch_ts BETWEEN p.ts AND p.end_ts AND o.launch_dur > 0
  AND (o.linked OR NOT coalesce(:scope_hta, 0))
  AND (h.filtered IS NOT 1 OR o.launch_ts < h.last_start * 1000);
CREATE INDEX temp.report_cp_ev_end ON report_cp_ev(trace_id, step, gpu, end_ts);

-- Without --scope hta a blocking call's time counts as the host's unless
-- GPU work of the span ended while it ran (then the path takes that work
-- and the sync edge instead): HTA zeroes it even when nothing was waited for.
UPDATE report_cp_ev SET blocking = 0
WHERE NOT coalesce(:scope_hta, 0) AND blocking AND NOT gpu
  AND NOT EXISTS (SELECT 1 FROM report_cp_ev g
                  WHERE g.trace_id = report_cp_ev.trace_id AND g.step = report_cp_ev.step AND g.gpu = 1
                    AND g.end_ts BETWEEN report_cp_ev.ts AND report_cp_ev.end_ts);
