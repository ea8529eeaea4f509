-- Export: the TEMP table that numbers the stacks of the snapshot being
-- exported (filled by _stacks.sql).  Created once, before the snapshots
-- are listed: a CREATE while that listing runs would stop it.
-- Output: none.
CREATE TEMP TABLE IF NOT EXISTS _export_stack(
  -- the stack in this database
  stack_id INTEGER PRIMARY KEY,
  -- its number in the exported snapshot
  local_id INTEGER NOT NULL
);
