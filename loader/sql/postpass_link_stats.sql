-- postpass_link_stats.sql — per new trace: GPU work with no runtime call
-- of the same correlation (import_stats gpu_without_launch).  Unmatched
-- flows are counted from keys gathered while parsing (flows.c), or by
-- postpass_flow_stats.sql.  ?1 = the first trace id of this load.
--   trace_id, unlinked
SELECT g.trace_id, count(*) AS unlinked
FROM _gpu g JOIN _gpu_link l ON l.id = g.id
WHERE g.trace_id >= ?1 AND l.launch_id IS NULL
  AND g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
GROUP BY g.trace_id;
