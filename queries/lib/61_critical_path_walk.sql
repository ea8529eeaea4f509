-- The critical path of each span: the longest path of its graph
-- (sqlext/critical_path.c) over the events and the GPU edges of lib/60 and
-- lib/61: a rank's span's summed by kind and name, a job step's (lib/62)
-- edge by edge with each edge's kind, the sections' rows
-- (docs/definitions.md, "Critical path").
-- Run only when a selected section requires a table named here
-- (report_sql.c, lib_wanted):
-- On demand: report_cp_path report_cp_path_sum

-- The path of each rank's span, summed by kind and name (the critical_path
-- section's rows; profdb_critical_path_sum sums in C what a table of the
-- path's edges, ~10^6 of a long span, would hold for one GROUP BY), per
-- span: its sums as the function returns them (v: [kind, name, ns, edges,
-- event]).
CREATE TEMP TABLE report_cp_path_part AS
SELECT p.trace_id, p.step, j.value AS v
FROM report_cp_span p, json_each((
  SELECT profdb_critical_path_sum(r, a, b, c, d, e, f, g, h, i, j, k, l) FROM (
    SELECT 'ev' AS r, ev AS a, ts AS b, end_ts AS c, gpu AS d, pid AS e, tid AS f, lock AS g,
      blocking AS h, parent AS i, NULL AS j, kind AS k, name_id AS l
    FROM report_cp_ev e WHERE e.trace_id = p.trace_id AND e.step = p.step
    UNION ALL
    SELECT 'edge', t, o, sub, src, src_end, dst, dst_end, w, type, ev, NULL, NULL
    FROM report_cp_gpu_edge g WHERE g.trace_id = p.trace_id AND g.step = p.step))) j;

-- The sums of edges whose event is one of the span's: trace_id, step, kind
-- (collective_wait for a sync edge that weighs; its type for a launch,
-- kernel_kernel, sync or dependency edge; else its event's kind:
-- report_cp_ev.kind, 'cpu_op', 'runtime' or 'gpu:CATEGORY', the rule
-- lib/63_critical_path_replay.sql's what-ifs use too), name_id (its
-- event's name), ns (the edges' weights summed), edges.
CREATE TEMP TABLE report_cp_path_sum(trace_id INTEGER, step INTEGER, kind TEXT, name_id INTEGER,
  ns INTEGER, edges INTEGER);
INSERT INTO report_cp_path_sum
SELECT trace_id, step, v ->> 0, v ->> 1, v ->> 2, v ->> 3 FROM report_cp_path_part
WHERE v ->> 4 IS NULL;

-- Path edges, each with the event ev its time is attributed to, for
-- report_cp_path_kind to name: a job step's (lib/62_critical_path_job.sql
-- inserts them; trace_id NULL, run the run), in order (pos), each its
-- weight w (ns) and type, edges 1; and a rank's span's attributed to an
-- event outside its events (a call stack's parent: a Python frame, an
-- annotation), summed per event and kind (run NULL, pos NULL, w their
-- weights summed, edges how many; type 'sync' for collective_wait).
-- (in the order of the rowid: no key to maintain, the sections read it whole)
CREATE TEMP TABLE report_cp_path(trace_id INTEGER, step INTEGER, pos INTEGER, w INTEGER,
  type TEXT, ev INTEGER, run TEXT, edges INTEGER);
INSERT INTO report_cp_path
SELECT trace_id, step, NULL, v ->> 2,
  CASE v ->> 0 WHEN 'collective_wait' THEN 'sync' ELSE coalesce(v ->> 0, 'operator') END,
  v ->> 4, NULL, v ->> 3
FROM report_cp_path_part WHERE v ->> 4 IS NOT NULL;

-- Each row's kind, as report_cp_path_sum's (above), its event looked up
-- (the events of several ranks' spans in a job's path).  name_id: the
-- event's name; ev_trace: its trace.
CREATE TEMP VIEW report_cp_path_kind AS
SELECT x.trace_id, x.step, x.run, x.pos, x.w, x.type, x.ev, x.edges,
  CASE
    WHEN x.type = 'sync' AND x.w > 0 THEN 'collective_wait'
    WHEN x.type IN ('launch', 'kernel_kernel', 'sync', 'dependency') THEN x.type
    WHEN g.id IS NOT NULL THEN 'gpu:' || coalesce(n.category, 'Other')
    WHEN s.kind = (SELECT kind FROM _kind WHERE name = 'runtime') THEN 'runtime'
    ELSE 'cpu_op' END AS kind,
  coalesce(g.name_id, s.name_id) AS name_id, coalesce(g.trace_id, s.trace_id) AS ev_trace
FROM report_cp_path x
LEFT JOIN _gpu g ON g.id = x.ev
LEFT JOIN report_gpu_name n ON n.name_id = g.name_id
LEFT JOIN _slice s ON s.id = x.ev;
