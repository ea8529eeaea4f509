-- Rule: unanalysed_device
-- Reads: measure_counts
SELECT 0.2 AS priority, 'unanalysed_device' AS rule, 'high' AS confidence, 'The device events ' ||
  'are not CUDA/ROCm kernels' AS title,
  printf('The trace has no CUDA/ROCm GPU events; its %s are kept (event table, kind ' ||
    'cpu_other) but not analysed as GPU work.', other_device) AS observation,
  'The run used another accelerator (e.g. MTIA), whose events the GPU sections do not model.' AS
    hypothesis,
  'Query them directly: SELECT name, count(*), sum(dur) FROM event WHERE cat = ' ||
    '''<category>'' GROUP BY name ORDER BY 3 DESC.' AS action,
  'The device side of the run.' AS expected_impact,
    'None: the CPU sections still apply.' AS validation, 0 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects, json_object('sections', json_array('run_summary'), 'figures',
      json_object('other_device', other_device)) AS evidence, 0 AS cut_may_explain
FROM measure_counts WHERE traces > 0 AND gpu_all = 0 AND other_device IS NOT NULL;
