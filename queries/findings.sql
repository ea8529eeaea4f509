-- Title: Findings
-- Question: What should be done first?  Every rule below looks at the
--   figures of the report's sections and, when it applies, emits one
--   finding with the numbers behind it.  Each finding bounds what its fix
--   can save: expected_saving_ns of the analysed step time (time rules)
--   or expected_saving_bytes of the reserved memory (memory rules), and
--   the same bound as a percentage.  Findings sort by that saving (one
--   denominator per report, so by absolute saving), and a resource rule
--   fires only when its bound passes the floor (floor_m below): 1% of the
--   step time and 100 us, or 1% of the reserved memory and 8 MiB
--   (dominant_category and fill_kernels on a GPU busy under half the
--   step: their unbounded saving passes it, to say how little is left).
--   A failure or risk (oom, oom_risk) has a fixed priority (90, 60 or
--   30); findings asking for a missing artifact or option come last.  Rules of confidence 'low'
--   are hypotheses.  When a DataLoader's workers set the loop's pace,
--   a faster loop saves nothing (any time rule but data_loading:
--   measure_pace), and a finding cut by that says so.  In a trace whose
--   records were sampled after recording (records_sampled), a time
--   finding that missing records could explain promises nothing, and so
--   in a trace that lost GPU records (gpu_records_partly_lost).  Each rule is one
--   file of queries/findings/ (its README says how to add one); the runner (report/report_findings.c)
--   inserts their rows into report_finding, which this file reads.
-- Columns:
--   priority               -      sort key: expected_saving_pct for resource rules, 90 / 60 / 30 for oom and oom_risk, under 1 for missing artifacts
--   id                     -      rule id (same as rule; kept for older scripts)
--   rule                   -      rule id
--   confidence             -      'high', 'medium' or 'low' (a hypothesis)
--   title                  -      one-line statement
--   observation            -      the numbers
--   hypothesis             -      what probably causes it
--   action                 -      what to change
--   expected_impact        -      what the change could save, in words
--   validation             -      what to re-measure, and the value that means success
--   needs_artifact         -      1 when the finding asks for a missing artifact or option
--   expected_saving_pct    %      upper bound of what the fix saves: share of the analysed step time (time rules) or of the reserved memory (memory rules); 0 when it saves neither
--   expected_saving_ns     ns     the same bound in ns of step time (time rules; empty otherwise)
--   expected_saving_bytes  bytes  the same bound in bytes (memory rules; empty otherwise)
--   subjects               json   what it is about: [{"rank": ...}], [{"kernel": ...}], [{"source": ...}], [{"device": ...}], ...
--   evidence               json   {"sections": [section ids], "figures": {name: value}}: what it rests on
WITH
-- a saving of the loop (any time rule but data_loading itself) above the
-- DataLoader's pace bound (measure_pace: a loop that waits for its batches
-- saves nothing from a faster loop) is cut to it:
-- its impact says so first, its evidence keeps the saving before the cut;
-- a finding that a cut trace could explain (cut_may_explain) gets the cut
-- traces' list (c.list); in a sampled trace (measure_sampled) such a
-- finding says so first (sampled) and its time saving, which may be work
-- whose records were dropped, becomes 0 (unpromised): its evidence keeps
-- the saving of the records kept; so in a trace that lost GPU records
-- (measure_records_lost: lossy)
f AS (
  SELECT r.*, r.rowid AS rid,
    coalesce(r.rule <> 'data_loading' AND r.expected_saving_ns > p.bound_ns, 0) AS paced,
    s.traces IS NOT NULL AS sampled, lo.traces IS NOT NULL AS lossy,
    (s.traces IS NOT NULL OR lo.traces IS NOT NULL) AND coalesce(r.expected_saving_ns > 0, 0)
      AS unpromised,
    p.bound_ns, p.waited, p.calls, p.wait_ns, t.job_step_ns, c.list AS cut_list,
    CASE WHEN c.list IS NULL THEN r.evidence
         ELSE json_set(r.evidence, '$.truncated', c.list) END AS cut_evidence
  FROM report_finding r CROSS JOIN measure_pace p CROSS JOIN measure_time t
  LEFT JOIN measure_cut c ON c.traces > 0 AND r.cut_may_explain
  LEFT JOIN measure_sampled s ON s.traces > 0 AND r.cut_may_explain
  LEFT JOIN measure_records_lost lo ON lo.traces > 0 AND r.cut_may_explain
)
SELECT CASE WHEN f.paced THEN min(f.priority, round(100.0 * f.bound_ns / f.job_step_ns, 1))
            ELSE f.priority END AS priority,
  f.rule AS id, f.rule,
  -- a finding that a cut or sampled trace could explain says so first and
  -- loses one level of confidence
  CASE WHEN f.cut_list IS NULL AND NOT f.sampled AND NOT f.lossy THEN f.confidence
       WHEN f.confidence = 'high' THEN 'medium' ELSE 'low' END AS confidence,
  f.title,
  CASE WHEN f.sampled THEN 'The trace''s records were sampled (records_sampled): this time may '
    || 'be work whose records were dropped. ' ELSE '' END ||
  CASE WHEN f.lossy THEN 'The trace lost GPU records (gpu_records_partly_lost): this time may '
    || 'be GPU work whose records were lost. ' ELSE '' END ||
  CASE WHEN f.cut_list IS NULL THEN f.observation
       ELSE printf('The trace is cut (%s; profdb load exits 3): the events after the cut are '
         || 'missing, the GPU work first (Kineto writes it after the CPU events), so the cut may '
         || 'explain this. ', f.cut_list) || f.observation END AS observation,
  f.hypothesis, f.action,
  CASE WHEN f.unpromised AND f.sampled
       THEN 'None promised while the trace''s records are sampled (records_sampled). On the '
         || 'records kept: ' || f.expected_impact
       WHEN f.unpromised
       THEN 'None promised while the trace lacks GPU records (gpu_records_partly_lost). On the '
         || 'records kept: ' || f.expected_impact
       WHEN f.paced
       THEN printf('None while the DataLoader sets the pace: the loop waits for the next batch '
         || 'in %d of its %d steady next() calls (%s per rank step), so a faster loop only '
         || 'waits longer for its data (data_loading comes first). Once the data keeps up: ',
         f.waited, f.calls, profdb_fmt_ns(f.wait_ns)) || f.expected_impact
       ELSE f.expected_impact END AS expected_impact,
  f.validation, f.needs_artifact,
  CASE WHEN f.unpromised THEN 0 WHEN f.paced THEN round(100.0 * f.bound_ns / f.job_step_ns, 2)
       ELSE f.expected_saving_pct END AS expected_saving_pct,
  CAST(round(CASE WHEN f.unpromised THEN 0 WHEN f.paced THEN f.bound_ns
                  ELSE f.expected_saving_ns END) AS INTEGER) AS expected_saving_ns,
  f.expected_saving_bytes, f.subjects,
  CASE WHEN f.unpromised
       THEN json_set(f.cut_evidence, iif(f.sampled, '$.figures.saving_before_sampled_ns',
         '$.figures.saving_before_lost_ns'), CAST(round(f.expected_saving_ns) AS INTEGER))
       WHEN f.paced
       THEN json_set(f.cut_evidence, '$.figures.saving_before_pace_ns',
         CAST(round(f.expected_saving_ns) AS INTEGER), '$.figures.pace_bound_ns',
         CAST(round(f.bound_ns) AS INTEGER))
       ELSE f.cut_evidence END AS evidence
FROM f
-- (rid: a rule's rows in the order it returns them)
ORDER BY 1 DESC, coalesce(CASE WHEN f.unpromised THEN 0 WHEN f.paced THEN f.bound_ns
                               ELSE f.expected_saving_ns END,
  f.expected_saving_bytes, 0) DESC, f.rule, f.rid;
