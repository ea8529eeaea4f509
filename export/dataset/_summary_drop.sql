-- _summary_drop.sql — the events of the trace :trace_id (ids in (:base,
-- :last]) that its rank's summary leaves out because no report query reads
-- them (export/export_summary.c; the rules of _summary_copy.sql), and the
-- nesting of the events it keeps.  `profdb report DIR` must still give the
-- report of the database: export.report_dir_frames checks it on a fixture
-- that reads these tables in each way the queries do (and that the queries
-- reading them are the ones named here), export.report_dir on the public
-- jobs.
--
-- Python frames (with_stack=True: two thirds of a trace's slices on the
-- public traces).  Kept:
--   - marker frames (_attr_marker: activation-checkpoint frames) and every
--     frame above a marker slice or above a memcpy's runtime call: the
--     sync sources of lib/35_sync.sql walk up from those calls to the
--     nearest user frame;
--   - frames with a "stream" arg or a correlation, which HTA counts as GPU
--     work or keeps by correlation (lib/11_hta.sql, --scope hta; Kineto's
--     frames have neither);
--   - the first frame with a category: whether an array-layout trace is a
--     legacy exporter's (lib/findings/counts.sql) stays as in the database;
--   - the frame around each operator that launched GPU work: profdb diff
--     matches kernels by their operator and its parent slice
--     (diff/lib/15_launch.sql);
-- and read by no query: module and source attribution (the load's _attr_*
-- tables hold it); an instant's operator (lib/55_memory_event_op.sql
-- leaves frames out); mem_peak_context.sql (snapshots are not in
-- summaries); the frames naming the forward pass (lib/60_critical_path.sql:
-- a dataset's report has no critical path).
-- Flows: read only to count ac2g flows in traces without GPU work
-- (lib/findings/counts.sql); kept there.  Metadata events: read by no query (their
-- process and thread names are in the process and thread tables).
-- Of each of the three, also kept:
--   - the first with sub-µs digits: whether HTA rounds the trace's times
--     (report_hta_trace in lib/10_trace_scope.sql, --scope hta) stays as in
--     the database;
-- and of all events, the trace's first and last (ids :base + 1, :last):
-- the merge numbers a rank's events from its first to its last, so every
-- kept event has the id a load of all ranks gives it.
-- CPU operators and runtime calls: the second statement (after the frames,
-- whose kept ones it keeps the operators around).
-- Attribution contexts: the last statement.
-- Output:
--   temp.summary_drop    the event ids left out
--   temp.summary_ctx     the attribution contexts kept
--   temp.summary_parent  kept slices whose parent is a dropped frame: the
--                        nearest kept slice around them (NULL: none)

CREATE TEMP TABLE summary_drop(id INTEGER PRIMARY KEY);

INSERT INTO temp.summary_drop
WITH RECURSIVE
frame AS (
  SELECT s.id, s.ts, s.correlation, s.args, s.raw_cat_id FROM src._slice s
  WHERE s.id > :base AND s.id <= :last AND s.trace_id = :trace_id
    AND s.kind = (SELECT kind FROM src._kind WHERE name = 'python_function')
),
seed(id) AS (
  SELECT a.id FROM src._attr_marker a WHERE a.id > :base AND a.id <= :last
  UNION
  SELECT l.launch_id FROM src._gpu g JOIN src._gpu_link l ON l.id = g.id
  WHERE g.id > :base AND g.id <= :last AND g.trace_id = :trace_id AND l.launch_id IS NOT NULL
    AND g.kind = (SELECT kind FROM src._kind WHERE name = 'memcpy')
),
up(id) AS (
  SELECT id FROM seed
  UNION
  SELECT t.parent_id FROM up JOIN src._slice_tree t ON t.id = up.id
  WHERE t.parent_id IS NOT NULL
),
flow AS (
  SELECT f.id, f.ts, f.cat_id FROM src._flow f
  WHERE f.id > :base AND f.id <= :last AND f.trace_id = :trace_id
),
meta AS (
  SELECT m.id, m.ts FROM src._meta m
  WHERE m.id > :base AND m.id <= :last AND m.trace_id = :trace_id
),
gpu_work(n) AS (
  SELECT count(*) FROM src._gpu g
  WHERE g.id > :base AND g.id <= :last AND g.trace_id = :trace_id
    AND g.kind IN (SELECT kind FROM src._kind WHERE name IN ('kernel', 'memcpy', 'memset'))
),
kept(id) AS (
  SELECT id FROM frame JOIN up USING (id)
  UNION ALL SELECT id FROM frame WHERE correlation IS NOT NULL OR args LIKE '%"stream"%'
  UNION ALL SELECT min(id) FROM frame WHERE raw_cat_id IS NOT NULL
  UNION ALL SELECT min(id) FROM frame WHERE ts % 1000 <> 0
  UNION ALL SELECT id FROM flow WHERE (SELECT n FROM gpu_work) = 0
    AND cat_id = (SELECT id FROM src._string WHERE value = 'ac2g')
  -- the parent of each GPU event's operator: profdb diff matches kernels
  -- by their operator and its parent slice (diff/lib/15_launch.sql)
  UNION ALL SELECT t.parent_id FROM src._gpu_link l JOIN src._slice_tree t ON t.id = l.op_id
  WHERE l.id > :base AND l.id <= :last
  UNION ALL SELECT min(id) FROM flow WHERE ts % 1000 <> 0
  UNION ALL SELECT min(id) FROM meta WHERE ts % 1000 <> 0
  UNION ALL SELECT :base + 1
  UNION ALL SELECT :last
)
SELECT id FROM (SELECT id FROM frame UNION ALL SELECT id FROM flow UNION ALL SELECT id FROM meta)
EXCEPT SELECT id FROM kept;

-- CPU operators and runtime calls (most of a trace's slices once the
-- frames are out: on a 115 MB trace, 55k operators and 61k runtime calls,
-- of which 25k get the device's properties or a pointer's attributes).
-- The report reads them one by one only where they launch GPU work or
-- lead to it, or as markers; their times are summed while loading
-- (_op_stats, _attr_*, cpu_busy, _slice_tree.self_dur: copied whole).
-- Kept, with every slice around a kept one (the walks up the nesting of
-- lib/35_sync.sql, lib/38_claim.sql and lib/55_memory_event_op.sql meet
-- the same slices; a dropped one has no kept slice inside it, so the
-- nesting of the kept ones is the database's):
--   - the slices of every other kind (annotations, trace spans; the Python
--     frames the rule above keeps);
--   - markers (_attr_marker: sync, set-up, phase, DataLoader names);
--   - the runtime call and the operator of each GPU event (_gpu_link:
--     report_gpu, launches, op_gpu_sum, fill_kernel_sum, source_gpu_sum;
--     a collective's record_param_comms args, lib/50_collectives.sql; each
--     step's first launch, lib/findings/critical.sql; which GPU work has no
--     launch in the trace, lib/15_timeline.sql's report_pretrace_gpu);
--   - every call of an operator signature whose first call is over 1 ms
--     (lib/38_claim.sql's report_first_call judges it against the
--     signature's later calls);
--   - the stream-wait calls (cudaStreamWaitEvent, hipStreamWaitEvent:
--     lib/findings/queued.sql's owner `event`);
--   - the operators with over 1 ms of self time (lib/36_gpu_gaps.sql's
--     one-time host stalls inside one call; their self_dur stays,
--     _summary_columns.sql);
--   - the operators _attr_flop (mfu_step, gemm_efficiency), _attr_shape
--     (op_shape_sum; profdb diff's op_shape, also the keys without shapes)
--     and the step table point at;
--   - every slice whose closed interval holds a [memory] event of its
--     thread (lib/55_memory_event_op.sql: the innermost operator around
--     the event is found up from the last slice started before it; with
--     every slice around an event kept, that walk ends at the same
--     operator);
--   - for --scope hta (lib/11_hta.sql): slices with a "stream" arg (GPU
--     work for HTA) and those whose correlation a GPU event or such a
--     slice has (report_hta_corr), and the first with sub-µs digits;
--   - slices without a start or a duration, the trace's first and last
--     events (the legacy-exporter test of lib/findings/counts.sql needs no operator:
--     a trace with GPU work has a GPU event with a category);
--   - all of them in a trace without GPU work (lib/findings/counts.sql counts its
--     launch calls and categories).
INSERT INTO temp.summary_drop
WITH RECURSIVE
cand AS MATERIALIZED (
  SELECT s.id, s.pid, s.tid, s.ts, s.dur, s.raw_cat_id, s.correlation, s.args FROM src._slice s
  WHERE s.id > :base AND s.id <= :last AND s.trace_id = :trace_id
    AND s.kind IN (SELECT kind FROM src._kind WHERE name IN ('cpu_op', 'runtime'))
),
gpu_work(n) AS (
  SELECT count(*) FROM src._gpu g
  WHERE g.id > :base AND g.id <= :last AND g.trace_id = :trace_id
    AND g.kind IN (SELECT kind FROM src._kind WHERE name IN ('kernel', 'memcpy', 'memset'))
),
corr(c) AS MATERIALIZED (
  SELECT g.correlation FROM src._gpu g
  WHERE g.id > :base AND g.id <= :last AND g.trace_id = :trace_id AND g.correlation IS NOT NULL
  UNION
  SELECT s.correlation FROM src._slice s
  WHERE s.id > :base AND s.id <= :last AND s.trace_id = :trace_id
    AND s.correlation IS NOT NULL AND s.args LIKE '%"stream"%'
),
memory AS MATERIALIZED (
  SELECT i.pid, i.tid, i.ts FROM src._instant i
  WHERE i.id > :base AND i.id <= :last AND i.trace_id = :trace_id AND i.ts IS NOT NULL
    AND i.kind = (SELECT kind FROM src._kind WHERE name = 'memory')
),
memory_thread AS MATERIALIZED (SELECT DISTINCT pid, tid FROM memory),
-- the operator signatures whose first call lib/38_claim.sql may judge as
-- one-time work (report_first_call: a first call over 1 ms, against the
-- median of the signature's later calls, which must all be there)
first_sig AS MATERIALIZED (
  SELECT name_id, input_dims, input_types FROM (
    SELECT name_id, input_dims, input_types, dur,
      row_number() OVER (PARTITION BY name_id, input_dims, input_types ORDER BY ts, id) AS nth
    FROM src._slice
    WHERE id > :base AND id <= :last AND trace_id = :trace_id AND ts IS NOT NULL
      AND dur IS NOT NULL AND kind = (SELECT kind FROM src._kind WHERE name = 'cpu_op'))
  WHERE nth = 1 AND dur > 1000000
),
-- per slice of a thread with [memory] events, the first event at or after
-- its start (a running minimum from the end of the thread: events before
-- slices at the same instant, as intervals are closed)
holds AS (
  SELECT id, end_ts, min(CASE WHEN id IS NULL THEN ts END) OVER (
      PARTITION BY pid, tid ORDER BY ts DESC, id IS NULL DESC
      ROWS UNBOUNDED PRECEDING) AS next_event
  FROM (SELECT c.id, c.pid, c.tid, c.ts, c.ts + c.dur AS end_ts
        FROM memory_thread h JOIN cand c ON c.pid IS h.pid AND c.tid IS h.tid
        WHERE c.ts IS NOT NULL AND c.dur IS NOT NULL
        UNION ALL
        SELECT NULL, pid, tid, ts, ts FROM memory)
),
seed(id) AS (
  SELECT s.id FROM src._slice s
  WHERE s.id > :base AND s.id <= :last AND s.trace_id = :trace_id
    AND s.id NOT IN (SELECT id FROM cand) AND s.id NOT IN temp.summary_drop
  UNION ALL SELECT a.id FROM src._attr_marker a WHERE a.id > :base AND a.id <= :last
  UNION ALL SELECT l.launch_id FROM src._gpu_link l WHERE l.id > :base AND l.id <= :last
  UNION ALL SELECT l.op_id FROM src._gpu_link l WHERE l.id > :base AND l.id <= :last
  UNION ALL SELECT f.id FROM src._attr_flop f WHERE f.id > :base AND f.id <= :last
  UNION ALL SELECT a.shape_id FROM src._attr_shape a
  WHERE a.rowid BETWEEN :lo__attr_shape AND :hi__attr_shape AND a.trace_id = :trace_id
  UNION ALL SELECT st.event_id FROM src.step st WHERE st.trace_id = :trace_id
  UNION ALL SELECT s.id FROM src._slice s JOIN first_sig f ON f.name_id = s.name_id
    AND f.input_dims IS s.input_dims AND f.input_types IS s.input_types
  WHERE s.id > :base AND s.id <= :last AND s.trace_id = :trace_id
  UNION ALL SELECT s.id FROM src._slice s
  WHERE s.id > :base AND s.id <= :last AND s.trace_id = :trace_id
    AND s.name_id IN (SELECT id FROM src._string
                      WHERE value IN ('cudaStreamWaitEvent', 'hipStreamWaitEvent'))
  UNION ALL SELECT id FROM holds WHERE id IS NOT NULL AND next_event <= end_ts
  UNION ALL SELECT t.id FROM src._slice_tree t
  WHERE t.id > :base AND t.id <= :last AND t.self_dur > 1000000
  UNION ALL SELECT id FROM cand
  WHERE ts IS NULL OR dur IS NULL OR args LIKE '%"stream"%' OR correlation IN corr
  UNION ALL SELECT min(id) FROM cand WHERE ts % 1000 <> 0
  UNION ALL SELECT :base + 1
  UNION ALL SELECT :last
),
up(id) AS (
  SELECT id FROM seed WHERE id IS NOT NULL
  UNION
  SELECT t.parent_id FROM up JOIN src._slice_tree t ON t.id = up.id
  WHERE t.parent_id IS NOT NULL
)
SELECT id FROM cand WHERE (SELECT n FROM gpu_work) > 0
EXCEPT SELECT id FROM up;

CREATE TEMP TABLE summary_parent(id INTEGER PRIMARY KEY, parent_id INTEGER);

INSERT INTO temp.summary_parent
WITH RECURSIVE walk(id, at) AS (
  SELECT t.id, t.parent_id FROM src._slice_tree t
  WHERE t.id > :base AND t.id <= :last AND t.parent_id IN temp.summary_drop
    AND t.id NOT IN temp.summary_drop
  UNION ALL
  SELECT w.id, p.parent_id FROM walk w JOIN src._slice_tree p ON p.id = w.at
  WHERE w.at IN temp.summary_drop
)
SELECT id, at FROM walk WHERE at IS NULL OR at NOT IN temp.summary_drop;

-- Attribution contexts (_attr_ctx and the operator names and shapes around
-- each, _attr_ctx_op, _attr_ctx_shape: one per distinct stack of operators,
-- modules and annotations an operator ran in).  lib/50_op_tree.sql reads
-- only those of the operators and runtime calls that launched GPU work
-- (report_launch, report_launch_ctx_gpu); the host times per context are
-- summed in _attr_range and _op_stats already.  Kept: those.
CREATE TEMP TABLE summary_ctx(id INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO temp.summary_ctx
SELECT t.ctx_id FROM src._gpu_link l JOIN src._slice_tree t ON t.id = l.launch_id
WHERE l.id > :base AND l.id <= :last AND t.ctx_id IS NOT NULL
UNION
SELECT t.ctx_id FROM src._gpu_link l JOIN src._slice_tree t ON t.id = l.op_id
WHERE l.id > :base AND l.id <= :last AND t.ctx_id IS NOT NULL;

