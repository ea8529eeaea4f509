-- Rule: gpu_records_lost
-- CUDA activity was on (runtime launch calls, ac2g flows to GPU work) but
-- no GPU record arrived: re-profiling "with CUDA" would not help.  Not
-- for traces of PyTorch's legacy exporter, which never writes kernels
-- (its cpu_to_cuda flows are ac2g flows): need_gpu_activity says so.
-- Reads: measure_counts
SELECT 0.2 AS priority, 'gpu_records_lost' AS rule, 'high' AS confidence,
  'The GPU records were lost: the trace launches GPU work but holds none' AS title,
  printf('%d runtime call(s) that launch GPU work (cudaLaunchKernel, cudaMemcpyAsync, ...) ' ||
    'and %d ac2g flow event(s) linking them to GPU work, but no kernel, copy or fill anywhere ' ||
      'in the trace%s.',
    launch_calls, ac2g_flows,
    CASE WHEN range_profiler THEN '; the trace has cuda_profiler_range events' ELSE '' END) AS
      observation,
  CASE WHEN range_profiler
    THEN 'The trace was recorded with CUPTI''s range profiler (performance counters per ' ||
      'range, the cuda_profiler_range events), which replaces the kernel activity records: ' ||
        'CUDA activity was on, but the kernels are not recorded in this mode.'
    ELSE 'CUDA activity was on (CUPTI recorded the runtime calls), but the GPU activity ' ||
      'records never reached the trace: CUPTI''s activity buffers filled up and records were ' ||
        'dropped (a long profiled window), the profiler stopped before the buffers were ' ||
          'flushed (the process exited or crashed inside the profiled region, or stopped ' ||
            'without a torch.cuda.synchronize()), or another CUPTI client (Nsight Systems / ' ||
              'Compute, DCGM profiling) held the GPU activity kinds.' END AS hypothesis,
  CASE WHEN range_profiler
    THEN 'Profile again in the default (activity) mode, without the CUPTI range-profiler ' ||
      'settings, to record kernels; keep the range profile for its counters.'
    ELSE 'Profile fewer steps (schedule(wait=1, warmup=1, active=2)), call ' ||
      'torch.cuda.synchronize() before the profiler stops and let it exit normally, run no ' ||
        'other CUPTI tool at the same time, and check the profiler''s log for dropped CUPTI ' ||
          'records.' END AS action,
  'The GPU sections.' AS expected_impact,
    'Re-profile: kernels appear in run_summary.' AS validation, 1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects,
  json_object('sections', json_array('run_summary'), 'figures', json_object('gpu_activities', 0,
    'launch_calls', launch_calls, 'ac2g_flows', ac2g_flows, 'range_profiler',
      range_profiler)) AS evidence, 1 AS cut_may_explain
FROM measure_counts WHERE traces > 0 AND gpu_all = 0 AND other_device IS NULL
  AND (launch_calls > 0 OR ac2g_flows > 0 OR range_profiler) AND legacy_traces < traces;
