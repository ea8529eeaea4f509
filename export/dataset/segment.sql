-- Export table segment: the allocator's segments (cudaMalloc'd ranges) at
-- the snapshot, by address.
-- Parameters: :snapshot_id, :seg_base, :run, :rank.
-- Output:
--   run             STRING  run
--   rank            INT64   rank
--   segment_id      INT64   segment number in the snapshot (1..)
--   device          INT64   device ordinal
--   address         INT64   start address
--   total_size      INT64   bytes reserved
--   allocated_size  INT64   bytes in allocated blocks
--   active_size     INT64   bytes in active blocks
--   requested_size  INT64   bytes requested by the allocations
--   stream          INT64   stream handle
--   segment_type    STRING  'large' or 'small' pool
--   pool_id         STRING  memory pool id (CUDA graphs), NULL for the default pool
--   is_expandable   INT64   1 for expandable segments
--   stack_id        INT64   the stack that allocated it (stack_frame.stack_id)
SELECT :run AS run, :rank AS rank, g.segment_id - :seg_base AS segment_id, g.device,
  g.address, g.total_size, g.allocated_size, g.active_size, g.requested_size, g.stream,
  g.segment_type, g.pool_id, g.is_expandable, x.local_id AS stack_id
FROM segment g LEFT JOIN temp._export_stack x ON x.stack_id = g.stack_id
WHERE g.snapshot_id = :snapshot_id
ORDER BY g.device, g.address, g.segment_id;
