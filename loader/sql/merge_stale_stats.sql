-- merge_stale_stats.sql — on the original after an append: does table ?1,
-- which just received ?2 rows, need a new ANALYZE?  Yes when it has no
-- statistics yet, or when the rows added exceed a tenth of the rows its
-- statistics count (the first number of each sqlite_stat1 row): below
-- that the planner's estimates are unchanged in effect, and re-analyzing
-- would read the whole table, which an append must not cost.
--   stale       1 or 0
SELECT coalesce(max(CAST(stat AS INTEGER)), 0) < 10 * ?2 FROM main.sqlite_stat1 WHERE tbl = ?1;
