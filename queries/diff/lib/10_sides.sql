-- profdb diff: the two runs side by side.  The diff runs with the newer
-- database as main and the older one ATTACHed as base, as in
--   sqlite3 after.db "ATTACH 'before.db' AS base; SELECT ..."
-- Every table below has a side column, 'before' (base) or 'after' (main),
-- and is TEMP: diffing never writes to either database.  The scope follows
-- the report's (queries/lib/10_trace_scope.sql): the first ProfilerStep of
-- a trace with several is warm-up unless :include_warmup; a step's time is
-- its span; a trace without steps counts as one step.  Per-step figures
-- divide by the number of analysed steps of all the run's traces (ranks).
--
-- Parameters: :include_warmup

-- The two sides, so that a side with no data still shows.
CREATE TEMP TABLE diff_sides(side TEXT PRIMARY KEY, schema_name TEXT, ord INTEGER);
INSERT INTO diff_sides VALUES ('before', 'base', 0), ('after', 'main', 1);

-- Traces of each run.
CREATE TEMP TABLE diff_trace AS
SELECT 'after' AS side, trace_id, label, rank, start_ts, end_ts FROM main.trace
UNION ALL
SELECT 'before', trace_id, label, rank, start_ts, end_ts FROM base.trace;

-- Every step, with the warm-up and empty flags.
CREATE TEMP TABLE diff_step_all AS
WITH s AS (
  SELECT 'after' AS side, trace_id, step, ts, dur, span_ts, span_dur FROM main.step
  UNION ALL
  SELECT 'before', trace_id, step, ts, dur, span_ts, span_dur FROM base.step)
SELECT side, trace_id, step, coalesce(span_dur, dur) AS wall_ns,
  step = min(step) OVER w AND count(*) OVER w > 1 AS warmup,
  coalesce(span_dur, dur) = 0 AS empty
FROM s WINDOW w AS (PARTITION BY side, trace_id);

-- The analysed steps, and one pseudo-step (NULL) per trace without steps.
CREATE TEMP TABLE diff_step AS
SELECT side, trace_id, step, wall_ns FROM diff_step_all
WHERE (:include_warmup OR NOT warmup) AND NOT empty
UNION ALL
SELECT t.side, t.trace_id, NULL, t.end_ts - t.start_ts FROM diff_trace t
WHERE NOT EXISTS (SELECT 1 FROM diff_step_all s WHERE s.side = t.side AND s.trace_id = t.trace_id);

-- (side, trace_id, step) in scope; step -1 for traces without steps.
CREATE TEMP TABLE diff_scope(side TEXT, trace_id INTEGER, step INTEGER,
  PRIMARY KEY(side, trace_id, step)) WITHOUT ROWID;
INSERT INTO diff_scope SELECT side, trace_id, coalesce(step, -1) FROM diff_step;

