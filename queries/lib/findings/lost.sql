-- Measure: reported traces that lost some of their GPU records (one row).
-- Every kernel or graph launch call should reach the trace as a kernel of
-- the same correlation.  When CUPTI drops records (its activity buffers
-- fill up in a long window) or the profiler stops before they are
-- flushed, launch calls are left with no kernel, and the GPU work they
-- launched reads as idle GPU: the time findings promise nothing
-- (findings.sql) and gpu_records_partly_lost says why.  A trace lost
-- records when at least 20 of its launch calls, and at least 10% of them,
-- have no kernel (issue 44's third unseen audit: an RTX 6000 trace, 378
-- of its 530 launches; on the public traces no kernel launch lacks its
-- kernel but in graph captures, which run nothing by design and are not
-- counted; the fills a cudaMemsetAsync often lacks are not counted
-- either).  The load counts the calls (import_stats kernel_launches,
-- graph_launches, captured_launches, launch_without_gpu:
-- loader/sql/postpass_link_stats.sql),
-- because a dataset's summary keeps neither every runtime call nor the
-- links; a database loaded before those counts is never called lossy.
-- A trace with no GPU record at all is gpu_records_lost's.
-- Builds: measure_records_lost
-- Reads: import_stats, report_trace
CREATE TEMP TABLE measure_records_lost (
  traces INTEGER,  -- reported traces that lost GPU records
  list   TEXT      -- each, with its launch calls and those with no kernel, in words (NULL: none)
) STRICT;
INSERT INTO measure_records_lost
WITH
counts AS (
  SELECT t.trace_id, t.label,
    -- (the launch calls outside graph captures)
    coalesce((SELECT sum(CASE name WHEN 'captured_launches' THEN -value ELSE value END)
       FROM import_stats WHERE artifact_id = t.trace_id AND artifact = 'trace'
         AND name IN ('kernel_launches', 'graph_launches', 'captured_launches')), 0) AS launches,
    coalesce((SELECT value FROM import_stats WHERE artifact_id = t.trace_id
       AND artifact = 'trace' AND name = 'launch_without_gpu'), 0) AS lost
  FROM report_trace t
),
lossy AS (
  SELECT * FROM counts WHERE lost >= 20 AND lost >= 0.1 * launches ORDER BY trace_id
)
SELECT count(*),
  group_concat(printf('%s: %d of its %d kernel launch calls (%.0f%%) have no kernel', label, lost,
    launches, 100.0 * lost / launches), '; ')
FROM lossy;
