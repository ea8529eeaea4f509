-- Export table block: the blocks of every segment at the snapshot, by
-- address.
-- Parameters: :snapshot_id, :seg_base, :block_base, :run, :rank.
-- Output:
--   run             STRING  run
--   rank            INT64   rank
--   block_id        INT64   block number in the snapshot (1..)
--   segment_id      INT64   its segment (segment.segment_id)
--   device          INT64   device ordinal
--   position        INT64   position in the segment (0-based)
--   address         INT64   start address
--   size            INT64   bytes
--   requested_size  INT64   bytes the allocation asked for
--   state           STRING  'active_allocated', 'active_pending_free' or 'inactive'
--   stack_id        INT64   the stack that allocated it (stack_frame.stack_id)
SELECT :run AS run, :rank AS rank, b.block_id - :block_base AS block_id,
  b.segment_id - :seg_base AS segment_id, b.device, b.position, b.address, b.size,
  b.requested_size, b.state, x.local_id AS stack_id
FROM block b LEFT JOIN temp._export_stack x ON x.stack_id = b.stack_id
WHERE b.snapshot_id = :snapshot_id
ORDER BY b.device, b.address, b.block_id;
