-- Rule: need_snapshot
-- 15-21. Missing artifacts and options: they save nothing themselves.
-- A memory snapshot is asked for only when the trace used a CUDA/ROCm GPU.
-- Reads: measure_counts
SELECT 0.3 AS priority, 'need_snapshot' AS rule, 'high' AS confidence, 'A memory snapshot ' ||
  'would show where GPU memory goes' AS title,
  'The database has a profiler trace with GPU work but no memory snapshot.' AS observation,
  'Memory questions (peak, fragmentation, OOM risk) need the caching allocator''s snapshot.' AS
    hypothesis,
  'In the training process: torch.cuda.memory._record_memory_history(max_entries=100000); run ' ||
    'a few steps; json.dump(torch.cuda.memory._snapshot(), open("memory_snapshot.json", ' ||
      '"w")); then profdb load memory_snapshot.json -o run.db (same database).' AS action,
  'The memory sections and findings.' AS expected_impact, 'Re-run profdb report: the memory ' ||
    'sections are filled.' AS validation, 1 AS needs_artifact,
  0 AS expected_saving_pct, NULL AS expected_saving_ns, NULL AS expected_saving_bytes,
    json_array() AS subjects, json_object('sections', json_array('mem_summary'), 'figures',
      json_object('gpu_activities', gpu_all)) AS evidence, 0 AS cut_may_explain
FROM measure_counts WHERE traces > 0 AND mem_devices = 0 AND gpu_all > 0;