-- Job steps (docs/definitions.md#jobs): each side is one job; job step k
-- is ProfilerStep k on every rank of the side, and it lasts as long as its
-- slowest rank's step (a trace without steps: one job step, -1).  Step
-- time statistics and the noise test run over job steps, never over
-- ranks: eight ranks of one step are one sample, not eight.
--   side, step   the job step
--   ranks        traces that ran it
--   wall_ns      its duration: the longest rank's step span (ns)
CREATE TEMP TABLE diff_job_step AS
SELECT side, coalesce(step, -1) AS step, count(*) AS ranks, max(wall_ns) AS wall_ns
FROM diff_step GROUP BY side, coalesce(step, -1);

-- Per side: traces, analysed rank steps (steps: one per rank and step, the
-- divisor of every per-step figure, which is thus the mean rank's), job
-- steps, and the step time statistics over the job steps (ns).
CREATE TEMP TABLE diff_run AS
SELECT d.side, count(DISTINCT s.trace_id) AS traces, count(s.wall_ns) AS steps,
  sum(s.wall_ns) AS wall_ns,
  (SELECT count(*) FROM diff_job_step j WHERE j.side = d.side) AS job_steps,
  (SELECT avg(j.wall_ns) FROM diff_job_step j WHERE j.side = d.side) AS mean_wall,
  (SELECT profdb_median(j.wall_ns) FROM diff_job_step j WHERE j.side = d.side) AS median_wall,
  (SELECT profdb_percentile(j.wall_ns, 95) FROM diff_job_step j WHERE j.side = d.side) AS p95_wall,
  (SELECT min(j.wall_ns) FROM diff_job_step j WHERE j.side = d.side) AS min_wall,
  (SELECT max(j.wall_ns) FROM diff_job_step j WHERE j.side = d.side) AS max_wall,
  (SELECT group_concat(name, ', ') FROM (
     SELECT DISTINCT name FROM main.device WHERE d.side = 'after'
     UNION SELECT DISTINCT name FROM base.device WHERE d.side = 'before'
     ORDER BY 1)) AS devices
FROM diff_sides d LEFT JOIN diff_step s ON s.side = d.side
GROUP BY d.side;

-- GPU work (kernels, copies, fills) launched in the analysed steps, per
-- side and name: instances, total time, bytes (copies and fills).
--   kind: 'kernel', 'memcpy' or 'memset'; base: kernel_base(name)
CREATE TEMP TABLE diff_gpu_name AS
WITH a AS (
  SELECT 'after' AS side, g.kind, g.name_id, count(*) AS instances, sum(g.dur) AS total_dur,
    sum(g.bytes) AS bytes
  FROM main._gpu g JOIN main._gpu_link l ON l.id = g.id
  WHERE g.kind IN (SELECT kind FROM main._kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'after'
                AND k.trace_id = g.trace_id AND k.step = coalesce(l.step, -1))
  GROUP BY g.kind, g.name_id
), b AS (
  SELECT 'before' AS side, g.kind, g.name_id, count(*) AS instances, sum(g.dur) AS total_dur,
    sum(g.bytes) AS bytes
  FROM base._gpu g JOIN base._gpu_link l ON l.id = g.id
  WHERE g.kind IN (SELECT kind FROM base._kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'before'
                AND k.trace_id = g.trace_id AND k.step = coalesce(l.step, -1))
  GROUP BY g.kind, g.name_id
), named AS MATERIALIZED (
  SELECT a.*, profdb_display_name(n.value) AS name FROM a JOIN main._string n ON n.id = a.name_id
  UNION ALL
  SELECT b.*, profdb_display_name(n.value) FROM b JOIN base._string n ON n.id = b.name_id
)
SELECT side, (SELECT name FROM main._kind WHERE _kind.kind = named.kind) AS kind,
  name, kernel_base(name) AS base, kernel_category(name) AS category, instances, total_dur,
  bytes
FROM named;

-- GPU time per side, trace and device: busy (work launched in the
-- analysed steps, overlaps counted once), collectives and their overlap
-- with compute kernels.
CREATE TEMP TABLE diff_gpu_busy AS
-- collective kernels' name ids per side (each name read once, its first
-- 64 KiB categorized as in the report)
WITH comm AS MATERIALIZED (
  SELECT 'after' AS side, id AS name_id FROM main._string
  WHERE id IN (SELECT name_id FROM main._gpu
               WHERE kind = (SELECT kind FROM main._kind WHERE name = 'kernel'))
    AND kernel_category(substr(value, 1, 65536)) = 'NCCL/communication'
  UNION ALL
  SELECT 'before', id FROM base._string
  WHERE id IN (SELECT name_id FROM base._gpu
               WHERE kind = (SELECT kind FROM base._kind WHERE name = 'kernel'))
    AND kernel_category(substr(value, 1, 65536)) = 'NCCL/communication'
), g AS (
  SELECT 'after' AS side, g.trace_id, g.device, g.kind, g.ts, g.ts + g.dur AS end_ts,
    g.kind = (SELECT kind FROM main._kind WHERE name = 'kernel')
      AND g.name_id IN (SELECT name_id FROM comm WHERE side = 'after') AS comm
  FROM main._gpu g JOIN main._gpu_link l ON l.id = g.id
  WHERE g.kind IN (SELECT kind FROM main._kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'after'
                AND k.trace_id = g.trace_id AND k.step = coalesce(l.step, -1))
  UNION ALL
  SELECT 'before', g.trace_id, g.device, g.kind, g.ts, g.ts + g.dur,
    g.kind = (SELECT kind FROM base._kind WHERE name = 'kernel')
      AND g.name_id IN (SELECT name_id FROM comm WHERE side = 'before')
  FROM base._gpu g JOIN base._gpu_link l ON l.id = g.id
  WHERE g.kind IN (SELECT kind FROM base._kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'before'
                AND k.trace_id = g.trace_id AND k.step = coalesce(l.step, -1))
)
SELECT side, trace_id, device, interval_union(ts, end_ts) AS busy_ns,
  coalesce(interval_union(ts, end_ts) FILTER (WHERE comm), 0) AS comm_ns,
  coalesce(interval_overlap(ts, end_ts, comm)
           FILTER (WHERE kind = (SELECT kind FROM main._kind WHERE name = 'kernel')), 0)
    AS comm_overlap_ns
FROM g GROUP BY side, trace_id, device;

-- CPU operators of the analysed steps, per side and name (op_stats).
CREATE TEMP TABLE diff_op AS
WITH a AS (
  SELECT 'after' AS side, o.name_id, sum(o.calls) AS calls, sum(o.total_dur) AS total_dur,
    sum(o.self_dur) AS self_dur
  FROM main._op_stats o
  WHERE EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'after'
                AND k.trace_id = o.trace_id AND k.step = coalesce(o.step, -1))
  GROUP BY o.name_id
), b AS (
  SELECT 'before' AS side, o.name_id, sum(o.calls) AS calls, sum(o.total_dur) AS total_dur,
    sum(o.self_dur) AS self_dur
  FROM base._op_stats o
  WHERE EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'before'
                AND k.trace_id = o.trace_id AND k.step = coalesce(o.step, -1))
  GROUP BY o.name_id
)
SELECT a.side, profdb_display_name(n.value) AS name, a.calls, a.total_dur, a.self_dur
FROM a JOIN main._string n ON n.id = a.name_id
UNION ALL
SELECT b.side, profdb_display_name(n.value), b.calls, b.total_dur, b.self_dur
FROM b JOIN base._string n ON n.id = b.name_id;

