-- Rule: ran_on_cpu
-- No GPU work and no runtime call, but the [memory] events show tensors
-- allocated on the CPU: the run itself used the CPU.
-- Reads: measure_counts
SELECT 0.2 AS priority, 'ran_on_cpu' AS rule,
  CASE WHEN devices > 0 THEN 'high' ELSE 'medium' END AS confidence,
  printf('The run used the CPU, not a GPU: up to %s allocated on the CPU',
    profdb_fmt_bytes(cpu_mem_peak)) AS title,
  printf('No kernel, copy or fill and no CUDA/HIP runtime call; the profiler''s [memory] ' ||
    'events show up to %s allocated on the CPU (device type 0) and none on a GPU%s.',
    profdb_fmt_bytes(cpu_mem_peak),
    CASE WHEN devices > 0 THEN printf(', although the trace lists %d GPU(s) (deviceProperties)',
      devices) ELSE '' END) AS observation,
  'The model and its inputs stayed on the CPU: no .to("cuda") / .cuda(), a device chosen from ' ||
    'torch.cuda.is_available() that was False (CUDA_VISIBLE_DEVICES, a CPU-only PyTorch ' ||
      'build), or a map_location="cpu" checkpoint.' AS hypothesis,
  'If the run should use the GPU, move the model and each batch to it (model.to("cuda"), ' ||
    'batch.to("cuda", non_blocking=True)) and check torch.cuda.is_available() in the job; ' ||
      'then profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA].' AS action,
  'The GPU sections.' AS expected_impact, 'Re-profile: kernels appear in run_summary, ' ||
    '[memory] events on device type 1.' AS validation, 1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects,
  json_object('sections', json_array('run_summary', 'op_memory_sum'), 'figures',
    json_object('gpu_activities', 0,
    'cpu_memory_peak_bytes', cpu_mem_peak, 'gpus_listed', devices)) AS evidence,
      1 AS cut_may_explain
FROM measure_counts WHERE traces > 0 AND gpu_all = 0 AND other_device IS NULL
  AND launch_calls = 0 AND ac2g_flows = 0 AND NOT range_profiler
  AND cpu_mem_peak > 0 AND gpu_mem_events = 0;
