-- The critical path's edges and the path itself (lib/60_critical_path.sql
-- builds the spans, events and nodes; docs/definitions.md, "Critical
-- path").  report_cp_edge: id (HTA's insertion order), trace_id, step,
-- src/dst (report_cp_node.node), w (ns), type (HTA's CPEdgeType:
-- 'operator', 'dependency', 'launch', 'kernel_kernel', 'sync'), ev (the
-- event the time is attributed to: HTA's _attribute_edge, the launched
-- operation for a launch edge, the waiting call or operation for a sync).
-- Run only when a selected section requires a table named here
-- (report_sql.c, lib_wanted):
-- On demand: report_cp_path
CREATE TEMP TABLE report_cp_edge(id INTEGER PRIMARY KEY, trace_id INTEGER, step INTEGER,
  src INTEGER, dst INTEGER, w INTEGER, type TEXT, ev INTEGER);

-- 1. The runtime lock: over the lock calls' points of all threads in node
-- order, an end takes (last first) the starts since the previous end
-- ('operator' for its own start, else 'dependency'), then a 'dependency'
-- from the point before it when that is an end.
WITH p AS (
  SELECT n.node, n.trace_id, n.step, n.ev, n.is_end, n.t,
    sum(n.is_end) OVER (PARTITION BY n.trace_id, n.step ORDER BY n.node
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ends_before,
    lag(n.node) OVER w AS prev, lag(n.is_end) OVER w AS prev_end
  FROM report_cp_node n JOIN report_cp_ev e USING (trace_id, step, ev)
  WHERE e.lock
  WINDOW w AS (PARTITION BY n.trace_id, n.step ORDER BY n.node)
)
INSERT INTO report_cp_edge(trace_id, step, src, dst, w, type, ev)
SELECT trace_id, step, src, dst, w, type, ev FROM (
  SELECT e.trace_id, e.step, s.node AS src, e.node AS dst, e.node AS k1, -s.node AS k2,
    CASE WHEN s.ev = e.ev THEN e.t - s.t ELSE 0 END AS w,
    CASE WHEN s.ev = e.ev THEN 'operator' ELSE 'dependency' END AS type, e.ev
  FROM p e JOIN p s ON s.trace_id = e.trace_id AND s.step = e.step AND NOT s.is_end
    AND coalesce(s.ends_before, 0) = coalesce(e.ends_before, 0) AND s.node < e.node
  WHERE e.is_end
  UNION ALL
  SELECT trace_id, step, prev, node, node, 0, 0, 'dependency', NULL
  FROM p WHERE is_end AND prev_end
) ORDER BY k1, k2;

-- 2. Call stacks: each thread's points in HTA's order (time; an end before
-- a start; of two starts the longer first, of two ends the shorter first;
-- then by event id), each linked from the one before unless both take the
-- runtime lock (and are not an end then a start).  report_cp_stack: k
-- (the points of all threads in that order, one thread after another),
-- opd (operators open before the point: a running sum over all threads,
-- right per thread because each thread's points sum to zero, every start
-- having its end in the same span).  One ordered pass and a join on k - 1:
-- lag() over a partition cost 3x as much (docs/performance.md).
CREATE TEMP TABLE report_cp_stack(k INTEGER PRIMARY KEY, trace_id INTEGER, step INTEGER,
  pid, tid, node INTEGER, ev INTEGER, is_end INTEGER, t INTEGER, lock INTEGER, blocking INTEGER,
  parent INTEGER, opd INTEGER);
INSERT INTO report_cp_stack
SELECT row_number() OVER w, n.trace_id, n.step, e.pid, e.tid, n.node, n.ev, n.is_end, n.t, e.lock,
  e.blocking, e.parent,
  sum(CASE WHEN n.is_end THEN -1 ELSE 1 END) OVER w - CASE WHEN n.is_end THEN -1 ELSE 1 END
FROM report_cp_node n JOIN report_cp_ev e USING (trace_id, step, ev)
WHERE e.gpu = 0
WINDOW w AS (ORDER BY n.trace_id, n.step, e.pid, e.tid, n.t, n.is_end DESC,
             CASE WHEN n.is_end THEN e.end_ts - e.ts ELSE e.ts - e.end_ts END,
             CASE WHEN n.is_end THEN -n.ev ELSE n.ev END
             ROWS UNBOUNDED PRECEDING);

INSERT INTO report_cp_edge(trace_id, step, src, dst, w, type, ev)
SELECT c.trace_id, c.step, p.node, c.node,
  CASE WHEN NOT c.is_end AND c.opd = 0 THEN 0 WHEN c.is_end AND c.blocking THEN 0 ELSE c.t - p.t END,
  CASE WHEN NOT c.is_end AND c.opd = 0 THEN 'dependency' ELSE 'operator' END,
  CASE WHEN NOT p.is_end THEN p.ev WHEN c.is_end THEN c.ev ELSE p.parent END
FROM report_cp_stack c JOIN report_cp_stack p ON p.k = c.k - 1
WHERE p.trace_id = c.trace_id AND p.step = c.step AND p.pid IS c.pid AND p.tid IS c.tid
  AND NOT (c.lock AND p.lock AND (NOT p.is_end OR c.is_end))
ORDER BY c.k;

-- GPU synchronization (HTA: cuda_sync events, PyTorch's
-- enable_cuda_sync_events): what each waited for.  cudaStreamWaitEvent:
-- the operation launched last on the event's stream before its
-- cudaEventRecord (src), waited for by the next operation launched on the
-- waiting stream from the same thread (dst).
CREATE INDEX temp.report_cp_op_stream ON report_cp_op(trace_id, stream, launch_ts);
CREATE TEMP TABLE report_cp_wait(trace_id INTEGER, src INTEGER, dst INTEGER, ts INTEGER);
CREATE TEMP TABLE report_cp_sync_ev AS
SELECT g.id, g.trace_id, n.value AS name, g.ts + g.dur AS end_ts, g.device, g.stream,
  CASE WHEN coalesce(:scope_hta, 0) THEN g.stream ELSE g.device * 4294967296 + g.stream END AS skey,
  l.launch_id AS call,
  json_extract(g.args, '$.wait_on_stream') AS ev_stream,
  (SELECT r.ts FROM _slice r
   WHERE r.trace_id = g.trace_id AND r.correlation = json_extract(g.args, '$.wait_on_cuda_event_record_corr_id')
     AND r.name_id = (SELECT id FROM _string WHERE value = 'cudaEventRecord')) AS record_ts
FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _string n ON n.id = g.name_id
WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'gpu_sync') AND l.launch_id IS NOT NULL
  AND g.trace_id IN (SELECT trace_id FROM report_cp_span);
