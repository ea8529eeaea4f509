-- Title: Allocator actions
-- Question: What did the caching allocator do during the recorded window
--   (allocations, frees, cudaMalloc/cudaFree of segments, OOMs)?
-- Requires: report_mem_device
-- Empty: no memory snapshot with a device trace is loaded; record one with
--   torch.cuda.memory._record_memory_history(max_entries=100000)
-- Columns:
--   snapshot  -      snapshot id
--   device    -      device ordinal
--   action    -      allocator action
--   events    count  entries
--   bytes     bytes  sum of their sizes
SELECT e.snapshot_id AS snapshot, e.device, e.action, count(*) AS events, sum(e.size) AS bytes
FROM alloc_event e JOIN report_mem_device d ON d.snapshot_id = e.snapshot_id AND d.device = e.device
GROUP BY e.snapshot_id, e.device, e.action ORDER BY e.snapshot_id, e.device, events DESC, e.action;
