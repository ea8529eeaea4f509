-- Rule: gpu_records_partly_lost
-- Some launch calls have no kernel (measure_records_lost): CUPTI dropped
-- GPU records or the profiler stopped before they were flushed, so the
-- GPU work they launched reads as idle GPU.  The time findings promise
-- nothing (findings.sql) and this one asks for a trace that holds them.
-- Reads: measure_records_lost
SELECT 0.2 AS priority, 'gpu_records_partly_lost' AS rule, 'high' AS confidence,
  'GPU records were lost: launched kernels are missing, and their time reads as idle GPU' AS title,
  printf('Each kernel launch call should reach the trace as a kernel of the same correlation; ' ||
    'here many have none: %s.', list) AS observation,
  'CUPTI''s activity buffers filled up and dropped GPU records (a long or busy profiled window), ' ||
    'or the profiler stopped before the buffers were flushed (no torch.cuda.synchronize() ' ||
      'before it stopped, the process exited inside the profiled region), or another CUPTI ' ||
        'client (Nsight Systems / Compute, DCGM profiling) held the GPU activity kinds.'
    AS hypothesis,
  'Profile fewer steps (schedule(wait=1, warmup=1, active=2)), call torch.cuda.synchronize() ' ||
    'before the profiler stops, run no other CUPTI tool at the same time, and check the ' ||
      'profiler''s log for dropped CUPTI records. Until then the time findings promise nothing.'
    AS action,
  'The time findings: their savings count only once the GPU work is recorded.' AS expected_impact,
  'Re-profile: gpu_records_partly_lost no longer fires.' AS validation,
  1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
  json_array() AS subjects,
  json_object('sections', json_array('run_summary'), 'figures', json_object('lossy_traces',
    traces)) AS evidence, 0 AS cut_may_explain
FROM measure_records_lost WHERE traces > 0;
