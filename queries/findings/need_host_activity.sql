-- Rule: need_host_activity
-- A GPU-only capture: GPU work but no host record (no CPU operator,
-- runtime call or user annotation: CUDA activity alone).
-- Whether the host, a sync, data loading or work outside the trace kept
-- the GPU idle cannot be told, so gpu_idle promises none of it to host
-- fixes; this finding says what to record instead, and promises nothing.
-- Reads: measure_counts, measure_time
SELECT 0.2 AS priority, 'need_host_activity' AS rule, 'high' AS confidence,
  'The trace records the GPU only: its idle time cannot be put down to the host' AS title,
  printf('%d GPU activities (kernels, copies, fills) and no host record: no CPU operator, ' ||
    'runtime (launch) call or user annotation.%s', n.gpu_all,
    CASE WHEN t.rank_step_ns > 0 THEN printf(' The GPU is idle %s of the %s analysed (%.0f%%).',
      profdb_fmt_ns(CAST(round(t.rank_step_ns - t.gpu_busy_ns) AS INTEGER)),
      profdb_fmt_ns(CAST(round(t.rank_step_ns) AS INTEGER)),
      100.0 * (t.rank_step_ns - t.gpu_busy_ns) / t.rank_step_ns) ELSE '' END) AS observation,
  'The profiler recorded CUDA activity only (activities=[ProfilerActivity.CUDA], or a ' ||
    'CUPTI-only capture): what the host did while the GPU idled (launches, syncs, data ' ||
      'loading, Python) is not in the trace, nor whether the GPU waited on work outside it, ' ||
        'so no host-side fix can be promised that idle time.' AS hypothesis,
  'Profile again with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] to record the ' ||
    'operators and launch calls that feed the GPU; gpu_idle, launch_bound and the sync ' ||
      'findings then say which host work to fix.' AS action,
  'Host-side findings for the GPU''s idle time.' AS expected_impact,
  'Re-profile: cpu_op and cuda_runtime events in the trace (run_summary).' AS validation,
  1 AS needs_artifact, 0 AS expected_saving_pct, NULL AS expected_saving_ns,
  NULL AS expected_saving_bytes, json_array() AS subjects,
  json_object('sections', json_array('run_summary', 'gpu_util'), 'figures',
    json_object('gpu_activities', n.gpu_all, 'host_records', 0,
      'rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER),
      'gpu_busy_ns', t.gpu_busy_ns)) AS evidence, 0 AS cut_may_explain
FROM measure_counts n, measure_time t
WHERE n.traces > 0 AND n.gpu_all > 0 AND NOT n.host_recorded;
