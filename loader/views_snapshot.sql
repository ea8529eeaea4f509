-- profdb database schema, part 4: public views over snapshot storage.

-- Segments reserved by the caching allocator at snapshot time.
CREATE VIEW IF NOT EXISTS segment(
  -- segment id
  segment_id,
  -- snapshot
  snapshot_id,
  -- device ordinal
  device,
  -- base address
  address,
  -- bytes reserved
  total_size,
  -- bytes in active_allocated blocks
  allocated_size,
  -- bytes in active blocks (allocated + pending free)
  active_size,
  -- bytes requested by callers
  requested_size,
  -- stream handle
  stream,
  -- 'large' or 'small'
  segment_type,
  -- memory pool id as JSON text '[a,b]'
  pool_id,
  -- 1 for expandable segments
  is_expandable,
  -- stack of the segment allocation (stack_frame), NULL when none
  stack_id
) AS
SELECT id, snapshot_id, device, address, total_size, allocated_size,
  active_size, requested_size, stream, segment_type, pool_id, is_expandable,
  stack_id
FROM _segment;

-- Blocks of each segment, in address order.
CREATE VIEW IF NOT EXISTS block(
  -- block id
  block_id,
  -- segment and snapshot
  segment_id, snapshot_id,
  -- device ordinal (of the segment)
  device,
  -- position in the segment (0-based)
  position,
  -- address
  address,
  -- bytes (rounded)
  size,
  -- bytes requested
  requested_size,
  -- 'active_allocated', 'active_pending_free' or 'inactive'
  -- ('active_awaiting_free' is reported as 'active_pending_free')
  state,
  -- state exactly as written in the file
  raw_state,
  -- stack of the allocation, NULL when none
  stack_id
) AS
SELECT b.id, b.segment_id, b.snapshot_id, s.device, b.position, b.address,
  b.size, b.requested_size,
  CASE b.state WHEN 'active_awaiting_free' THEN 'active_pending_free'
    ELSE b.state END,
  b.state, b.stack_id
FROM _block b JOIN _segment s ON s.id = b.segment_id;

-- PyTorch 2.0 block history entries.
CREATE VIEW IF NOT EXISTS block_history(
  -- block
  block_id,
  -- position (0 = first entry)
  position,
  -- address and requested bytes of the allocation
  addr, real_size,
  -- stack
  stack_id
) AS
SELECT block_id, position, addr, real_size, stack_id FROM _block_history;

-- Allocator trace entries, oldest first per device.
CREATE VIEW IF NOT EXISTS alloc_event(
  -- position in the device's trace (0 = oldest)
  seq,
  -- snapshot
  snapshot_id,
  -- device ordinal
  device,
  -- 'alloc', 'free_requested', 'free_completed', 'segment_alloc',
  -- 'segment_free', 'segment_map', 'segment_unmap', 'snapshot', 'oom',
  -- 'annotate' (or the text as written for unknown actions)
  action,
  -- address (NULL for oom)
  addr,
  -- bytes
  size,
  -- stream handle
  stream,
  -- epoch microseconds, NULL when absent
  time_us,
  -- stack of the entry, NULL when it has none
  stack_id,
  -- oom: bytes CUDA reported free
  device_free,
  -- compile_context and user_metadata
  compile_context, user_metadata,
  -- storage row id (unique across snapshots)
  event_id
) AS
SELECT e.seq, e.snapshot_id, e.device,
  CASE WHEN e.action = (SELECT code FROM _alloc_action WHERE name = 'other')
    THEN json_extract(e.extra, '$.action')
    ELSE (SELECT name FROM _alloc_action WHERE code = e.action) END,
  e.addr, e.size, e.stream, e.time_us, e.stack_id, e.device_free,
  e.compile_context, e.user_metadata, e.id
FROM _alloc_event e;

-- Frames of interned stacks.
CREATE VIEW IF NOT EXISTS stack_frame(
  -- stack id (segment, block, alloc_event and block_history refer to it)
  stack_id,
  -- frame position, 0 = innermost
  depth,
  -- source file ('??' for C++ frames without symbols)
  filename,
  -- line number
  line,
  -- function name
  name
) AS
SELECT f.stack_id, f.depth,
  (SELECT value FROM _string WHERE _string.id = f.filename_id),
  f.line,
  (SELECT value FROM _string WHERE _string.id = f.name_id)
FROM _stack_frame f;
