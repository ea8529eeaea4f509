-- Title: Memory from the trace's [memory] events
-- Question: Without a snapshot, what peak does the profiler's memory
--   tracking show (Total Allocated / Total Reserved after each event)?
-- Requires: report_trace
-- Empty: the trace has no [memory] events; profile with profile_memory=True
--   (or load a memory snapshot for the allocator's full view)
-- Columns:
--   label           -      trace
--   device_type     -      0 CPU, 1 CUDA
--   device_id       -      device ordinal (-1 for CPU)
--   peak_allocated  bytes  highest Total Allocated
--   peak_ts         ns     time of the first event at that peak
--   peak_reserved   bytes  highest Total Reserved
--   baseline        bytes  allocated before the first event
--   end_allocated   bytes  allocated after the last event
--   events          count  [memory] events
SELECT w.label, p.device_type, p.device_id, p.peak_allocated, p.peak_ts, p.peak_reserved,
  p.baseline, p.end_allocated, p.events
FROM report_window w, mem_trace_peak(w.trace_id) p
ORDER BY w.rank, w.trace_id, p.device_type DESC, p.device_id;
