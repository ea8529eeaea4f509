-- postpass_flow_stats.sql — one trace's flow starts with no finish and
-- finishes with no start, grouped by (category, id) (import_stats
-- flow_start_unmatched, flow_end_unmatched): for the traces flows.c
-- leaves to SQL (text flow ids).  ?1 = the trace id.
--   starts, finishes
SELECT coalesce(sum(s AND NOT f), 0), coalesce(sum(f AND NOT s), 0)
FROM (SELECT max(ph = 's') AS s, max(ph = 'f') AS f FROM _flow
      WHERE trace_id = ?1 GROUP BY cat_id, flow_id);
