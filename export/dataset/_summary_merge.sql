-- _summary_merge.sql — the report of a dataset (profdb report DIR): for each
-- table of one rank's summary database, attached as "r" to the job's
-- temporary database, the INSERT that appends its rows with their ids
-- moved past the rows already there (export/export_summary.c).
-- Ids: event ids (and the _attr_* ids made from them), trace ids and
-- artifact ids are offset by :event_base / :trace_base (bound when the
-- statement runs); string ids are mapped through temp.summary_string (the
-- job database interns each string once, as a load of all ranks does);
-- other integers (pids, correlations, External ids, ...) are the trace's
-- own values and are copied as they are.  The tables and their columns are
-- main's, the job database made from profdb's own schema: a summary is
-- read only after it is checked to have the same (schema_check.sql), and
-- nothing of its own schema is read here.  Tables of fixed rows (_kind,
-- _alloc_action, _copy_kind, _profdb) and _string are not appended, nor
-- _summary_index (the indexes to build once every summary is appended).
-- Output:
--   name      the table
--   columns   its columns in order, each quoted: "a", "b", ...
--   exprs     the value of each column, in the same order
SELECT l.name,
  (SELECT group_concat(format('"%w"', c.name), ', ') FROM pragma_table_info(l.name, 'main') c),
  (SELECT group_concat(
     CASE
       WHEN c.name IN ('name_id', 'cat_id', 'raw_cat_id', 'kernel_id', 'filename_id', 'source_id')
         THEN format('(SELECT m.new FROM temp.summary_string m WHERE m.old = "%w")', c.name)
       WHEN c.name IN ('trace_id', 'artifact_id') THEN format('"%w" + :trace_base', c.name)
       WHEN c.name IN ('id', 'parent_id', 'event_id', 'launch_id', 'op_id', 'ctx_id', 'path_id',
                       'flop_id', 'shape_id', 'module_path_id', 'annotation_path_id')
         THEN format('"%w" + :event_base', c.name)
       ELSE format('"%w"', c.name)
     END, ', ') FROM pragma_table_info(l.name, 'main') c)
FROM main.sqlite_schema l
WHERE l.type = 'table' AND l.name NOT LIKE 'sqlite\_%' ESCAPE '\'
  AND l.name NOT IN ('_string', '_kind', '_alloc_action', '_copy_kind', '_profdb',
                     '_summary_index')
ORDER BY l.name;
