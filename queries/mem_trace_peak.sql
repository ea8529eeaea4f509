-- Title: Memory from the trace's [memory] events
-- Question: Without a snapshot, what peak does the profiler's memory
--   tracking show (Total Allocated / Total Reserved after each event)?
-- Requires: report_trace
-- Empty: the trace has no [memory] events; profile with profile_memory=True
--   (or load a memory snapshot for the allocator's full view)
-- Columns:
--   label           -      trace
--   device_type     -      CPU, CUDA, ... (the c10 DeviceType of the events)
--   device_id       -      device ordinal (-1 for CPU)
--   peak_allocated  bytes  highest Total Allocated (block sizes, as torch.cuda.memory_allocated() counts)
--   peak_at_ns      ns     time of the first event at that peak, from the trace start (the first [memory] event in a trace of instants only)
--   peak_reserved   bytes  highest Total Reserved
--   baseline        bytes  allocated before the first event
--   end_allocated   bytes  allocated after the last event
--   events          count  [memory] events
SELECT w.label,
  CASE p.device_type WHEN 0 THEN 'CPU' WHEN 1 THEN 'CUDA' WHEN 12 THEN 'XPU' WHEN 13 THEN 'MPS'
    WHEN 20 THEN 'PrivateUse1' ELSE CAST(p.device_type AS TEXT) END AS device_type,
  p.device_id, p.peak_allocated, p.peak_ts - coalesce(t.start_ts,
    (SELECT min(m.ts) FROM memory_event m WHERE m.trace_id = t.trace_id)) AS peak_at_ns, p.peak_reserved,
  p.baseline, p.end_allocated, p.events
FROM report_window w JOIN report_trace t USING (trace_id), mem_trace_peak(w.trace_id) p
ORDER BY w.rank, w.trace_id, p.device_type DESC, p.device_id;
