-- Title: What was compared
-- Question: How many traces (ranks) and analysed steps does each run
--   have, on which devices?  Differences here qualify every other figure.
-- Requires: diff_run
-- Empty: neither database has a profiler trace
-- Columns:
--   side         -      before (base database) or after (main database)
--   traces       count  traces (ranks)
--   steps        count  analysed steps, all ranks (a trace without steps counts as one)
--   total_ns     ns     sum of the analysed steps' times
--   devices      -      GPU models in the traces' deviceProperties
SELECT d.side, coalesce(r.traces, 0) AS traces, coalesce(r.steps, 0) AS steps,
  coalesce(r.wall_ns, 0) AS total_ns, r.devices
FROM diff_sides d LEFT JOIN diff_run r USING (side) ORDER BY d.ord;
