-- postpass_id_stats.sql — per new trace: how its CPU operators' and user
-- annotations' External ids run (import_stats op_id_span, op_id_pairs,
-- op_id_skips).  Kineto numbers those records from one counter, so a
-- complete trace holds consecutive ids; a trace thinned after recording
-- skips most (the report's records_sampled, queries/lib/findings/sampled.sql).
-- Computed here because a dataset's summary keeps neither the ids nor every
-- operator: the report and report DIR read these counts.  Bounded: two ends
-- of _slice_by_external_id_kind, then at most its first 2,000 ids.
-- ?1 = the first trace id of this load.
--   trace_id, span, pairs, skips
WITH op_kind AS (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation')),
per_trace AS (
  SELECT t.trace_id,
    (SELECT max(e.external_id) FROM _slice e WHERE e.trace_id = t.trace_id
       AND e.external_id IS NOT NULL AND e.kind IN op_kind)
    - (SELECT min(e.external_id) FROM _slice e WHERE e.trace_id = t.trace_id
       AND e.external_id IS NOT NULL AND e.kind IN op_kind) + 1 AS span,
    (SELECT json_array(count(g), coalesce(sum(g > 1), 0)) FROM (
       SELECT external_id - lag(external_id) OVER (ORDER BY external_id) AS g FROM (
         SELECT DISTINCT e.external_id FROM _slice e WHERE e.trace_id = t.trace_id
           AND e.external_id IS NOT NULL AND e.kind IN op_kind
         ORDER BY e.external_id LIMIT 2000))) AS counts
  FROM trace t WHERE t.trace_id >= ?1
)
SELECT trace_id, span, counts ->> 0 AS pairs, counts ->> 1 AS skips
FROM per_trace WHERE span IS NOT NULL;
