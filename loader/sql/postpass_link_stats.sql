-- postpass_link_stats.sql — per new trace: GPU work with no runtime call
-- of the same correlation, flow starts with no finish and finishes with no
-- start (import_stats gpu_without_launch, flow_start_unmatched,
-- flow_end_unmatched).  ?1 = the first trace id of this load.
--   trace_id, unlinked, starts, finishes
SELECT trace_id, sum(unlinked), sum(starts), sum(finishes) FROM (
  SELECT g.trace_id, count(*) AS unlinked, 0 AS starts, 0 AS finishes
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id
  WHERE g.trace_id >= ?1 AND l.launch_id IS NULL
    AND g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
  GROUP BY g.trace_id
  UNION ALL
  -- unmatched flow starts and finishes, in one grouping of the flows
  SELECT trace_id, 0, sum(s AND NOT f), sum(f AND NOT s)
  FROM (SELECT trace_id, max(ph = 's') AS s, max(ph = 'f') AS f FROM _flow
        WHERE trace_id >= ?1 GROUP BY trace_id, cat_id, flow_id)
  GROUP BY trace_id)
GROUP BY trace_id;
