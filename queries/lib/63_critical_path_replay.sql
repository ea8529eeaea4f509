-- What-ifs on the critical path's graph, replayed (profdb_replay_each,
-- sqlext/critical_path.c; docs/definitions.md, "Replay"): per analysed
-- span of a rank (lib/60_critical_path.sql) and per kind of work in it,
-- how much sooner the span ends when that work takes a share of its time
-- and the rest of the trace follows its recorded dependencies.  Kinds as
-- the critical_path section names them: gpu:CATEGORY (the category's
-- GPU operations' runs), runtime (runtime calls' own time), cpu_op (other
-- CPU events' own time); a GPU category also with its time removed (keep
-- 0), the far end of what any action on it can gain, and so the fill
-- kernels ('fill', of any category) and the launch calls ('launch').
-- A span is open when some of its GPU work started later than anything
-- recorded explains, or its CPU work runs on two threads or more
-- (report_cp_replay_span): the replay holds such work at its recorded
-- time, and cannot tell whether an action would release it sooner, so the
-- findings take no bound from an open span.
-- In a dataset's report (no graph: lib/60) the rows are those each rank's
-- export computed on its database, this file run on it whole with every
-- step analysed (export/export_replay.c), kept in its summary's
-- trace_metadata (position -2, key 'profdb.cp_replay': a JSON object,
-- "spans": [[step, open_ops, threads], ...], "rows": [[step, kind, keep,
-- sooner_ns], ...]), for the spans analysed here.
-- Builds: report_cp_replay, report_cp_replay_span, report_cp_idle_thread
-- Reads: report_cold_launch, report_cp_span, report_cp_span_all, report_cp_ev,
--   report_cp_gpu_edge, report_cp_open, report_cp_k,
--   report_built_from, report_gpu_name, trace_metadata
-- Run only when a selected section requires a table named here, or the
-- findings run (lib/findings/replay.sql; report_sql.c, lib_wanted):
-- On demand: report_cp_path report_cp_path_sum findings

