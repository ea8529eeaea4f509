-- The report's steps: which traces are reported on, and which of their
-- ProfilerSteps are warm-up or empty.  The one definition of the analysed
-- steps: the report runs it first (then lib/10_trace_scope.sql keeps the
-- analysed ones, report_step), and profdb export runs it to write each
-- step's warmup and analysed columns (export/dataset/step.sql), so that a
-- per-step query of the Parquet dataset selects the steps the report
-- analyses.  Every table here is TEMP.
--
-- Parameters: :trace_id (NULL = every trace).
--
-- Tables:
--   report_built_from(summaries): merged from a dataset's summaries (below)
--   report_trace(trace_id, label, rank, world_size, status, start_ts,
--     end_ts): the traces reported on
--   report_step_all(trace_id, step, event_id, ts, dur, gpu_ts, gpu_dur,
--     span_ts, span_end, empty, warmup): every step of them (below)

-- Whether the database was merged from a dataset's summaries
-- (export/export_merge.c writes _profdb.built_from): they keep only the
-- CPU operators the other sections read, so what needs every one (the
-- critical path) is not computed and says why (lib/60, lib/90).
--   summaries: 1 when merged from summaries, else 0
CREATE TEMP TABLE report_built_from(summaries INTEGER);
INSERT INTO report_built_from
SELECT EXISTS (SELECT 1 FROM main._profdb WHERE key = 'built_from'
               AND value = 'dataset summaries');

-- Traces reported on.
CREATE TEMP TABLE report_trace(trace_id INTEGER PRIMARY KEY, label TEXT, rank INTEGER,
  world_size INTEGER, status TEXT, start_ts INTEGER, end_ts INTEGER);
INSERT INTO report_trace
SELECT trace_id, label, rank, world_size, status, start_ts, end_ts
FROM trace
WHERE :trace_id IS NULL OR trace_id = :trace_id;

-- Every step, with the warm-up flag.  span_ts/span_end: the step's span
-- (step.span_ts; TensorBoard's definition, which follows the GPU work the
-- step launched when the CPU runs ahead), the CPU range when unknown.
-- empty: the span has no time of its own (a last ProfilerStep cut short
-- while the previous step's GPU work still ran); such steps are skipped.
-- warmup: the first step, when another non-empty step remains and, if the
-- first step launched GPU work, another step launched some too (a trace
-- whose later steps are stubs, e.g. a last step cut short by the profiler,
-- would otherwise lose all its GPU work).
CREATE TEMP TABLE report_step_all AS
WITH gpu_steps AS (
  SELECT DISTINCT g.trace_id, l.step FROM _gpu g JOIN _gpu_link l ON l.id = g.id
  WHERE g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset')) AND l.step IS NOT NULL
    AND g.trace_id IN (SELECT trace_id FROM report_trace)
), steps AS (
  SELECT s.*, coalesce(s.span_dur, s.dur) = 0 AS empty,
    (s.trace_id, s.step) IN (SELECT trace_id, step FROM gpu_steps) AS gpu,
    s.step = min(s.step) OVER (PARTITION BY s.trace_id) AS first
  FROM step s WHERE s.trace_id IN (SELECT trace_id FROM report_trace)
)
SELECT s.trace_id, s.step, s.event_id, s.ts, s.dur, s.gpu_ts, s.gpu_dur,
  coalesce(s.span_ts, s.ts) AS span_ts,
  coalesce(s.span_ts + s.span_dur, s.ts + s.dur) AS span_end, s.empty,
  (s.first AND EXISTS (SELECT 1 FROM steps x WHERE x.trace_id = s.trace_id AND NOT x.first
                       AND NOT x.empty AND (x.gpu OR NOT s.gpu))) AS warmup
FROM steps s;
-- (a trace's steps are looked up per trace: without this index each lookup
-- read every rank's steps, 27 M SQL steps at 1024 ranks; ties keep the
-- table's order)
CREATE INDEX temp.report_step_all_by_trace ON report_step_all(trace_id);

