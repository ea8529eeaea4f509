-- Rule: need_shapes
-- (A trace from the legacy exporter is not told to set record_shapes:
-- that exporter writes no shapes whatever the option.)
-- Reads: measure_counts
SELECT 0.1 AS priority, 'need_shapes' AS rule, 'high' AS confidence, 'Input shapes were not ' ||
  'recorded' AS title,
  'CPU operators carry no Input Dims, so fill kernels and ops cannot be related to tensor ' ||
    'shapes.' AS observation,
  CASE WHEN legacy_traces > 0 THEN printf('%d trace(s) come from PyTorch''s legacy ' ||
    '(pre-Kineto) exporter (a bare array of events without categories), which writes no ' ||
      'shapes even with record_shapes=True.', legacy_traces)
       ELSE 'The profiler ran with record_shapes=False.' END AS hypothesis,
  CASE WHEN legacy_traces > 0 THEN 'Profile with torch.profiler.profile(record_shapes=True) ' ||
    'on a PyTorch with Kineto (1.8.1 or later; torch.profiler.kineto_available() is True) and ' ||
      'export with prof.export_chrome_trace(); record_shapes alone does not help with this ' ||
        'exporter.'
       ELSE 'Re-profile with record_shapes=True.' END AS action,
  'Shapes in fill_kernel_sum and in the op tables.' AS expected_impact, 'Re-profile: ' ||
    'fill_kernel_sum.input_dims filled.' AS validation, 1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects, json_object('sections', json_array('cpu_op_self_sum'), 'figures',
      json_object('ops', ops, 'ops_with_shapes', 0)) AS evidence, 0 AS cut_may_explain
FROM measure_counts WHERE traces > 0 AND ops > 0 AND ops_with_shapes = 0;
