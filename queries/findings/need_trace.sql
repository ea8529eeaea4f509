-- Rule: need_trace
-- Reads: measure_counts
SELECT 0.3 AS priority, 'need_trace' AS rule, 'high' AS confidence, 'A profiler trace would ' ||
  'show where time goes' AS title,
  'The database has a memory snapshot but no profiler trace.' AS observation,
  'Time questions (step time, GPU utilization, kernels, CPU ops) need a torch.profiler trace.' AS
    hypothesis,
  'Profile a few steps with torch.profiler.profile(activities=[ProfilerActivity.CPU, ' ||
    'ProfilerActivity.CUDA], schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)) ' ||
      'and prof.export_chrome_trace("trace.json.gz"), then profdb load trace.json.gz -o ' ||
        'run.db.' AS action,
  'The time sections and findings.' AS expected_impact, 'Re-run profdb report: the time ' ||
    'sections are filled.' AS validation, 1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects, json_object('sections', json_array('run_summary'), 'figures',
      json_object('traces', 0)) AS evidence, 0 AS cut_may_explain
FROM measure_counts WHERE traces = 0 AND mem_devices > 0;
