-- Measure: reported traces whose records were sampled or filtered after
-- recording (one row).
-- Kineto numbers the operators and user annotations it records from one
-- counter (args "External id"), so a complete trace holds a run of
-- consecutive ids: on the public traces at most 0.3% of consecutive pairs
-- of recorded ids skip one, and the ids span at most 2.9x the records.  A
-- trace thinned after the fact (HolisticTraceAnalysis' trace_filter
-- samples, a script that drops events) keeps a scattered subset: on HTA's
-- sampled_rank-* 2,402 records span 170,000 ids and 62% of the pairs
-- skip.  Its runtime calls and GPU work are thinned with it, so its idle
-- time may be work whose records were dropped: the time findings promise
-- nothing (findings.sql) and records_sampled says why.  A trace is
-- sampled when it has at least 100 records, they span at least 10x as
-- many ids, and at least 20% of the consecutive pairs of its first 10,000
-- ids skip (one long unrecorded stretch, or tiles of a trace scaled by
-- bench/scale_trace.py, is not sampling).  The first two tests read the
-- counts and two ends of an index; the pairs, a bounded range of it, only
-- past them.
-- Builds: measure_sampled
-- Reads: _kind, _slice, event_count, report_trace
CREATE TEMP TABLE measure_sampled (
  traces INTEGER,  -- reported traces whose records were sampled
  list   TEXT      -- each, with its records, the ids they span and the pairs that skip, in words
                   --   (NULL: none)
) STRICT;
INSERT INTO measure_sampled
WITH
op_kind AS (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation')),
-- per reported trace: its operator and annotation records, and the span
-- of their ids (each end read from _slice_by_external_id_kind)
id_span AS (
  SELECT t.trace_id, t.label,
    (SELECT sum(c.events) FROM event_count c
     WHERE c.trace_id = t.trace_id AND c.kind IN ('cpu_op', 'user_annotation')) AS records,
    (SELECT max(e.external_id) FROM _slice e WHERE e.trace_id = t.trace_id
       AND e.external_id IS NOT NULL AND e.kind IN op_kind)
    - (SELECT min(e.external_id) FROM _slice e WHERE e.trace_id = t.trace_id
       AND e.external_id IS NOT NULL AND e.kind IN op_kind) + 1 AS ids
  FROM report_trace t
),
suspect AS (SELECT * FROM id_span WHERE records >= 100 AND ids >= 10 * records),
-- the suspect traces' first 10,000 distinct ids (uniform sampling shows in
-- any stretch; a bounded read): consecutive pairs, and those that skip
pairs AS (
  SELECT s.trace_id,
    (SELECT json_array(count(g), sum(g > 1)) FROM (
       SELECT external_id - lag(external_id) OVER (ORDER BY external_id) AS g FROM (
         SELECT DISTINCT e.external_id FROM _slice e WHERE e.trace_id = s.trace_id
           AND e.external_id IS NOT NULL AND e.kind IN op_kind
         ORDER BY e.external_id LIMIT 10000))) AS counts
  FROM suspect s
),
sampled AS (
  SELECT s.label, s.records, s.ids, p.counts ->> 0 AS pairs, p.counts ->> 1 AS skips
  FROM suspect s JOIN pairs p USING (trace_id) WHERE p.counts ->> 1 >= 0.2 * (p.counts ->> 0)
  ORDER BY s.trace_id
)
SELECT count(*),
  group_concat(printf('%s holds %d operator and annotation records whose ids span %d, and %d of ' ||
    'its %s%d consecutive pairs skip ids', label, records, ids, skips,
    CASE WHEN pairs >= 9999 THEN 'first ' ELSE '' END, pairs), '; ')
FROM sampled;
