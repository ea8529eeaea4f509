-- a bare list of segments (torch.cuda.memory_snapshot()); the docs'
-- spelling active_awaiting_free is reported as active_pending_free
SELECT layout, segments, blocks, trace_entries FROM snapshot;
SELECT device, address, total_size, allocated_size, active_size, requested_size,
  segment_type, pool_id, is_expandable, stack_id FROM segment;
SELECT position, address, size, state, raw_state FROM block ORDER BY position;
