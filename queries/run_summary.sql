-- Title: Run summary
-- Question: What was profiled: which traces (ranks), devices, time window,
--   how many events of each kind, and which steps are analysed?
-- Requires: report_trace
-- Parameters: :include_warmup
-- Empty: no profiler trace is loaded; load one with
--   profdb load trace.pt.trace.json.gz -o run.db
-- Columns:
--   trace_id         -      trace
--   label            -      trace file label
--   rank             -      distributed rank (0 when not recorded)
--   world_size       -      distributed world size, when recorded
--   devices          -      GPUs listed in deviceProperties
--   window_ns        ns     length of the analysed window
--   steps            count  ProfilerStep ranges analysed
--   warmup_excluded  count  first steps excluded as warm-up (--include-warmup keeps them)
--   cpu_ops          count  operators in the whole trace
--   kernels          count  GPU kernels in the whole trace
--   memcpys          count  GPU copies in the whole trace
--   memsets          count  GPU fills in the whole trace
--   runtime_calls    count  CUDA/HIP runtime and driver calls in the whole trace
--   python_frames    count  Python frames (with_stack=True) in the whole trace
--   events           count  all events of the file
--   status           -      'ok', or 'truncated' when the file ended early
SELECT t.trace_id, t.label, t.rank, t.world_size,
  (SELECT group_concat(n || 'x ' || name, ', ') FROM
     (SELECT name, count(*) AS n FROM device d WHERE d.trace_id = t.trace_id
      GROUP BY name ORDER BY name)) AS devices,
  w.end_ts - w.ts AS window_ns, w.steps, w.warmup_excluded,
  (SELECT coalesce(sum(events), 0) FROM event_count c WHERE c.trace_id = t.trace_id AND c.kind = 'cpu_op') AS cpu_ops,
  (SELECT coalesce(sum(events), 0) FROM event_count c WHERE c.trace_id = t.trace_id AND c.kind = 'kernel') AS kernels,
  (SELECT coalesce(sum(events), 0) FROM event_count c WHERE c.trace_id = t.trace_id AND c.kind = 'memcpy') AS memcpys,
  (SELECT coalesce(sum(events), 0) FROM event_count c WHERE c.trace_id = t.trace_id AND c.kind = 'memset') AS memsets,
  (SELECT coalesce(sum(events), 0) FROM event_count c WHERE c.trace_id = t.trace_id AND c.kind = 'runtime') AS runtime_calls,
  (SELECT coalesce(sum(events), 0) FROM event_count c WHERE c.trace_id = t.trace_id AND c.kind = 'python_function') AS python_frames,
  (SELECT events FROM trace x WHERE x.trace_id = t.trace_id) AS events,
  t.status
FROM report_trace t JOIN report_window w USING (trace_id)
ORDER BY t.rank, t.trace_id;