-- The what-ifs: id (the scenario's name in profdb_replay_each), kind,
-- keep (the share of its time the kind keeps: 0.5 for each kind of the
-- critical_path section, 0 too for GPU categories; fill and launch 0).
-- Each scales the own 'operator' edges (a kernel's run, an operator's time
-- between its children, a call's return after a wait) of the events of its
-- kind: an event's kind as the critical_path section names it
-- (report_cp_ev.kind: gpu:CATEGORY for GPU work, runtime for a runtime
-- call, cpu_op for other CPU events), 'fill' the fill kernels (of any
-- category) and 'launch' the launch calls (report_cp_ev.whatif); the
-- replay's 'scale_kind' rows below.
CREATE TEMP TABLE report_cp_whatif(id INTEGER PRIMARY KEY, kind TEXT, keep REAL);
INSERT INTO report_cp_whatif(kind, keep)
SELECT k.kind, f.keep
FROM (SELECT kind FROM report_cp_ev UNION SELECT whatif FROM report_cp_ev WHERE whatif IS NOT NULL) k,
  (SELECT 0.5 AS keep UNION ALL SELECT 0) f
WHERE (f.keep = 0.5 AND k.kind NOT IN ('fill', 'launch')) OR k.kind GLOB 'gpu:*'
  OR (f.keep = 0 AND k.kind IN ('fill', 'launch'))
ORDER BY k.kind, f.keep DESC;
CREATE INDEX temp.report_cp_whatif_kind ON report_cp_whatif(kind);

-- Per span, the CPU threads the replay leaves out: pid, tid of a thread
-- whose events are all runtime calls that take no lock, launch nothing and
-- have no GPU edge (a watchdog polling cudaEventQuery, NCCL's and c10d's):
-- no event of the span follows one of theirs, and its last call would
-- otherwise hold the span's end at its recorded time.
CREATE TEMP TABLE report_cp_idle_thread(trace_id INTEGER, step INTEGER, pid, tid,
  PRIMARY KEY (trace_id, step, pid, tid)) WITHOUT ROWID;
WITH runtime_only AS (
  SELECT e.trace_id, e.step, e.pid, e.tid FROM report_cp_ev e
  WHERE NOT e.gpu GROUP BY e.trace_id, e.step, e.pid, e.tid
  HAVING max(e.lock OR e.kind IS NOT 'runtime') = 0
), linked AS (  -- the events a launch or GPU edge names (ids are unique across traces)
  SELECT launch AS ev FROM report_cp_k
  UNION SELECT src FROM report_cp_gpu_edge UNION SELECT dst FROM report_cp_gpu_edge
)
INSERT INTO report_cp_idle_thread
SELECT c.trace_id, c.step, c.pid, c.tid FROM runtime_only c
WHERE NOT EXISTS (
  SELECT 1 FROM report_cp_ev e
  WHERE e.trace_id = c.trace_id AND e.step = c.step AND e.pid IS c.pid AND e.tid IS c.tid
    AND NOT e.gpu AND e.ev IN linked);

-- Per span: trace_id, step, open_ops (its GPU operations whose start
-- nothing recorded explains: not queued behind their stream's previous
-- operation (kernel_kernel) or behind work launched before the span, not
-- at a recorded wait, and over 200 us (report_cp_open) after the later of
-- their launch and their stream's previous end: held by another stream's
-- event, a peer rank or the device's other work, which the graph does not
-- hold),
-- threads (the CPU threads of its events, after the backward pass's merge,
-- less those left out above: with two or more, one thread's waits for
-- another, such as the forward thread's for the autograd thread, are not
-- in the graph).
CREATE TEMP TABLE report_cp_replay_span(trace_id INTEGER, step INTEGER, open_ops INTEGER,
  threads INTEGER, PRIMARY KEY (trace_id, step)) WITHOUT ROWID;
INSERT INTO report_cp_replay_span
SELECT p.trace_id, p.step,
  (SELECT count(*) FROM report_cp_k k
   WHERE k.trace_id = p.trace_id AND k.step = p.step
     AND NOT (k.inedge IS 'kernel_kernel' OR k.wsrc IS NOT NULL
              OR (k.prev IS NULL AND k.q_launch > 1)
              OR k.ts - max(k.launch_ts, coalesce(k.prev_end, k.launch_ts))
                 <= (SELECT gap_ns FROM report_cp_open)
              -- (held by a cold-start launch call: the driver loading a
              -- module holds the GPU's queue, and the work starts as the
              -- call returns; one-time, so held at its recorded start the
              -- replay is right; issue 44's eighth audit, a compiled
              -- ResNet-18 whose one such kernel kept its span open; only
              -- the work its own process queued on the same GPU)
              OR EXISTS (SELECT 1 FROM report_cold_launch c
                         WHERE c.trace_id = k.trace_id AND c.ts < k.ts
                           AND c.pid IS (SELECT o.pid FROM report_cp_op o WHERE o.op = k.op)
                           AND c.device IS (SELECT g.device FROM _gpu g WHERE g.id = k.op)
                           AND c.ts + c.dur > max(k.launch_ts, coalesce(k.prev_end, k.launch_ts))
                           AND c.ts + c.dur <= k.ts
                           AND k.ts - (c.ts + c.dur) <= (SELECT gap_ns FROM report_cp_open)))),
  (SELECT count(*) FROM (SELECT DISTINCT e.pid, e.tid FROM report_cp_ev e
                         WHERE e.trace_id = p.trace_id AND e.step = p.step AND NOT e.gpu
                         EXCEPT SELECT pid, tid FROM report_cp_idle_thread i
                         WHERE i.trace_id = p.trace_id AND i.step = p.step))
FROM report_cp_span p;

-- Per span and what-if: trace_id, step (-1: the whole trace), kind, keep,
-- sooner_ns (how much sooner the span's last node comes than recorded;
-- negative: later; none for a span past the graph's cap).  The replay
-- also gets an edge from each launch call to its GPU work (0 for work
-- queued behind its stream's previous operation or held by a wait on
-- another stream: it may start sooner, never before its launch; the
-- recorded delay for work after a gap the graph does not explain: it
-- moves with its launch alone), and one from each operation's end to the
-- next on its stream where the graph has none (a stream runs in order,
-- also when a wait or a long gap set the next one's start).
CREATE TEMP TABLE report_cp_replay(trace_id INTEGER, step INTEGER, kind TEXT, keep REAL,
  sooner_ns INTEGER, PRIMARY KEY (trace_id, step, kind, keep)) WITHOUT ROWID;
INSERT INTO report_cp_replay
SELECT p.trace_id, p.step, w.kind, w.keep, j.value
FROM report_cp_span p, json_each((
  SELECT profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l) FROM (
    -- (the threads left out and the what-ifs by kind go to C as a few rows
    -- a span, not as a test and rows per event)
    SELECT 'idle' AS r, pid AS a, tid AS b, NULL AS c, NULL AS d, NULL AS e, NULL AS f,
      NULL AS g, NULL AS h, NULL AS i, NULL AS j, NULL AS k, NULL AS l
    FROM report_cp_idle_thread i WHERE i.trace_id = p.trace_id AND i.step = p.step
    UNION ALL
    SELECT 'ev', ev, ts, end_ts, gpu, pid, tid, lock, blocking, parent, NULL, kind, whatif
    FROM report_cp_ev e WHERE e.trace_id = p.trace_id AND e.step = p.step
    UNION ALL
    SELECT 'edge', t, o, sub, src, src_end, dst, dst_end, w, type, ev, NULL, NULL
    FROM report_cp_gpu_edge g WHERE g.trace_id = p.trace_id AND g.step = p.step
    UNION ALL
    SELECT 'edge', ts, op, 3, launch, 0, op, 0,
      iif(inedge IS NULL AND wsrc IS NULL, ts - launch_ts, 0), 'launch', NULL, NULL, NULL
    FROM report_cp_k k
    WHERE k.trace_id = p.trace_id AND k.step = p.step AND k.inedge IS NOT 'launch'
    UNION ALL
    SELECT 'edge', ts, op, 4, prev, 1, op, 0, 0, 'kernel_kernel', NULL, NULL, NULL
    FROM report_cp_k k
    WHERE k.trace_id = p.trace_id AND k.step = p.step AND k.inedge IS NOT 'kernel_kernel'
      AND k.prev IS NOT NULL
    UNION ALL  -- the what-ifs of each event's kind, of fills and of launch calls
    SELECT 'scale_kind', w.kind, w.keep, 'operator', w.id, NULL, NULL, NULL, NULL, NULL, NULL,
      NULL, NULL
    FROM report_cp_whatif w))) j
JOIN report_cp_whatif w ON w.id = CAST(j.key AS INTEGER);

-- A dataset's: the spans and rows its summaries carry (well-formed ones
-- only: a dataset is untrusted input)
INSERT OR IGNORE INTO report_cp_replay_span
SELECT p.trace_id, p.step, j.value ->> 1, j.value ->> 2
FROM report_cp_span_all p
JOIN trace_metadata m ON m.trace_id = p.trace_id AND m.position = -2 AND m.key = 'profdb.cp_replay'
JOIN json_each(iif(json_valid(m.value), m.value, '{}'), '$.spans') j
WHERE (SELECT summaries FROM report_built_from) AND json_type(j.value) = 'array'
  AND json_type(j.value, '$[0]') = 'integer' AND j.value ->> 0 = p.step
  AND json_type(j.value, '$[1]') = 'integer' AND json_type(j.value, '$[2]') = 'integer';
INSERT OR IGNORE INTO report_cp_replay
SELECT p.trace_id, p.step, j.value ->> 1, j.value ->> 2, j.value ->> 3
FROM report_cp_span_all p
JOIN trace_metadata m ON m.trace_id = p.trace_id AND m.position = -2 AND m.key = 'profdb.cp_replay'
JOIN json_each(iif(json_valid(m.value), m.value, '{}'), '$.rows') j
WHERE (SELECT summaries FROM report_built_from) AND json_type(j.value) = 'array'
  AND json_type(j.value, '$[0]') = 'integer' AND j.value ->> 0 = p.step
  AND json_type(j.value, '$[1]') = 'text'
  AND json_type(j.value, '$[2]') IN ('integer', 'real')
  AND json_type(j.value, '$[3]') = 'integer';
