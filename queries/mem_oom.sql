-- Title: Out-of-memory events
-- Question: When did allocations fail, how much was asked for, how much
--   was free, and what was allocated at that moment?
-- Requires: report_mem_device
-- Empty: no OOM was recorded (no 'oom' entry in the allocator trace)
-- Columns:
--   snapshot     -      snapshot id
--   device       -      device ordinal
--   seq          -      position in the allocator trace
--   requested    bytes  size of the failed allocation
--   device_free  bytes  bytes CUDA reported free
--   allocated    bytes  bytes allocated when it failed (replay)
--   reserved     bytes  bytes reserved when it failed (replay)
--   source       source first user-code frame of the failing call
SELECT e.snapshot_id AS snapshot, e.device, e.seq, e.size AS requested, e.device_free,
  t.allocated, t.reserved,
  (SELECT f.source FROM report_user_frame f
   WHERE f.stack_id = e.stack_id) AS source
FROM alloc_event e JOIN report_mem_device d ON d.snapshot_id = e.snapshot_id AND d.device = e.device
JOIN mem_timeline(e.snapshot_id, e.device) t ON t.seq = e.seq
WHERE e.action = 'oom' ORDER BY e.snapshot_id, e.device, e.seq;
