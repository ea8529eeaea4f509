-- Why a diff section has no data when the reason is not the section's own
-- (the report runner shows the reason of the first of a section's Requires
-- tables listed here instead of its Empty text): a side without any
-- profiler trace, or without any memory snapshot.
--
--   report_unavailable(requirement, reason)
--     requirement  a table a section lists under Requires
--     reason       why it is empty, and what to load

CREATE TEMP TABLE report_unavailable(requirement TEXT, reason TEXT);

INSERT INTO report_unavailable
SELECT t.name, CASE
    WHEN NOT EXISTS (SELECT 1 FROM main.trace) AND NOT EXISTS (SELECT 1 FROM base.trace)
      THEN 'neither run has a profiler trace (memory snapshots only)'
    WHEN NOT EXISTS (SELECT 1 FROM base.trace) THEN 'the before run has no profiler trace'
    ELSE 'the after run has no profiler trace' END
FROM (SELECT 'diff_run' AS name UNION ALL SELECT 'diff_gpu_name' UNION ALL
      SELECT 'diff_kernel' UNION ALL SELECT 'diff_op_step') t
WHERE NOT EXISTS (SELECT 1 FROM main.trace) OR NOT EXISTS (SELECT 1 FROM base.trace);

INSERT INTO report_unavailable
SELECT t.name, CASE
    WHEN NOT EXISTS (SELECT 1 FROM main.snapshot) AND NOT EXISTS (SELECT 1 FROM base.snapshot)
      THEN 'neither run has a memory snapshot'
    WHEN NOT EXISTS (SELECT 1 FROM base.snapshot) THEN 'the before run has no memory snapshot'
    ELSE 'the after run has no memory snapshot' END
FROM (SELECT 'diff_mem' AS name UNION ALL SELECT 'diff_alloc_source') t
WHERE NOT EXISTS (SELECT 1 FROM main.snapshot) OR NOT EXISTS (SELECT 1 FROM base.snapshot);
