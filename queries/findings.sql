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
--   are hypotheses.  Each rule is one file of queries/findings/ (its
--   README says how to add one); the runner (report/report_findings.c)
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
SELECT r.priority, r.rule AS id, r.rule,
  -- a finding that a cut trace could explain (cut_may_explain) says so
  -- first and loses one level of confidence
  CASE WHEN c.list IS NULL THEN r.confidence
       WHEN r.confidence = 'high' THEN 'medium' ELSE 'low' END AS confidence,
  r.title,
  CASE WHEN c.list IS NULL THEN r.observation
       ELSE printf('The trace is cut (%s; profdb load exits 3): the events after the cut are '
         || 'missing, the GPU work first (Kineto writes it after the CPU events), so the cut may '
         || 'explain this. ', c.list) || r.observation END AS observation,
  r.hypothesis, r.action,
  r.expected_impact, r.validation, r.needs_artifact, r.expected_saving_pct,
  CAST(round(r.expected_saving_ns) AS INTEGER) AS expected_saving_ns, r.expected_saving_bytes,
  r.subjects,
  CASE WHEN c.list IS NULL THEN r.evidence
       ELSE json_set(r.evidence, '$.truncated', c.list) END AS evidence
FROM report_finding r
LEFT JOIN measure_cut c ON c.traces > 0 AND r.cut_may_explain
-- (rowid: a rule's rows in the order it returns them)
ORDER BY r.priority DESC, coalesce(r.expected_saving_ns, r.expected_saving_bytes, 0) DESC, r.rule,
  r.rowid;
