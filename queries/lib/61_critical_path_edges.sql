-- The critical path's GPU edges (lib/60_critical_path.sql
-- builds the spans and the events, lib/61_critical_path_walk.sql walks the
-- graph, lib/63 replays it; docs/definitions.md, "Critical path").
-- The nodes, the runtime-lock and the call-stack edges (HTA's edges 1 and
-- 2) are built by profdb_critical_path (sqlext/critical_path.c) from
-- report_cp_ev; the GPU operations', waits' and host syncs' edges (3)
-- here, as report_cp_gpu_edge: trace_id, step, t/o/sub (their order, then
-- the source node), src/src_end and dst/dst_end (an event and 1 for its
-- end, 0 for its start), w (ns), type (HTA's CPEdgeType: 'operator',
-- 'launch', 'kernel_kernel', 'sync'), ev (the event the time is attributed
-- to: the launched operation for a launch edge, the waiting call or
-- operation for a sync).
-- Run only when a selected section requires a table named here, or the
-- findings run (lib/findings/replay.sql; report_sql.c, lib_wanted):
-- On demand: report_cp_path report_cp_path_sum findings
CREATE TEMP TABLE report_cp_gpu_edge(trace_id INTEGER, step INTEGER, t INTEGER, o INTEGER,
  sub INTEGER, src INTEGER, src_end INTEGER, dst INTEGER, dst_end INTEGER, w INTEGER, type TEXT,
  ev INTEGER);

-- GPU synchronization (HTA: cuda_sync events, PyTorch's
-- enable_cuda_sync_events): what each waited for.  cudaStreamWaitEvent:
-- the operation launched last on the event's stream before its
-- cudaEventRecord (src), waited for by the next operation launched on the
-- waiting stream from the same thread (dst).  Without --scope hta also
-- cudaEventRecordWithFlags (PyTorch 2.11 records its events so), and when
-- the trace does not say which record a wait is for (CUDA 13's CUPTI:
-- wait_on_cuda_event_record_corr_id and wait_on_stream -1, as for every
-- wait_stream()), src is inferred: of the operations on the device's
-- other streams launched before the wait call, the one that ended last
-- at or before dst started (the recorded one is among them and ended by
-- then; a wrong pick only holds dst behind work that ended before it).
CREATE INDEX temp.report_cp_op_stream ON report_cp_op(trace_id, stream, launch_ts);
CREATE TEMP TABLE report_cp_wait(trace_id INTEGER, src INTEGER, dst INTEGER, ts INTEGER);
CREATE TEMP TABLE report_cp_sync_ev AS
SELECT g.id, g.trace_id, n.value AS name, g.ts + g.dur AS end_ts, g.device, g.stream,
  CASE WHEN coalesce(:scope_hta, 0) THEN g.stream ELSE g.device * 4294967296 + g.stream END AS skey,
  l.launch_id AS call,
  json_extract(g.args, '$.wait_on_stream') AS ev_stream,
  (SELECT r.ts FROM _slice r
   WHERE r.trace_id = g.trace_id AND r.correlation = json_extract(g.args, '$.wait_on_cuda_event_record_corr_id')
     AND r.name_id IN (SELECT id FROM _string WHERE value = 'cudaEventRecord'
                       OR (value = 'cudaEventRecordWithFlags' AND NOT coalesce(:scope_hta, 0))))
    AS record_ts
FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _string n ON n.id = g.name_id
WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'gpu_sync') AND l.launch_id IS NOT NULL
  AND g.trace_id IN (SELECT trace_id FROM report_cp_span);
-- the operation an event recorded: launched last on its stream before the record
CREATE TEMP TABLE report_cp_recorded AS
SELECT s.id, (SELECT o.op FROM report_cp_op o JOIN _gpu g ON g.id = o.op
              WHERE o.trace_id = s.trace_id AND g.device = s.device AND o.stream = s.ev_stream
                AND o.launch_ts <= s.record_ts ORDER BY o.launch_ts DESC, o.launch DESC LIMIT 1) AS op
