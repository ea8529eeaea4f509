-- Chrome export: the traces ec_select() selected (_cx_trace), for the
-- report of a dataset, whose "Open it" commands load them again: their
-- paths, and whether a --rank option names them as the report's findings
-- do: in one run (a finding's subjects name no run), each trace's rank one
-- that a load of its path gives again (not load --rank N: trace.rank_source
-- 'option'; docs/definitions.md#ranks).
-- Output:
--   path   the trace's path, as its load recorded it
--   plain  1 when the selection holds one run and no rank given by --rank
SELECT t.path, t.rank_source <> 'option'
  AND (SELECT count(DISTINCT run) FROM _cx_trace) = 1 AS plain
FROM _cx_trace c JOIN trace t USING (trace_id)
ORDER BY c.run, c.rank, c.trace_id;
