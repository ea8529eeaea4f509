-- Rule: allocator_calls
-- 4d. Repeated allocator (and set-up) calls in the steady state
-- (lib/38_claim.sql): PyTorch's caching allocator keeps freed memory for
-- reuse, so steady-state cudaMalloc / cudaFree calls mean it is bypassed
-- (PYTORCH_NO_CUDA_MEMORY_CACHING set, torch.cuda.empty_cache() in the
-- loop, a library allocating its own workspace).  cudaFree also
-- synchronizes the device.  Removing them saves at most the GPU idle time
-- during them.
-- Reads: _kind, _slice, _slice_tree, _string, measure_claim, measure_floor, measure_setup,
--   measure_time, report_setup_call
WITH
setup_op AS (
  SELECT n.value AS op, count(DISTINCT c.event_id) AS calls
  FROM report_setup_call c JOIN _slice_tree t ON t.id = c.event_id
  JOIN _slice s ON s.id = t.parent_id JOIN _string n ON n.id = s.name_id
  WHERE c.repeated AND NOT c.autotune
    AND s.kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation'))
  GROUP BY n.value ORDER BY calls DESC, op LIMIT 3
)
SELECT round(100.0 * cl.alloc / t.job_step_ns, 1) AS priority, 'allocator_calls' AS rule,
  CASE WHEN cl.alloc > 0.1 * t.rank_step_ns THEN 'high' ELSE 'medium' END AS confidence,
  printf('Repeated allocator calls leave the GPU idle %.1f%% of the job step',
    100.0 * cl.alloc / t.rank_step_ns) AS title,
  printf('Allocator and set-up calls repeated in the analysed time (%s) leave the GPU idle %s ' ||
    'of %s per rank step: %s%s.',
    CASE WHEN t.steps > 0 THEN j.job_step_words ELSE 'the whole trace: no ProfilerStep ranges' END,
    profdb_fmt_ns(cl.alloc), profdb_fmt_ns(t.rank_step_ns),
    (SELECT group_concat(printf('%s %d call(s) per rank, %s per rank step', name,
      CAST(round(calls) AS INTEGER), profdb_fmt_ns(call_ns)), '; ')
     FROM (SELECT * FROM measure_setup WHERE repeated AND NOT autotune ORDER BY call_ns DESC,
       name LIMIT 3)),
    coalesce((SELECT '; made inside ' || group_concat(printf('%s (%d)', op, calls),
      ', ') FROM setup_op), '')) AS observation,
  'Memory is allocated and freed with the device allocator every time instead of being ' ||
    'reused: PyTorch''s caching allocator is bypassed (PYTORCH_NO_CUDA_MEMORY_CACHING=1 makes ' ||
      'every tensor free a cudaFree / hipFree; torch.cuda.empty_cache() in the loop returns ' ||
        'the cache), or a library (cuDNN / MIOpen workspace, a custom extension) allocates ' ||
          'outside it. Each cudaFree / hipFree also synchronizes the device.' AS hypothesis,
  'Check that PYTORCH_NO_CUDA_MEMORY_CACHING is unset and torch.cuda.empty_cache() is not ' ||
    'called in the loop; if the calls come from a library inside an operator (subjects, the ' ||
      'operators above), give it memory from PyTorch (a cached workspace) or keep its ' ||
        'allocations after warm-up (for MIOpen / cuDNN autotuning, ' ||
          'torch.backends.cudnn.benchmark with fixed shapes, MIOPEN_FIND_MODE=FAST); create ' ||
            'events and streams once, outside the loop.' AS action,
  printf('Up to %s (%.1f%% of the job step): the GPU idle time during the repeated calls.',
    profdb_fmt_ns(cl.alloc), 100.0 * cl.alloc / t.job_step_ns) AS expected_impact,
  'Re-profile: sync_sum and launch_overhead without per-step cudaMalloc / cudaFree (hipMalloc ' ||
    '/ hipFree).' AS validation,
  0 AS needs_artifact, round(100.0 * cl.alloc / t.job_step_ns, 2) AS expected_saving_pct,
    cl.alloc AS expected_saving_ns, NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('call', name, 'calls', CAST(round(calls) AS INTEGER),
    'call_ns', CAST(round(call_ns) AS INTEGER)))
   FROM (SELECT * FROM measure_setup WHERE repeated AND NOT autotune ORDER BY call_ns DESC,
     name LIMIT 3)) AS subjects,
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'allocator_idle_ns', CAST(round(cl.alloc) AS INTEGER))) AS evidence, 1 AS cut_may_explain
FROM measure_claim cl, measure_time t, measure_floor f, measure_time j
WHERE t.rank_step_ns > 0 AND t.job_step_ns > 0 AND cl.alloc >= f.min_pct / 100 * t.job_step_ns
  AND cl.alloc >= f.min_ns;
