-- Title: Memory summary (snapshot)
-- Question: How much GPU memory does the caching allocator hold, how much
--   of it is in use, and how is it split?
-- Requires: report_mem_device
-- Empty: no memory snapshot is loaded; save one in the training process
--   (torch.cuda.memory._record_memory_history(max_entries=100000), then
--   json.dump(torch.cuda.memory._snapshot(), open("memory_snapshot.json", "w")))
--   and load it: profdb load memory_snapshot.json -o run.db
-- Columns:
--   snapshot        -      snapshot id
--   label           -      snapshot label
--   device          -      device ordinal
--   reserved        bytes  bytes in segments (cudaMalloc'd)
--   allocated       bytes  bytes in active_allocated blocks (block sizes, as torch.cuda.memory_allocated() counts)
--   active          bytes  allocated + pending-free bytes
--   inactive        bytes  reserved - active: cached, free for reuse
--   requested       bytes  bytes callers asked for (before rounding; the memory viewer's unit)
--   utilization_pct %      allocated / reserved
--   segments        count  segments
--   blocks          count  blocks
SELECT d.snapshot_id AS snapshot, s.label, d.device,
  coalesce(sum(g.total_size), 0) AS reserved, coalesce(sum(g.allocated_size), 0) AS allocated,
  coalesce(sum(g.active_size), 0) AS active,
  coalesce(sum(g.total_size) - sum(g.active_size), 0) AS inactive,
  coalesce(sum(g.requested_size), 0) AS requested,
  round(100.0 * coalesce(sum(g.allocated_size), 0) / max(coalesce(sum(g.total_size), 0), 1), 2)
    AS utilization_pct,
  count(g.segment_id) AS segments,
  (SELECT count(*) FROM block b JOIN segment x USING (segment_id)
   WHERE x.snapshot_id = d.snapshot_id AND x.device = d.device) AS blocks
FROM report_mem_device d JOIN snapshot s ON s.snapshot_id = d.snapshot_id
LEFT JOIN segment g ON g.snapshot_id = d.snapshot_id AND g.device = d.device
GROUP BY d.snapshot_id, d.device ORDER BY d.snapshot_id, d.device;