-- Per-step divisor of each side (at least 1, so a run without steps or
-- traces never divides by zero).
CREATE TEMP VIEW diff_per_step(side, steps) AS
SELECT side, max(steps, 1) FROM diff_run;

-- CPU operators per step on each side, matched by name.
CREATE TEMP TABLE diff_op_step AS
WITH steps AS (
  SELECT (SELECT steps FROM diff_per_step WHERE side = 'before') AS sb,
    (SELECT steps FROM diff_per_step WHERE side = 'after') AS sa
)
SELECT o.name,
  coalesce(sum(o.calls) FILTER (WHERE o.side = 'before'), 0) AS before_calls,
  coalesce(sum(o.calls) FILTER (WHERE o.side = 'after'), 0) AS after_calls,
  coalesce(sum(o.self_dur) FILTER (WHERE o.side = 'before'), 0) / (SELECT 1.0 * sb FROM steps)
    AS before_self,
  coalesce(sum(o.self_dur) FILTER (WHERE o.side = 'after'), 0) / (SELECT 1.0 * sa FROM steps)
    AS after_self,
  coalesce(sum(o.total_dur) FILTER (WHERE o.side = 'before'), 0) / (SELECT 1.0 * sb FROM steps)
    AS before_total,
  coalesce(sum(o.total_dur) FILTER (WHERE o.side = 'after'), 0) / (SELECT 1.0 * sa FROM steps)
    AS after_total
FROM diff_op o GROUP BY o.name;