-- the operation an event recorded: launched last on its stream before the record
CREATE TEMP TABLE report_cp_recorded AS
SELECT s.id, (SELECT o.op FROM report_cp_op o JOIN _gpu g ON g.id = o.op
              WHERE o.trace_id = s.trace_id AND g.device = s.device AND o.stream = s.ev_stream
                AND o.launch_ts <= s.record_ts ORDER BY o.launch_ts DESC, o.launch DESC LIMIT 1) AS op
FROM report_cp_sync_ev s WHERE s.record_ts IS NOT NULL AND s.ev_stream >= 0;
INSERT INTO report_cp_wait
SELECT s.trace_id, r.op,
  (SELECT o.op FROM report_cp_op o
   WHERE o.trace_id = s.trace_id AND o.pid IS w.pid AND o.tid IS w.tid AND o.stream = s.stream
     AND o.launch_ts >= w.ts ORDER BY o.launch_ts, o.launch LIMIT 1), s.end_ts
FROM report_cp_sync_ev s JOIN report_cp_recorded r USING (id) JOIN _slice w ON w.id = s.call
WHERE s.name = 'Stream Wait Event' AND r.op IS NOT NULL;

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
)
SELECT k.*, w.src AS wsrc, (SELECT end_ts FROM report_cp_ev x
                            WHERE x.trace_id = k.trace_id AND x.step = k.step AND x.ev = w.src) AS wend
