-- postpass_id_stats.sql — per new trace: how its CPU operators' and user
-- annotations' External ids run (import_stats op_id_span, op_id_pairs,
-- op_id_skips).  Kineto numbers those records from one counter, so a
-- complete trace holds consecutive ids; a trace thinned after recording
-- skips most (the report's records_sampled, queries/lib/findings/sampled.sql).
-- Computed here because a dataset's summary keeps neither the ids nor every
-- operator: the report and report DIR read these counts.  Bounded: each
-- trace's ids are read in the order of _slice_by_external_id_kind from
-- either end, to the first operator's, and then its first 2,000 distinct
-- ids (GROUP BY in the index's order: no sort, no read past them).
-- ?1 = the first trace id of this load.
--   trace_id, span, pairs, skips
WITH op_kind AS (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation')),
per_trace AS MATERIALIZED (  -- (once: span is read twice below)
  SELECT t.trace_id,
    (SELECT e.external_id FROM _slice e WHERE e.trace_id = t.trace_id
       AND e.external_id IS NOT NULL AND e.kind IN op_kind
       ORDER BY e.external_id DESC LIMIT 1)
    - (SELECT e.external_id FROM _slice e WHERE e.trace_id = t.trace_id
       AND e.external_id IS NOT NULL AND e.kind IN op_kind
       ORDER BY e.external_id LIMIT 1) + 1 AS span,
    (SELECT json_array(count(g), coalesce(sum(g > 1), 0)) FROM (
       SELECT external_id - lag(external_id) OVER (ORDER BY external_id) AS g FROM (
         SELECT e.external_id FROM _slice e WHERE e.trace_id = t.trace_id
           AND e.external_id IS NOT NULL AND e.kind IN op_kind
         GROUP BY e.external_id ORDER BY e.external_id LIMIT 2000))) AS counts
  FROM trace t WHERE t.trace_id >= ?1
)
SELECT trace_id, span, counts ->> 0 AS pairs, counts ->> 1 AS skips
FROM per_trace WHERE span IS NOT NULL;
