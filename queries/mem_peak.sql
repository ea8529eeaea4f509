-- Title: Peak memory (allocator trace replay)
-- Question: What was the peak allocated memory, when, how much of it was
--   allocated before recording started, and how close is it to the device
--   capacity?  Replayed with the rules of PyTorch's memory viewer, which
--   counts requested sizes; torch.cuda.memory_allocated() counts block
--   sizes (rounded up, 512 bytes at least), so peak_allocated_blocks gives
--   the peak in that unit too.
-- Requires: report_mem_peak
-- Empty: no memory snapshot is loaded (see the memory summary)
-- Brief: snapshot device peak_allocated peak_seq baseline transient peak_reserved headroom
-- Chart: timeline data=charts/mem_timeline.sql
-- Columns:
--   snapshot          -      snapshot id
--   device            -      device ordinal
--   peak_allocated    bytes  peak of allocated bytes (requested sizes, as the memory viewer plots)
--   peak_allocated_blocks bytes  allocated at that moment in block sizes (as torch.cuda.memory_allocated() counts)
--   peak_seq          -      first allocator event at the peak (empty: before the first event)
--   baseline          bytes  allocated before the window (model weights, ...; requested sizes)
--   end_allocated     bytes  allocated after the last event (requested sizes; mem_summary.allocated is in block sizes)
--   transient         bytes  peak_allocated - end_allocated: freed after the peak
--   peak_reserved     bytes  peak of reserved bytes
--   capacity          bytes  device memory (--gpu-gb, else the deviceProperties of a trace of the same run, lib/20_memory_scope.sql)
--   headroom          bytes  capacity - peak_reserved
--   events            count  allocator events of the device
SELECT p.snapshot_id AS snapshot, p.device, p.peak_allocated,
  f.requested + f.internal AS peak_allocated_blocks, p.peak_seq, p.baseline,
  p.end_allocated, p.peak_allocated - p.end_allocated AS transient, p.peak_reserved,
  c.bytes AS capacity, c.bytes - p.peak_reserved AS headroom, p.events
FROM report_mem_peak p LEFT JOIN report_mem_frag_peak f USING (snapshot_id, device),
  report_capacity c
ORDER BY p.snapshot_id, p.device;
