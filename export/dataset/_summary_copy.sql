-- _summary_copy.sql — a rank's summary (profdb export): for each table of
-- profdb's schema (the new summary database's own, made from profdb's DDL;
-- the exported database, attached as "src", was checked to have the same),
-- which of its rows belong to the trace :trace_id (its event ids are
-- (:base, :last], export/dataset/_traces.sql), as the WHERE clause of the
-- INSERT that copies them (export/export_summary.c; :lo and :hi: the
-- trace's rowid range in the table, _summary_rowids.sql).  Snapshots are not in
-- a summary: their tables copy no rows.  A table no rule covers has a NULL
-- filter, and the export stops (a new table must be given its rule here).
-- Output:
--   name      the table
--   filter    the WHERE clause of its rows of the trace ('0': none)
WITH cols(tbl, col) AS (
  SELECT l.name, c.name FROM main.sqlite_schema l, pragma_table_info(l.name, 'main') c
  WHERE l.type = 'table' AND l.name NOT LIKE 'sqlite\_%' ESCAPE '\')
SELECT l.name,
  CASE
    -- fixed rows: the summary's own, made with its schema (ld_create_schema)
    WHEN l.name IN ('_kind', '_alloc_action', '_copy_kind', '_profdb') THEN '0'
    -- the strings: all of them
    WHEN l.name = '_string' THEN '1'
    -- tables without an index by trace: the trace's rowid range
    -- (_summary_rowids.sql), so that many traces do not scan them each
    WHEN l.name IN ('_op_stats', '_attr_shape', '_attr_range')
      THEN 'rowid BETWEEN :lo AND :hi AND trace_id = :trace_id'
    WHEN l.name IN ('_attr_ctx_op', '_attr_ctx_shape')
      THEN 'rowid BETWEEN :lo AND :hi AND ctx_id > :base AND ctx_id <= :last'
           || ' AND ctx_id IN temp.summary_ctx'
    -- event tables: their rowid range first (no scan of the other ranks),
    -- less the events no report query reads (_summary_drop.sql)
    WHEN EXISTS (SELECT 1 FROM cols WHERE tbl = l.name AND col = 'trace_id')
      AND EXISTS (SELECT 1 FROM cols WHERE tbl = l.name AND col = 'id')
      THEN 'id > :base AND id <= :last AND trace_id = :trace_id AND id NOT IN temp.summary_drop'
    -- runtime-call busy time: less the GPU work's (_summary_busy.sql)
    WHEN l.name = 'cpu_busy' THEN 'trace_id = :trace_id AND class <> ''runtime'''
    WHEN EXISTS (SELECT 1 FROM cols WHERE tbl = l.name AND col = 'trace_id')
      THEN 'trace_id = :trace_id'
    -- tables of snapshots (by snapshot, block or stack)
    WHEN EXISTS (SELECT 1 FROM cols WHERE tbl = l.name AND col = 'snapshot_id')
      OR l.name IN ('_block_history', '_stack_frame') THEN '0'
    -- the post-pass's tables keyed by a CPU slice's event id
    -- (the nesting of the kept slices only: _summary_nest.sql)
    WHEN l.name = '_slice_tree' THEN 'id > :base AND id <= :last AND id NOT IN temp.summary_drop'
    WHEN l.name IN ('_gpu_link', '_attr_path', '_attr_flop', '_attr_marker')
      THEN 'id > :base AND id <= :last'
    -- the contexts of GPU work only (_summary_drop.sql)
    WHEN l.name = '_attr_ctx' THEN 'id > :base AND id <= :last AND id IN temp.summary_ctx'
    WHEN l.name = 'import_log' THEN 'artifact_id = :trace_id'
    WHEN l.name = 'import_stats' THEN 'artifact_id = :trace_id AND artifact = ''trace'''
  END
FROM main.sqlite_schema l
WHERE l.type = 'table' AND l.name NOT LIKE 'sqlite\_%' ESCAPE '\'
ORDER BY l.name;
