-- Title: Largest segments
-- Question: Which cudaMalloc'd segments are the biggest, and how full are
--   they?
-- Requires: report_mem_device
-- Parameters: :top
-- Empty: no memory snapshot is loaded (see the memory summary)
-- Columns:
--   snapshot        -      snapshot id
--   device          -      device ordinal
--   address         -      segment base address (hex)
--   total_size      bytes  segment size
--   allocated_size  bytes  bytes in active_allocated blocks
--   inactive_size   bytes  bytes cached but free (inactive blocks)
--   blocks          count  blocks
--   segment_type    -      'large' or 'small' pool
--   expandable      -      1 for expandable segments
WITH ranked AS (
  SELECT g.*, row_number() OVER (PARTITION BY g.snapshot_id, g.device
                                 ORDER BY g.total_size DESC, g.segment_id) AS rn
  FROM segment g JOIN report_mem_device d ON d.snapshot_id = g.snapshot_id AND d.device = g.device
)
SELECT r.snapshot_id AS snapshot, r.device, printf('0x%x', r.address) AS address,
  r.total_size, r.allocated_size, r.total_size - r.active_size AS inactive_size,
  (SELECT count(*) FROM block b WHERE b.segment_id = r.segment_id) AS blocks,
  r.segment_type, r.is_expandable AS expandable
FROM ranked r WHERE r.rn <= :top ORDER BY r.snapshot_id, r.device, r.rn;
