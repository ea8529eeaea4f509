-- Report scope for profiler traces: which traces, steps and events the
-- time sections analyse.  Run by profdb report before the sections; every
-- table here is TEMP, so reporting never writes to the database.
--
-- Parameters: :trace_id (NULL = every trace), :include_warmup (0 = the
-- first ProfilerStep of each trace with several steps is excluded as
-- warm-up: compilation, autotuning, allocator growth).
--
-- A trace without ProfilerStep annotations is analysed whole (nothing can
-- be excluded as warm-up; report_window.all_steps is 0).

-- Traces reported on.
CREATE TEMP TABLE report_trace AS
SELECT trace_id, label, rank, world_size, status, start_ts, end_ts
FROM trace
WHERE :trace_id IS NULL OR trace_id = :trace_id;

-- Every step, with the warm-up flag.  span_ts/span_end: the step's span
-- (step.span_ts; TensorBoard's definition, which follows the GPU work the
-- step launched when the CPU runs ahead), the CPU range when unknown.
-- empty: the span has no time of its own (a last ProfilerStep cut short
-- while the previous step's GPU work still ran); such steps are skipped.
CREATE TEMP TABLE report_step_all AS
SELECT s.trace_id, s.step, s.event_id, s.ts, s.dur, s.gpu_ts, s.gpu_dur,
  coalesce(s.span_ts, s.ts) AS span_ts,
  coalesce(s.span_ts + s.span_dur, s.ts + s.dur) AS span_end,
  coalesce(s.span_dur, s.dur) = 0 AS empty,
  (s.step = (SELECT min(x.step) FROM step x WHERE x.trace_id = s.trace_id)
   AND (SELECT count(*) FROM step x WHERE x.trace_id = s.trace_id) > 1) AS warmup
FROM step s
WHERE s.trace_id IN (SELECT trace_id FROM report_trace);

-- Steps analysed.
CREATE TEMP TABLE report_step AS
SELECT * FROM report_step_all WHERE (:include_warmup OR NOT warmup) AND NOT empty;

-- Per trace: the analysed window [ts, end_ts), from the first analysed
-- step's span start to the last one's end (the whole trace when it has no
-- steps; NULL when it has steps but none is analysed), and the counts.
CREATE TEMP TABLE report_window AS
SELECT t.trace_id, t.label, t.rank,
  CASE WHEN n.all_steps = 0 THEN t.start_ts ELSE n.ts END AS ts,
  CASE WHEN n.all_steps = 0 THEN t.end_ts ELSE n.end_ts END AS end_ts,
  n.steps, n.all_steps, n.warmup_excluded
FROM report_trace t JOIN (
  SELECT r.trace_id,
    (SELECT min(s.span_ts) FROM report_step s WHERE s.trace_id = r.trace_id) AS ts,
    (SELECT max(s.span_end) FROM report_step s WHERE s.trace_id = r.trace_id) AS end_ts,
    (SELECT count(*) FROM report_step s WHERE s.trace_id = r.trace_id) AS steps,
    (SELECT count(*) FROM report_step_all s WHERE s.trace_id = r.trace_id) AS all_steps,
    (SELECT count(*) FROM report_step_all s WHERE s.trace_id = r.trace_id
       AND s.warmup AND NOT :include_warmup) AS warmup_excluded
  FROM report_trace r) n USING (trace_id);

-- GPU work (kernels, copies, fills) in the analysed steps, or all of it for
-- traces without steps.  category: kernel_category() of the name.
CREATE TEMP TABLE report_gpu AS
SELECT a.event_id, a.trace_id, a.kind, a.name, a.device, a.stream, a.ts, a.dur,
  a.step, a.correlation, a.launch_id, a.op_id, kernel_category(a.name) AS category
FROM gpu_activity a JOIN report_window w ON w.trace_id = a.trace_id
WHERE a.dur IS NOT NULL AND a.ts IS NOT NULL
  AND (w.all_steps = 0
       OR a.step IN (SELECT s.step FROM report_step s WHERE s.trace_id = a.trace_id));
CREATE INDEX temp.report_gpu_by_stream ON report_gpu(trace_id, device, stream, ts);

-- CPU slices (ops, annotations, Python frames, runtime calls) in the
-- analysed steps, or all of them for traces without steps.
CREATE TEMP TABLE report_cpu AS
SELECT s.event_id, s.trace_id, s.kind, s.name, s.pid, s.tid, s.ts, s.dur,
  s.self_dur, s.depth, s.parent_id, s.step
FROM slice s JOIN report_window w ON w.trace_id = s.trace_id
WHERE s.kind IN ('cpu_op', 'user_annotation', 'python_function', 'runtime')
  AND s.ts IS NOT NULL AND s.dur IS NOT NULL
  AND (w.all_steps = 0
       OR s.step IN (SELECT x.step FROM report_step x WHERE x.trace_id = s.trace_id));
CREATE INDEX temp.report_cpu_by_name ON report_cpu(name);

-- The time ranges the per-step sections use, numbered k in time order:
-- the analysed steps' spans, or one pseudo-step (NULL) covering the whole
-- trace when it has none.  Spans never overlap, so an interval overlaps
-- exactly the spans k0..k1 (see lib/30_step_time.sql).
CREATE TEMP TABLE report_span(
  k INTEGER PRIMARY KEY, trace_id INTEGER, step INTEGER, ts INTEGER, end_ts INTEGER);
INSERT INTO report_span(trace_id, step, ts, end_ts)
SELECT trace_id, step, ts, end_ts FROM (
  SELECT trace_id, step, span_ts AS ts, span_end AS end_ts FROM report_step
  UNION ALL
  SELECT w.trace_id, NULL, w.ts, w.end_ts FROM report_window w WHERE w.all_steps = 0)
ORDER BY trace_id, ts;
CREATE INDEX temp.report_span_by_ts ON report_span(trace_id, ts);
CREATE INDEX temp.report_span_by_end ON report_span(trace_id, end_ts);

-- Calls and ops that make the CPU wait for the GPU (sync_sum, findings).
CREATE TEMP TABLE report_sync_name(name TEXT PRIMARY KEY);
INSERT INTO report_sync_name(name) VALUES
  ('cudaStreamSynchronize'), ('cudaDeviceSynchronize'), ('cudaEventSynchronize'),
  ('cudaStreamWaitEvent'), ('cudaMemcpy'),
  ('hipStreamSynchronize'), ('hipDeviceSynchronize'), ('hipEventSynchronize'),
  ('hipMemcpy'), ('aten::item'), ('aten::_local_scalar_dense'),
  ('aten::is_nonzero'), ('aten::equal');

-- The analysed CPU intervals spent in those calls, nested ones included.
CREATE TEMP TABLE report_sync AS
SELECT c.* FROM report_cpu c WHERE c.name IN (SELECT name FROM report_sync_name);

-- The analysed operators: cpu_op slices other than ProfilerStep#N (which
-- 2021 and legacy traces record as operators).
CREATE TEMP TABLE report_op AS
SELECT * FROM report_cpu WHERE kind = 'cpu_op' AND name NOT GLOB 'ProfilerStep#*';
