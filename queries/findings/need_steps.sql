-- Rule: need_steps
-- Reads: measure_counts
SELECT 0.2 AS priority, 'need_steps' AS rule, 'high' AS confidence, 'The trace has no ' ||
  'ProfilerStep ranges' AS title,
  'Steps cannot be told apart, so warm-up is included and per-step figures cover the whole ' ||
    'trace.' AS observation,
  'prof.step() was not called, or the profiler was used without a schedule.' AS hypothesis,
  'Use torch.profiler.schedule(wait=1, warmup=1, active=3) and call prof.step() at the end of ' ||
    'every iteration.' AS action,
  'Per-step figures and warm-up exclusion.' AS expected_impact, 'Re-profile: steps > 0 in ' ||
    'run_summary.' AS validation, 1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects, json_object('sections', json_array('run_summary'), 'figures',
      json_object('steps', 0)) AS evidence, 1 AS cut_may_explain
FROM measure_counts WHERE traces > 0 AND all_steps = 0;