FROM report_cp_sync_ev s WHERE s.record_ts IS NOT NULL AND s.ev_stream >= 0;
-- each Stream Wait Event's call time and dst
CREATE TEMP TABLE report_cp_wait_dst AS
SELECT s.id, w.ts AS call_ts,
  (SELECT o.op FROM report_cp_op o
   WHERE o.trace_id = s.trace_id AND o.pid IS w.pid AND o.tid IS w.tid AND o.stream = s.stream
     AND o.launch_ts >= w.ts ORDER BY o.launch_ts, o.launch LIMIT 1) AS dst
FROM report_cp_sync_ev s JOIN _slice w ON w.id = s.call
WHERE s.name = 'Stream Wait Event';
INSERT INTO report_cp_wait
SELECT s.trace_id, r.op, d.dst, s.end_ts
FROM report_cp_sync_ev s JOIN report_cp_recorded r USING (id) JOIN report_cp_wait_dst d USING (id)
WHERE r.op IS NOT NULL;
-- The waits whose record the trace does not name (above), and, without
-- --scope hta, the cudaStreamWaitEvent calls no sync event records
-- (PyTorch's default: enable_cuda_sync_events off; bare = 1): their dst is
-- the next operation the thread launched, on whatever stream, and a wait
-- is inferred only where that operation's start is open (report_cp_open,
-- lib/60) and within 50 us of the end of the source picked as above:
-- without the event, the coincidence is the evidence.  Streams by skey
-- (without --scope hta: device * 2^32 + stream, so skey / 2^32 is the
-- device); ev_skey: the recorded stream's, when the trace names it.
CREATE INDEX temp.report_cp_op_thread ON report_cp_op(trace_id, tid, launch_ts);
CREATE TEMP TABLE report_cp_unnamed_wait AS
SELECT s.trace_id, s.skey, iif(s.ev_stream >= 0, s.device * 4294967296 + s.ev_stream, NULL)
    AS ev_skey, s.end_ts, d.call_ts, d.dst, 0 AS bare
FROM report_cp_sync_ev s JOIN report_cp_wait_dst d USING (id)
WHERE s.record_ts IS NULL AND d.dst IS NOT NULL AND NOT coalesce(:scope_hta, 0)
  AND json_extract((SELECT args FROM _gpu WHERE id = s.id), '$.wait_on_cuda_event_record_corr_id') = -1
UNION ALL
SELECT x.trace_id, o.skey, NULL, o.ts, x.call_ts, x.dst, 1
FROM (SELECT w.trace_id, w.ts AS call_ts,
        (SELECT o.op FROM report_cp_op o
         WHERE o.trace_id = w.trace_id AND o.pid IS w.pid AND o.tid IS w.tid AND o.launch_ts >= w.ts
         ORDER BY o.launch_ts, o.launch LIMIT 1) AS dst
      FROM report_cp_ev e JOIN _slice w ON w.id = e.ev
      WHERE NOT coalesce(:scope_hta, 0) AND NOT e.gpu
        AND e.name_id IN (SELECT id FROM _string
                          WHERE value IN ('cudaStreamWaitEvent', 'hipStreamWaitEvent'))
        AND NOT EXISTS (SELECT 1 FROM report_cp_sync_ev s WHERE s.call = w.id)) x
JOIN report_cp_op o ON o.op = x.dst;
-- the candidates' ends by stream, for the traces with such waits (each
-- wait seeks back from its dst's start on each other stream of its device,
-- not through every operation)
CREATE TEMP TABLE report_cp_op_end AS
SELECT trace_id, skey, end_ts, op, launch_ts FROM report_cp_op
WHERE trace_id IN (SELECT trace_id FROM report_cp_unnamed_wait);
CREATE INDEX temp.report_cp_op_end_stream ON report_cp_op_end(trace_id, skey, end_ts);
CREATE TEMP TABLE report_cp_op_stream_key AS
SELECT DISTINCT trace_id, skey FROM report_cp_op_end;
-- each wait reads its own trace's streams (a scan of all grew with the square of the ranks)
CREATE INDEX temp.report_cp_op_stream_key_by_trace ON report_cp_op_stream_key(trace_id, skey);
INSERT INTO report_cp_wait
SELECT y.trace_id, y.src, y.dst, y.end_ts
FROM (SELECT x.*, o.ts AS dst_ts, o.launch_ts AS dst_launch,
        (SELECT c.op FROM report_cp_op c WHERE c.op IN (
           SELECT (SELECT e.op FROM report_cp_op_end e
                   WHERE e.trace_id = x.trace_id AND e.skey = k.skey
                     AND e.end_ts <= o.ts AND e.launch_ts < x.call_ts
                   ORDER BY e.end_ts DESC, e.op DESC LIMIT 1)
           FROM report_cp_op_stream_key k
           WHERE k.trace_id = x.trace_id AND k.skey <> x.skey
             AND k.skey / 4294967296 = x.skey / 4294967296
             AND (x.ev_skey IS NULL OR k.skey = x.ev_skey))
         ORDER BY c.end_ts DESC, c.op DESC LIMIT 1) AS src,
        (SELECT e.end_ts FROM report_cp_op_end e
         WHERE x.bare AND e.trace_id = x.trace_id AND e.skey = x.skey
           AND e.end_ts <= o.ts AND e.op <> x.dst
         ORDER BY e.end_ts DESC LIMIT 1) AS prev_end
      FROM report_cp_unnamed_wait x JOIN report_cp_op o ON o.op = x.dst) y
