-- merge_stats_add.sql — on the original after an append, for table ?1
-- whose statistics are kept (merge_stale_stats.sql said not stale): add
-- the side's row counts, from the side's own ANALYZE, to the first number
-- of each of the table's sqlite_stat1 rows (per index: a partial index
-- counts its own rows), so that the planner's row estimates include the
-- appended rows and the next append's staleness test compares with the
-- table's real size.  The per-key averages after it are left as analyzed.
UPDATE main.sqlite_stat1 AS m
SET stat = (CAST(m.stat AS INTEGER) + CAST(s.stat AS INTEGER))
  || substr(m.stat, instr(m.stat || ' ', ' '))
FROM side.sqlite_stat1 AS s
WHERE m.tbl = ?1 AND s.tbl = m.tbl AND s.idx IS m.idx;
