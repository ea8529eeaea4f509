-- Title: What was compared
-- Question: How many traces (ranks) and analysed job steps does each run
--   have, on which devices?  Differences here qualify every other figure.
--   A job step is step k on every rank (the report's unit), so a job and
--   its replica with 8 times the ranks read the same job steps; rank_steps
--   counts one per rank and step.
-- Requires: diff_run
-- Empty: neither database has a profiler trace
-- Columns:
--   side         -      before (base database) or after (main database)
--   traces       count  traces (ranks)
--   job_steps    count  analysed job steps (step k on every rank; a run without steps: 1)
--   rank_steps   count  analysed steps of all ranks, one per rank and step (a trace without steps counts as one)
--   total_ns     ns     sum of the analysed steps' times, all ranks
--   devices      -      GPU models in the traces' deviceProperties
SELECT d.side, coalesce(r.traces, 0) AS traces, coalesce(r.job_steps, 0) AS job_steps,
  coalesce(r.steps, 0) AS rank_steps, coalesce(r.wall_ns, 0) AS total_ns, r.devices
FROM diff_sides d LEFT JOIN diff_run r USING (side) ORDER BY d.ord;
