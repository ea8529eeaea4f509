-- Chrome export: the traces ec_select() selected (_cx_trace), for the
-- report of a dataset, whose "Open it" commands load them again: their
-- paths, and whether a --rank option names them as the report's findings
-- do (the report's rank is trace.rank: distributedInfo.rank, else 0; the
-- export's is that, else the number in the file or folder name) and in one
-- run (a finding's subjects name no run).
-- Output:
--   path   the trace's path, as its load recorded it
--   plain  1 when its export rank is its report rank and the selection
--          holds one run
SELECT t.path, c.rank = t.rank AND (SELECT count(DISTINCT run) FROM _cx_trace) = 1 AS plain
FROM _cx_trace c JOIN trace t USING (trace_id)
ORDER BY c.run, c.rank, c.trace_id;
