-- recent layout: expandable segments with map/unmap, several devices (one
-- with an empty list), a ring buffer that starts with a free, entries
-- without frames, identical frames interned once, unknown keys kept,
-- handles beyond int64 kept as text
SELECT segment_id, device, address, typeof(address), stream, typeof(stream),
  segment_type, pool_id, is_expandable, stack_id FROM segment ORDER BY segment_id;
SELECT extra FROM _segment ORDER BY id;
SELECT device, seq, action, addr, size, stream, time_us, stack_id, compile_context,
  user_metadata FROM alloc_event ORDER BY device, seq;
SELECT extra FROM _alloc_event WHERE extra IS NOT NULL ORDER BY id;
SELECT stack_id, depth, filename, line, name FROM stack_frame ORDER BY stack_id, depth;
SELECT extra FROM _stack_frame WHERE extra IS NOT NULL;
SELECT key, value, typeof(value) FROM allocator_setting ORDER BY key;
SELECT seq, device, stage, name, time_us, extra FROM annotation;
SELECT position, key, value FROM snapshot_metadata;
SELECT name, value FROM import_stats WHERE artifact = 'snapshot' ORDER BY name;
