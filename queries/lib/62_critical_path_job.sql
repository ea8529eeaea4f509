-- The critical path of a job's step: the graphs of its ranks' spans
-- (lib/60_critical_path.sql, 61_critical_path_edges.sql) joined at their
-- collectives, so the job has one longest path per step (issue 44;
-- docs/definitions.md, "Critical path of a job").  A collective kernel
-- moves no data before the last rank of its instance has arrived
-- (lib/50_collectives.sql matches the instances), so each instance gets a
-- barrier at the last arrival: every member kernel's start leads to it
-- (sync, weighing the member's wait: last arrival - its start; 0 for the
-- last rank) and it leads to every member's end with that kernel's
-- transfer (operator: end - last arrival), in place of the kernel's own
-- run.  The path then runs through whichever rank's work and wait reach
-- the barrier latest: the late rank's work when the graph holds what made
-- it late, else a peer's wait (the late rank's lateness lies in what the
-- graph does not hold: gaps between its top-level operators).  It is
-- never shorter than a rank's own path.  The ranks' clocks are taken as
-- one, as the straggler figures take them.  Not with --scope hta (HTA has
-- no job path), nor in a dataset's report (no spans).
-- Run only when a selected section requires a table named here
-- (report_sql.c, lib_wanted):
-- On demand: report_cp_job_span

-- A job's spans: run, step and the traces (ranks) whose span it joins;
-- only steps two or more distinct ranks of the run have (one trace each),
-- of at most 200,000 events in all (the graph takes about 500 bytes an
-- event: a larger job step gets no path; the section's empty text names
-- the limit when no step has one).
CREATE TEMP TABLE report_cp_job_span(run TEXT, step INTEGER, trace_id INTEGER,
  PRIMARY KEY (run, step, trace_id)) WITHOUT ROWID;
WITH s AS (
  SELECT r.run, p.step, p.trace_id, t.rank,
    (SELECT count(*) FROM report_cp_ev e WHERE e.trace_id = p.trace_id AND e.step = p.step) AS n
  FROM report_cp_span p JOIN report_run r USING (trace_id) JOIN report_trace t USING (trace_id)
  WHERE NOT coalesce(:scope_hta, 0) AND t.rank IS NOT NULL
), j AS (
  SELECT run, step, count(*) AS traces, count(DISTINCT rank) AS ranks, sum(n) AS events
  FROM s GROUP BY run, step
)
INSERT INTO report_cp_job_span
SELECT s.run, s.step, s.trace_id FROM s JOIN j USING (run, step)
WHERE j.ranks >= 2 AND j.traces = j.ranks AND j.events <= 200000;

-- The barriers: one per collective instance and job step, id (past every
-- event id), last_ts (the instance's last arrival, ns), and its members:
-- the instance's kernels that are events of the step's spans and end after
-- the last arrival (a kernel ending before it, on a clock that is off,
-- keeps its own run and joins no barrier), ev, ts and end_ts.
CREATE TEMP TABLE report_cp_barrier_member(id INTEGER, run TEXT, step INTEGER, last_ts INTEGER,
  ev INTEGER PRIMARY KEY, ts INTEGER, end_ts INTEGER);
INSERT INTO report_cp_barrier_member
SELECT 4611686018427387904 + dense_rank() OVER (ORDER BY j.run, j.step, a.pg, a.coll, a.seq),
  j.run, j.step, i.last_ts, e.ev, e.ts, e.end_ts
FROM report_cp_job_span j
JOIN report_cp_ev e ON e.trace_id = j.trace_id AND e.step = j.step AND e.gpu = 1
JOIN report_coll_arrival a ON a.event_id = e.ev
JOIN report_coll_instance i USING (run, pg, coll, seq)
WHERE a.run = j.run AND e.end_ts > i.last_ts;
CREATE INDEX temp.report_cp_barrier_member_step ON report_cp_barrier_member(run, step);

-- The ranks' GPU edges in a job's graph: those that do not run back in
-- time (a kernel overlapping the previous one on its stream, a clock off
-- between host and device): inside one rank they close no cycle, but
-- through two barriers they could, and a cycle fails the report.  With
-- every edge forward in time and each barrier crossing strictly so, the
-- job's graph is acyclic.  Nor a member kernel's own run (the barrier's
-- edges stand for it).
CREATE TEMP VIEW report_cp_job_gpu_edge AS
SELECT x.run, g.*
FROM report_cp_job_span x JOIN report_cp_gpu_edge g ON g.trace_id = x.trace_id AND g.step = x.step
JOIN report_cp_ev a ON a.trace_id = g.trace_id AND a.step = g.step AND a.ev = g.src
JOIN report_cp_ev b ON b.trace_id = g.trace_id AND b.step = g.step AND b.ev = g.dst
WHERE CASE WHEN g.src_end THEN a.end_ts ELSE a.ts END <= CASE WHEN g.dst_end THEN b.end_ts ELSE b.ts END
  AND NOT (g.type = 'operator' AND g.src = g.dst
           AND g.src IN (SELECT ev FROM report_cp_barrier_member));

-- The path of each job step, into report_cp_path (trace_id NULL, run set).
-- Threads are keyed per trace (pid as [trace_id, pid]) and the runtime
-- lock is per trace (the lock domain).
INSERT INTO report_cp_path
SELECT NULL, s.step, j.key, j.value ->> 1, j.value ->> 0, j.value ->> 2, s.run, 1
FROM (SELECT DISTINCT run, step FROM report_cp_job_span) s, json_each((
  SELECT profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j) FROM (
    SELECT 'ev' AS r, e.ev AS a, e.ts AS b, e.end_ts AS c, e.gpu AS d,
      CASE WHEN e.gpu = 0 THEN json_array(e.trace_id, e.pid) END AS e, e.tid AS f, e.lock AS g,
      e.blocking AS h, e.parent AS i, e.trace_id AS j
    FROM report_cp_job_span x JOIN report_cp_ev e ON e.trace_id = x.trace_id AND e.step = x.step
    WHERE x.run = s.run AND x.step = s.step
    UNION ALL  -- the barriers
    SELECT DISTINCT 'ev', id, last_ts, last_ts, 1, NULL, NULL, 0, 0, NULL, NULL
    FROM report_cp_barrier_member WHERE run = s.run AND step = s.step
    UNION ALL  -- the ranks' GPU edges (above)
    SELECT 'edge', t, o, sub, src, src_end, dst, dst_end, w, type, ev
    FROM report_cp_job_gpu_edge WHERE run = s.run AND step = s.step
    UNION ALL  -- a member's arrival at its barrier, weighing its wait
    SELECT 'edge', last_ts, id, 0, ev, 0, id, 0, last_ts - ts, 'sync', ev
    FROM report_cp_barrier_member WHERE run = s.run AND step = s.step
    UNION ALL  -- the barrier to each member's end: its transfer
    SELECT 'edge', last_ts, id, 1, id, 0, ev, 1, end_ts - last_ts, 'operator', ev
    FROM report_cp_barrier_member WHERE run = s.run AND step = s.step))) j;
