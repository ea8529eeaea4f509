-- _summary_drop.sql — the events of the trace :trace_id (ids in (:base,
-- :last]) that its rank's summary leaves out because no report query reads
-- them (loader/export_summary.c; the rules of _summary_copy.sql), and the
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
--     legacy exporter's (findings.sql) stays as in the database;
-- and read by no query: module and source attribution (the load's _attr_*
-- tables hold it); an instant's operator (lib/55_memory_event_op.sql
-- leaves frames out); mem_peak_context.sql (snapshots are not in
-- summaries).
-- Flows: read only to count ac2g flows in traces without GPU work
-- (findings.sql); kept there.  Metadata events: read by no query (their
-- process and thread names are in the process and thread tables).
-- Of each of the three, also kept:
--   - the first with sub-µs digits: whether HTA rounds the trace's times
--     (lib/11_hta.sql, --scope hta) stays as in the database;
-- and of all events, the trace's first and last (ids :base + 1, :last):
-- the merge numbers a rank's events from its first to its last, so every
-- kept event has the id a load of all ranks gives it.
-- Output:
--   temp.summary_drop    the event ids left out
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
  UNION ALL SELECT min(id) FROM flow WHERE ts % 1000 <> 0
  UNION ALL SELECT min(id) FROM meta WHERE ts % 1000 <> 0
  UNION ALL SELECT :base + 1
  UNION ALL SELECT :last
)
SELECT id FROM (SELECT id FROM frame UNION ALL SELECT id FROM flow UNION ALL SELECT id FROM meta)
EXCEPT SELECT id FROM kept;

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
