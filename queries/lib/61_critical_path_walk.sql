-- The critical path of each span: the longest path of its graph
-- (profdb_critical_path, sqlext/critical_path.c) over the events and the
-- GPU edges of lib/60 and lib/61, and each path edge's kind, the sections'
-- rows (docs/definitions.md, "Critical path").
-- Run only when a selected section requires a table named here
-- (report_sql.c, lib_wanted):
-- On demand: report_cp_path

-- The path: the edges of a longest path of each span, in order (pos),
-- their weight w (ns), type and the event ev their time is attributed to;
-- run: NULL for a rank's span (trace_id, step), the run for a job's
-- (lib/62_critical_path_job.sql adds those, trace_id NULL).
-- (in the order of the rowid: no key to maintain, the sections read it whole)
CREATE TEMP TABLE report_cp_path(trace_id INTEGER, step INTEGER, pos INTEGER, w INTEGER,
  type TEXT, ev INTEGER, run TEXT);
INSERT INTO report_cp_path
SELECT p.trace_id, p.step, j.key, j.value ->> 1, j.value ->> 0, j.value ->> 2, NULL
FROM report_cp_span p, json_each((
  SELECT profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j) FROM (
    SELECT 'ev' AS r, ev AS a, ts AS b, end_ts AS c, gpu AS d, pid AS e, tid AS f, lock AS g,
      blocking AS h, parent AS i, NULL AS j
    FROM report_cp_ev e WHERE e.trace_id = p.trace_id AND e.step = p.step
    UNION ALL
    SELECT 'edge', t, o, sub, src, src_end, dst, dst_end, w, type, ev
    FROM report_cp_gpu_edge g WHERE g.trace_id = p.trace_id AND g.step = p.step))) j;

-- Each path edge's kind (the sections' rows): collective_wait for a sync
-- edge that weighs (a rank's wait inside a collective for the last
-- arrival, in a job's path: lib/62_critical_path_job.sql); its type for a
-- launch, kernel_kernel, sync or dependency edge; else its event's kind
-- (the rule lib/63_critical_path_replay.sql's what-ifs use too, each on
-- the joins it needs: a lookup of one table of kinds cost twice as much
-- on 114k path edges).  name_id: the event's name; ev_trace: its trace.
CREATE TEMP VIEW report_cp_path_kind AS
SELECT x.trace_id, x.step, x.run, x.pos, x.w, x.type, x.ev,
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
