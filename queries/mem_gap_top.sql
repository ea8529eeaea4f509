-- Title: Largest inactive blocks
-- Question: Where are the biggest cached-but-free blocks (memory the
--   allocator holds but that no tensor uses)?
-- Requires: report_mem_device
-- Parameters: :top
-- Empty: no memory snapshot is loaded, or no block is inactive
-- Columns:
--   snapshot      -      snapshot id
--   device        -      device ordinal
--   size          bytes  inactive block size
--   segment_size  bytes  size of its segment
--   segment       -      segment base address (hex)
--   position      -      block position in the segment
WITH ranked AS (
  SELECT b.snapshot_id, s.device, b.size, s.total_size, s.address, b.position,
    row_number() OVER (PARTITION BY b.snapshot_id, s.device ORDER BY b.size DESC, b.block_id) AS rn
  FROM block b JOIN segment s USING (segment_id)
  JOIN report_mem_device d ON d.snapshot_id = b.snapshot_id AND d.device = s.device
  WHERE b.state = 'inactive'
)
SELECT snapshot_id AS snapshot, device, size, total_size AS segment_size,
  printf('0x%x', address) AS segment, position
FROM ranked WHERE rn <= :top ORDER BY snapshot_id, device, rn;
