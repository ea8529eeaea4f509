-- Why a section has no data when the reason is not the section's own: the
-- report runner shows the reason of the first of a section's Requires
-- tables listed here instead of the section's Empty text (which explains
-- what is missing from a trace that IS loaded).
--
--   report_unavailable(requirement, reason)
--     requirement  a table a section lists under Requires
--     reason       why it is empty, and what to load

CREATE TEMP TABLE report_unavailable(requirement TEXT, reason TEXT);

-- No trace at all (a memory snapshot alone): every trace-derived table.
INSERT INTO report_unavailable
SELECT t.name, 'no profiler trace is loaded (only memory snapshots); load a trace to see this'
FROM (SELECT 'report_trace' AS name UNION ALL SELECT 'report_step' UNION ALL
      SELECT 'report_step_time' UNION ALL SELECT 'report_gpu' UNION ALL
      SELECT 'report_clip_gpu' UNION ALL SELECT 'report_clip_cpu' UNION ALL
      SELECT 'report_op_stats' UNION ALL SELECT 'report_op_thread' UNION ALL
      SELECT 'report_marker' UNION ALL SELECT 'report_sync') t
WHERE NOT EXISTS (SELECT 1 FROM main.trace);

-- No memory snapshot at all (traces alone).
INSERT INTO report_unavailable
SELECT t.name, 'no memory snapshot is loaded; load one (torch.cuda.memory._snapshot() saved as JSON) to see this'
FROM (SELECT 'report_mem_device' AS name UNION ALL SELECT 'report_mem_peak' UNION ALL
      SELECT 'report_mem_live') t
WHERE NOT EXISTS (SELECT 1 FROM main.snapshot);

-- A dataset's report (profdb report DIR): its ranks' summaries keep only
-- the CPU operators the other sections read (export/dataset/_summary_drop.sql),
-- and the critical path walks every one.
INSERT INTO report_unavailable
SELECT t.name, 'a dataset''s summaries keep only the CPU operators the other ' ||
  'sections read, and the critical path needs every one: run profdb report on the rank''s ' ||
  'trace or database'
FROM (SELECT 'report_cp_path' AS name UNION ALL SELECT 'report_cp_path_sum') t
WHERE (SELECT summaries FROM report_built_from);
