-- Title: Peak memory (allocator trace replay)
-- Question: What was the peak allocated memory, when, how much of it was
--   allocated before recording started, and how close is it to the device
--   capacity?  Replayed with the rules of PyTorch's memory viewer.
-- Requires: report_mem_peak
-- Empty: no memory snapshot is loaded (see the memory summary)
-- Brief: snapshot device peak_allocated peak_seq baseline transient peak_reserved headroom
-- Chart: timeline data=charts/mem_timeline.sql
-- Columns:
--   snapshot          -      snapshot id
--   device            -      device ordinal
--   peak_allocated    bytes  peak of allocated bytes (requested sizes)
--   peak_seq          -      first allocator event at the peak (empty: before the first event)
--   baseline          bytes  allocated before the window (model weights, ...)
--   end_allocated     bytes  allocated after the last event
--   transient         bytes  peak_allocated - end_allocated: freed after the peak
--   peak_reserved     bytes  peak of reserved bytes
--   capacity          bytes  device memory (--gpu-gb, else the trace's deviceProperties)
--   headroom          bytes  capacity - peak_reserved
--   events            count  allocator events of the device
SELECT p.snapshot_id AS snapshot, p.device, p.peak_allocated, p.peak_seq, p.baseline,
  p.end_allocated, p.peak_allocated - p.end_allocated AS transient, p.peak_reserved,
  c.bytes AS capacity, c.bytes - p.peak_reserved AS headroom, p.events
FROM report_mem_peak p, report_capacity c
ORDER BY p.snapshot_id, p.device;
