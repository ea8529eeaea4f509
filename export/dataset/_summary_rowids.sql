-- _summary_rowids.sql — where each trace's rows lie in the five
-- attribution tables that have no index by trace, so that the summaries
-- of a database of many traces (profdb export DB) copy each trace's rows
-- from a rowid range instead of scanning these tables once per trace
-- (_summary_copy.sql's :lo and :hi).  Run once per export, on the exported
-- database's connection (export/export.c), before the first summary; the
-- rows of one trace are written together by the load, so a range holds
-- few rows of other traces (the copy's filter still drops them).
-- Output: temp.summary_rowids
--   tbl       the table
--   trace_id  the trace
--   lo, hi    the smallest and largest rowid of the trace's rows there
CREATE TEMP TABLE summary_rowids(tbl TEXT NOT NULL, trace_id INTEGER NOT NULL,
  lo INTEGER NOT NULL, hi INTEGER NOT NULL, PRIMARY KEY (tbl, trace_id)) WITHOUT ROWID;
INSERT INTO temp.summary_rowids
SELECT '_op_stats', trace_id, min(rowid), max(rowid) FROM _op_stats GROUP BY trace_id
UNION ALL
SELECT '_attr_shape', trace_id, min(rowid), max(rowid) FROM _attr_shape GROUP BY trace_id
UNION ALL
SELECT '_attr_range', trace_id, min(rowid), max(rowid) FROM _attr_range GROUP BY trace_id
UNION ALL
-- a context is the event id of an operator call (_slice), which has the trace
SELECT '_attr_ctx_op', s.trace_id, min(c.rowid), max(c.rowid)
FROM _attr_ctx_op c JOIN _slice s ON s.id = c.ctx_id GROUP BY s.trace_id
UNION ALL
SELECT '_attr_ctx_shape', s.trace_id, min(c.rowid), max(c.rowid)
FROM _attr_ctx_shape c JOIN _slice s ON s.id = c.ctx_id GROUP BY s.trace_id;
