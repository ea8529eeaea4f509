-- Rule: gpu_outside_steps
-- Reads: measure_counts
SELECT 0.2 AS priority, 'gpu_outside_steps' AS rule, 'high' AS confidence, 'No GPU work in ' ||
  'the analysed steps' AS title,
  printf('%d kernels, copies or fills ran, all outside the analysed steps (in the warm-up ' ||
    'step or outside ProfilerStep ranges).', gpu_all) AS observation,
  'The profiled window holds too few steps, or the last step was cut short when profiling ' ||
    'stopped.' AS hypothesis,
  'Re-run profdb report with --include-warmup, or profile more steps (schedule(wait=1, ' ||
    'warmup=1, active=3)).' AS action,
  'The GPU sections.' AS expected_impact, 'Re-run: kernels in gpu_kernel_sum.' AS validation,
    1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects, json_object('sections', json_array('run_summary'), 'figures',
      json_object('gpu_activities', gpu_all, 'analysed', gpu)) AS evidence, 1 AS cut_may_explain
FROM measure_counts WHERE traces > 0 AND gpu = 0 AND gpu_all > 0;
