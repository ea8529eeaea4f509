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
-- many ids, and at least 20% of the consecutive pairs of its first 2,000
-- ids skip (one long unrecorded stretch, or the tiles of a trace scaled by
-- bench/scale_trace.py, is not sampling).  The load counts the ids
-- (import_stats op_id_span, op_id_pairs, op_id_skips:
-- loader/sql/postpass_id_stats.sql), because a dataset's summary keeps
-- neither the ids nor every operator; a database loaded before those
-- counts is never called sampled.
-- Builds: measure_sampled
-- Reads: event_count, import_stats, report_trace
CREATE TEMP TABLE measure_sampled (
  traces INTEGER,  -- reported traces whose records were sampled
  list   TEXT      -- each, with its records, the ids they span and the pairs that skip, in words
                   --   (NULL: none)
) STRICT;
INSERT INTO measure_sampled
WITH
-- per reported trace: its operator and annotation records, the ids they
-- span, and the pairs of its first ids and those that skip
ids AS (
  SELECT t.trace_id, t.label,
    (SELECT sum(c.events) FROM event_count c
     WHERE c.trace_id = t.trace_id AND c.kind IN ('cpu_op', 'user_annotation')) AS records,
    (SELECT value FROM import_stats WHERE artifact_id = t.trace_id AND artifact = 'trace'
       AND name = 'op_id_span') AS span,
    (SELECT value FROM import_stats WHERE artifact_id = t.trace_id AND artifact = 'trace'
       AND name = 'op_id_pairs') AS pairs,
    coalesce((SELECT value FROM import_stats WHERE artifact_id = t.trace_id
       AND artifact = 'trace' AND name = 'op_id_skips'), 0) AS skips
  FROM report_trace t
),
sampled AS (
  SELECT * FROM ids
  WHERE records >= 100 AND span >= 10 * records AND skips >= 0.2 * pairs
  ORDER BY trace_id
)
SELECT count(*),
  group_concat(printf('%s holds %d operator and annotation records whose ids span %d, and %d of ' ||
    'its %s%d consecutive pairs skip ids', label, records, span, skips,
    CASE WHEN pairs >= 1999 THEN 'first ' ELSE '' END, pairs), '; ')
FROM sampled;
