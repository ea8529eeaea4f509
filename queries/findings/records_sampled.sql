-- Rule: records_sampled
-- The trace was sampled or filtered after recording (measure_sampled: its
-- operators' ids skip most of the counter): what it calls GPU idle or
-- host time can be work whose records were dropped, so the time findings
-- promise nothing (findings.sql) and this one asks for the trace as the
-- profiler wrote it.
-- Reads: measure_sampled
SELECT 0.2 AS priority, 'records_sampled' AS rule, 'high' AS confidence,
  'The trace''s records were sampled: its idle and busy times are of the records kept' AS title,
  printf('Kineto numbers the operators and annotations it records 1, 2, 3, ...; here most ' ||
    'numbers are missing: %s.', list) AS observation,
  'The trace was thinned after it was recorded (a trace filter or sampler, such as ' ||
    'HolisticTraceAnalysis'' trace_filter, or a script that drops events): the operators, runtime ' ||
      'calls and GPU work it dropped leave gaps that read as idle GPU or as long operators with ' ||
        'no children.' AS hypothesis,
  'Analyse the trace the profiler wrote, before any filter or sampling; keep a sampled trace ' ||
    'for viewing only. Until then the time findings promise nothing.' AS action,
  'The time findings: their savings count only once every record is there.' AS expected_impact,
  'Load the unfiltered trace: records_sampled no longer fires.' AS validation,
  1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
  json_array() AS subjects,
  json_object('sections', json_array('run_summary'), 'figures', json_object('sampled_traces',
    traces)) AS evidence, 0 AS cut_may_explain
FROM measure_sampled WHERE traces > 0;
