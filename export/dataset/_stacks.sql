-- Export: number the stacks one snapshot uses 1.. (stack ids are shared by
-- the snapshots of a database), into TEMP table _export_stack
-- (_stack_table.sql).
-- Parameters: :snapshot_id.
-- Output: none (fills temp._export_stack(stack_id, local_id)).
DELETE FROM temp._export_stack;
INSERT INTO temp._export_stack(stack_id, local_id)
SELECT stack_id, row_number() OVER (ORDER BY stack_id)
FROM (SELECT stack_id FROM _segment WHERE snapshot_id = :snapshot_id
      UNION SELECT stack_id FROM _block WHERE snapshot_id = :snapshot_id
      UNION SELECT stack_id FROM _alloc_event WHERE snapshot_id = :snapshot_id)
WHERE stack_id IS NOT NULL;
