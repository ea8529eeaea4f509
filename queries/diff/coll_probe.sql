-- Title: Collective kernels in a run
-- Question: Does this database hold a collective kernel?  Run by
--   cli/cli_diff_coll.c on each side's own connection (the database as
--   main) before the report's prelude files that build report_coll_call:
--   a side without one gets them run on no trace (:trace_id = -1), which
--   builds the same, empty, tables in a fraction of the time.
-- Columns:
--   has_coll  -  1 when a kernel's name is in kernel_category() 'NCCL/communication' (its first 64 KiB, as the report reads it)
SELECT EXISTS (
  SELECT 1 FROM _string
  WHERE id IN (SELECT name_id FROM _gpu WHERE kind = (SELECT kind FROM _kind WHERE name = 'kernel'))
    AND kernel_category(substr(value, 1, 65536)) = 'NCCL/communication') AS has_coll;
