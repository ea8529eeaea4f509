-- Rule: need_gpu_activity
-- No GPU work: the profiler recorded the CPU only, or the traces come from
-- PyTorch's legacy (pre-Kineto) exporter, which never writes kernels (its
-- cpu_to_cuda flows point at per-operator CUDA ranges, not at GPU records
-- that were lost: not gpu_records_lost).
-- Reads: measure_counts, measure_cut
SELECT 0.2 AS priority, 'need_gpu_activity' AS rule, 'high' AS confidence, 'The trace has no ' ||
  'GPU activity' AS title,
  'No CUDA/ROCm kernels, copies or fills anywhere in the trace' ||
    CASE WHEN n.legacy_traces = n.traces THEN printf(': it comes from PyTorch''s legacy ' ||
      'autograd-profiler exporter (a bare JSON array of events without categories), which ' ||
        'never writes device kernels%s.', CASE WHEN n.ac2g_flows > 0 THEN printf('; its %d ' ||
          'cpu_to_cuda flow events point at per-operator CUDA time ranges ("CUDA functions"), not ' ||
            'at kernels', n.ac2g_flows) ELSE '' END)
    ELSE '.' END AS observation,
  CASE WHEN n.legacy_traces = n.traces THEN 'The legacy exporter ' ||
    '(torch.autograd.profiler.profile(...).export_chrome_trace without Kineto) records ' ||
      'operators only, with use_cuda=True each operator''s CUDA time as one range: the GPU ' ||
        'records were not lost, the format never holds kernels, copies or fills.'
    WHEN cut.traces > 0 THEN 'The file is cut before its GPU events: Kineto writes every ' ||
    'CPU event first, so a trace cut early (a job killed while writing, an incomplete copy) ' ||
      'can hold CPU events only.'
       ELSE 'The profiler recorded the CPU only (or the run did not use a GPU).' END AS hypothesis,
  CASE WHEN n.legacy_traces = n.traces THEN 'Re-record with torch.profiler.profile(' ||
    'activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) (Kineto), which writes the ' ||
      'kernels, copies and fills with the launches that ran them.'
    WHEN cut.traces > 0 THEN 'Load the complete file (copy it again, or let the job finish ' ||
    'writing it); if the complete file has no GPU events either, profile with ' ||
      'activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA].'
       ELSE 'Profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] to see GPU ' ||
         'time, utilization and launch overhead.' END AS action,
  'The GPU sections.' AS expected_impact,
    'Re-profile: kernels appear in run_summary.' AS validation, 1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects, json_object('sections', json_array('run_summary'), 'figures',
      json_object('gpu_activities', 0)) AS evidence, 1 AS cut_may_explain
FROM measure_counts n, measure_cut cut WHERE n.traces > 0 AND gpu_all = 0 AND other_device IS NULL
  AND (n.legacy_traces = n.traces OR (launch_calls = 0 AND ac2g_flows = 0 AND NOT range_profiler
    AND NOT (coalesce(cpu_mem_peak, 0) > 0 AND gpu_mem_events = 0)));