FROM k LEFT JOIN (SELECT trace_id, dst, src, max(ts) FROM report_cp_wait GROUP BY trace_id, dst) w
  ON w.trace_id = k.trace_id AND w.dst = k.op;
UPDATE report_cp_k SET wsrc = NULL WHERE wend IS NULL;
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

WITH x AS (
  -- the operation's run
  SELECT k.trace_id, k.step, k.ts AS t, k.op AS o, 0 AS sub, a.node AS src, b.node AS dst,
    k.end_ts - k.ts AS w, 'operator' AS type, k.op AS ev
  FROM report_cp_k k JOIN report_cp_node a ON a.trace_id = k.trace_id AND a.step = k.step AND a.ev = k.op AND NOT a.is_end
  JOIN report_cp_node b ON b.trace_id = k.trace_id AND b.step = k.step AND b.ev = k.op AND b.is_end
  UNION ALL -- the wait on another stream's operation
  SELECT k.trace_id, k.step, k.ts, k.op, 1, a.node, b.node, 0, 'sync', k.op
  FROM report_cp_k k JOIN report_cp_node a ON a.trace_id = k.trace_id AND a.step = k.step AND a.ev = k.wsrc AND a.is_end
  JOIN report_cp_node b ON b.trace_id = k.trace_id AND b.step = k.step AND b.ev = k.op AND NOT b.is_end
  UNION ALL -- its launch, or the gap after the previous operation
  SELECT k.trace_id, k.step, k.ts, k.op, 2,
    CASE WHEN l THEN a.node ELSE pe.node END, b.node,
    CASE WHEN l THEN k.ts - k.launch_ts ELSE k.ts - k.prev_end END,
    CASE WHEN l THEN 'launch' ELSE 'kernel_kernel' END, CASE WHEN l THEN k.op ELSE k.prev END
  FROM (SELECT *, q_launch = 1 AND q_start = 0 AND (prev IS NULL OR prev_end < launch_ts)
                  AND (wsrc IS NULL OR wend < launch_ts) AS l FROM report_cp_k) k
  JOIN report_cp_node b ON b.trace_id = k.trace_id AND b.step = k.step AND b.ev = k.op AND NOT b.is_end
  LEFT JOIN report_cp_node a ON a.trace_id = k.trace_id AND a.step = k.step AND a.ev = k.launch AND NOT a.is_end
  LEFT JOIN report_cp_node pe ON pe.trace_id = k.trace_id AND pe.step = k.step AND pe.ev = k.prev AND pe.is_end
  WHERE (l AND a.node IS NOT NULL)
     OR (NOT l AND k.prev IS NOT NULL AND k.ts - k.prev_end < 1500000
         AND (k.wsrc IS NULL OR k.wend < k.prev_end))
  UNION ALL -- host syncs: from the operation waited for
  SELECT h.trace_id, h.step, h.t, h.id, 0, a.node, b.node, 0, 'sync', h.call
  FROM report_cp_hsrc h
  JOIN report_cp_node a ON a.trace_id = h.trace_id AND a.step = h.step AND a.ev = h.op AND a.is_end
  JOIN report_cp_node b ON b.trace_id = h.trace_id AND b.step = h.step AND b.ev = h.call AND b.is_end
)
INSERT INTO report_cp_edge(trace_id, step, src, dst, w, type, ev)
SELECT trace_id, step, src, dst, w, type, ev FROM x ORDER BY trace_id, step, t, o, sub, src;

-- The path: the edges of a longest path of each span, in order (pos).
CREATE TEMP TABLE report_cp_path(trace_id INTEGER, step INTEGER, pos INTEGER, edge INTEGER,
  PRIMARY KEY (trace_id, step, pos)) WITHOUT ROWID;
INSERT INTO report_cp_path
SELECT g.trace_id, g.step, j.key, j.value
FROM (SELECT trace_id, step, profdb_longest_path(src, dst, w, id) AS p
      FROM report_cp_edge GROUP BY trace_id, step) g, json_each(g.p) j;
