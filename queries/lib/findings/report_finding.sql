-- Measure: the findings table.  Every rule of queries/findings/ inserts its
--   rows here (report_findings.c); queries/findings.sql reads it as the
--   report's findings section.  A rule's SELECT returns these columns, in
--   this order.
-- Builds: report_finding
-- Reads:
CREATE TEMP TABLE report_finding (
  priority              REAL,    -- sort key: expected_saving_pct for resource rules, 90 / 60 / 30
                                 --   for oom and oom_risk, under 1 for missing artifacts
  rule                  TEXT,    -- rule id: the rule's file name
  confidence            TEXT,    -- 'high', 'medium' or 'low' (a hypothesis), before a cut trace
                                 --   lowers it (findings.sql)
  title                 TEXT,    -- one-line statement
  observation           TEXT,    -- the numbers
  hypothesis            TEXT,    -- what probably causes it
  action                TEXT,    -- what to change
  expected_impact       TEXT,    -- what the change could save, in words
  validation            TEXT,    -- what to re-measure, and the value that means success
  needs_artifact        INTEGER, -- 1 when the finding asks for a missing artifact or option
  expected_saving_pct   ANY,     -- upper bound of the saving: % of the job step (time rules) or of
                                 --   the reserved memory (memory rules); 0 when it saves neither
  expected_saving_ns    ANY,     -- the same bound in ns of step time, unrounded (time rules; NULL
                                 --   otherwise)
  expected_saving_bytes ANY,     -- the same bound in bytes (memory rules; NULL otherwise)
  subjects              TEXT,    -- JSON array: what it is about ([{"rank": ...}], ...)
  evidence              TEXT,    -- JSON: {"sections": [...], "figures": {...}}: what it rests on
  cut_may_explain       INTEGER  -- 1: missing events of a cut trace could explain the finding
                                 --   (findings.sql then says so and lowers the confidence)
) STRICT;