WHERE y.src IS NOT NULL
  AND (NOT y.bare
       OR (y.dst_ts - max(y.dst_launch, coalesce(y.prev_end, y.dst_launch))
             > (SELECT gap_ns FROM report_cp_open)
           AND y.dst_ts - (SELECT end_ts FROM report_cp_op WHERE op = y.src) <= 50000));

-- 3. GPU operations in order of start (host syncs at their end): per
-- operation its run, the wait on another stream, then its launch or the
-- gap after the previous operation of its stream.
CREATE TEMP TABLE report_cp_k AS
WITH k AS (
  SELECT e.trace_id, e.step, e.ev AS op, e.skey, e.ts, e.end_ts, o.launch, o.launch_ts,
    o.q_launch, o.q_start,
    lag(e.ev) OVER w AS prev, lag(e.end_ts) OVER w AS prev_end
  FROM report_cp_ev e JOIN report_cp_op o ON o.op = e.ev
  WHERE e.gpu = 1
  WINDOW w AS (PARTITION BY e.trace_id, e.step, e.skey ORDER BY e.ts, e.ev)
), kw AS (
  SELECT k.*, w.src AS wsrc, (SELECT end_ts FROM report_cp_ev x
                              WHERE x.trace_id = k.trace_id AND x.step = k.step AND x.ev = w.src) AS wend
  FROM k LEFT JOIN (SELECT trace_id, dst, src, max(ts) FROM report_cp_wait GROUP BY trace_id, dst) w
    ON w.trace_id = k.trace_id AND w.dst = k.op
)
-- inedge: the edge from its own stream or the host into each operation:
-- 'launch' from its launch call's start when its stream had nothing
-- queued and nothing running, else 'kernel_kernel' from the previous
-- operation's end (gaps under 1.5 ms), else NULL.
SELECT trace_id, step, op, skey, ts, end_ts, launch, launch_ts, q_launch, q_start, prev, prev_end,
  iif(wend IS NULL, NULL, wsrc) AS wsrc, wend,
  CASE WHEN q_launch = 1 AND q_start = 0 AND (prev IS NULL OR prev_end < launch_ts)
            AND (wend IS NULL OR wend < launch_ts) THEN 'launch'
       WHEN prev IS NOT NULL AND ts - prev_end < 1500000 AND (wend IS NULL OR wend < prev_end)
         THEN 'kernel_kernel' END AS inedge
FROM kw;
CREATE INDEX temp.report_cp_k_end ON report_cp_k(trace_id, step, end_ts);
CREATE INDEX temp.report_cp_k_stream ON report_cp_k(trace_id, step, skey, ts);

-- Host syncs: edges from the operation waited for to the call's end, at
-- the sync's end (HTA orders them among the operations by it).
CREATE TEMP TABLE report_cp_hsync AS
SELECT p.trace_id, p.step, s.id, s.end_ts AS t, s.call,
  CASE WHEN s.name = 'Event Sync' THEN (SELECT op FROM report_cp_recorded r WHERE r.id = s.id) END AS src,
  s.name, s.skey
FROM report_cp_sync_ev s JOIN report_cp_span p ON p.trace_id = s.trace_id
WHERE s.name IN ('Event Sync', 'Stream Sync', 'Context Sync')
  AND EXISTS (SELECT 1 FROM report_cp_ev e WHERE e.trace_id = p.trace_id AND e.step = p.step AND e.ev = s.call)
