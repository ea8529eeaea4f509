-- _summary_nest.sql — after a summary's rows are copied: a kept slice
-- whose parent was a dropped Python frame (_summary_drop.sql) gets the
-- nearest kept slice around it as its parent, so that the report's walks
-- up the nesting (lib/35_sync.sql, lib/38_claim.sql,
-- lib/55_memory_event_op.sql) meet the same kept slices, in the same
-- order, as in the database.  Depths stay those of the database.

UPDATE main._slice_tree
SET parent_id = (SELECT p.parent_id FROM temp.summary_parent p WHERE p.id = _slice_tree.id)
WHERE id IN (SELECT id FROM temp.summary_parent);
