-- PyTorch 2.0 layout: no block address (segment address + sizes before it),
-- requested size and frames from history[0]; oom entries have device_free
SELECT snapshot_id, layout, segments, blocks, trace_entries FROM snapshot;
SELECT segment_id, position, address, size, requested_size, state, stack_id FROM block ORDER BY block_id;
SELECT block_id, position, addr, real_size, stack_id FROM block_history;
SELECT stack_id, depth, filename, line, name FROM stack_frame ORDER BY stack_id, depth;
SELECT seq, device, action, addr, size, device_free FROM alloc_event ORDER BY seq;