UNION ALL
-- Without --scope hta, a blocking call without a synchronization event
-- (traces without enable_cuda_sync_events) waited for the GPU operation
-- that ended last while it ran.
SELECT e.trace_id, e.step, -e.ev, e.end_ts, e.ev,
  (SELECT k.op FROM report_cp_k k WHERE k.trace_id = e.trace_id AND k.step = e.step
     AND k.end_ts BETWEEN e.ts AND e.end_ts ORDER BY k.end_ts DESC, k.op DESC LIMIT 1), 'Call', NULL
FROM report_cp_ev e
WHERE NOT coalesce(:scope_hta, 0) AND e.blocking AND e.gpu = 0
  AND NOT EXISTS (SELECT 1 FROM report_cp_sync_ev s WHERE s.call = e.ev);

-- The operation each host sync waited for: a Stream Sync its stream's
-- last operation started before the sync's end, a Context Sync each
-- stream's, an Event Sync the recorded one, a call the one ended in it.
CREATE TEMP TABLE report_cp_hsrc AS
WITH sk AS (SELECT DISTINCT trace_id, step, skey FROM report_cp_k),
w AS (
  SELECT h.*, h.src AS op FROM report_cp_hsync h WHERE h.name IN ('Event Sync', 'Call')
  UNION ALL
  SELECT h.*, (SELECT k.op FROM report_cp_k k
               WHERE k.trace_id = h.trace_id AND k.step = h.step AND k.skey = sk.skey AND k.ts < h.t
               ORDER BY k.ts DESC, k.op DESC LIMIT 1)
  FROM report_cp_hsync h JOIN sk ON sk.trace_id = h.trace_id AND sk.step = h.step
    AND (h.name = 'Context Sync' OR (h.name = 'Stream Sync' AND sk.skey = h.skey))
)
SELECT trace_id, step, id, t, call, op FROM w WHERE op IS NOT NULL;

-- (an edge whose source or destination is not an event of its span is
-- left out by profdb_critical_path, as a join on the nodes would)
INSERT INTO report_cp_gpu_edge
-- the operation's run
SELECT k.trace_id, k.step, k.ts, k.op, 0, k.op, 0, k.op, 1, k.end_ts - k.ts, 'operator', k.op
FROM report_cp_k k
UNION ALL -- the wait on another stream's operation
SELECT k.trace_id, k.step, k.ts, k.op, 1, k.wsrc, 1, k.op, 0, 0, 'sync', k.op
FROM report_cp_k k WHERE k.wsrc IS NOT NULL
UNION ALL -- its launch, or the gap after the previous operation
SELECT k.trace_id, k.step, k.ts, k.op, 2,
  CASE WHEN l THEN k.launch ELSE k.prev END, CASE WHEN l THEN 0 ELSE 1 END, k.op, 0,
  CASE WHEN l THEN k.ts - k.launch_ts ELSE k.ts - k.prev_end END,
  k.inedge, CASE WHEN l THEN k.op ELSE k.prev END
FROM (SELECT *, inedge = 'launch' AS l FROM report_cp_k) k
WHERE k.inedge IS NOT NULL
UNION ALL -- host syncs: from the operation waited for ('sync', 0); without
-- --scope hta weighing the call's time after that operation ended, as the
-- call's own ('operator'): HTA's 0 there drops the host's return from every
-- wait whose call weighs 0 at its end (a blocking call off the runtime lock)
SELECT h.trace_id, h.step, h.t, h.id, 0, h.op, 1, h.call, 1,
  CASE WHEN coalesce(:scope_hta, 0) THEN 0 ELSE max(0, c.end_ts - max(o.end_ts, c.ts)) END,
  CASE WHEN coalesce(:scope_hta, 0) THEN 'sync' ELSE 'operator' END, h.call
FROM report_cp_hsrc h
JOIN report_cp_ev c ON c.trace_id = h.trace_id AND c.step = h.step AND c.ev = h.call
JOIN report_cp_ev o ON o.trace_id = h.trace_id AND o.step = h.step AND o.ev = h.op;

-- each span reads its own edges (one scan of all per span grew with the
-- square of the ranks)
CREATE INDEX temp.report_cp_gpu_edge_span ON report_cp_gpu_edge(trace_id, step);
