-- Title: Who holds memory in the snapshot, by source
-- Question: When the snapshot was taken, which lines of user code own the
--   allocated blocks?  Active blocks grouped by the first user-code frame of
--   their stack (PyTorch internals and installed packages skipped).
-- Requires: report_mem_device
-- Parameters: :top
-- Empty: no memory snapshot with segments is loaded
-- Columns:
--   snapshot      -      snapshot id
--   device        -      device ordinal
--   source        source file:line function of the first user frame ((no stack) when not recorded)
--   bytes         bytes  bytes of the active blocks (block sizes, rounded by the allocator)
--   pct_allocated %      share of the allocated bytes of the device
--   blocks        count  active blocks
--   largest       bytes  largest of those blocks
WITH per_source AS (
  SELECT g.snapshot_id, g.device, coalesce(f.source, '(no stack)') AS source,
    sum(b.size) AS bytes, count(*) AS blocks, max(b.size) AS largest
  FROM block b JOIN segment g USING (segment_id)
  JOIN report_mem_device d ON d.snapshot_id = g.snapshot_id AND d.device = g.device
  LEFT JOIN report_user_frame f ON f.stack_id = b.stack_id
  WHERE b.state = 'active_allocated'
  GROUP BY g.snapshot_id, g.device, source
), ranked AS (
  SELECT p.*, sum(p.bytes) OVER (PARTITION BY p.snapshot_id, p.device) AS device_bytes,
    row_number() OVER (PARTITION BY p.snapshot_id, p.device ORDER BY p.bytes DESC, p.source) AS rn
  FROM per_source p
)
SELECT snapshot_id AS snapshot, device, source, bytes,
  round(100.0 * bytes / max(device_bytes, 1), 2) AS pct_allocated, blocks, largest
FROM ranked WHERE rn <= :top ORDER BY snapshot_id, device, rn;
