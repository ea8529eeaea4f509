-- memory_viz export: the window's allocator events (device_traces), in
-- order.
-- Parameters: :snapshot, :device, :first, :last (seq range, inclusive).
-- Output, by seq:
--   seq              position in the device's trace
--   action           'alloc', 'free_requested', 'free_completed', ...
--   addr             address (NULL for oom)
--   size             bytes
--   stream           stream handle
--   time_us          epoch µs, NULL when not recorded
--   stack_id         its stack, NULL when it has no frames
--   device_free      oom: bytes CUDA reported free
--   compile_context  string or NULL
--   user_metadata    string or NULL
SELECT seq, action, addr, size, stream, time_us, stack_id, device_free, compile_context,
  user_metadata
FROM alloc_event
WHERE snapshot_id = :snapshot AND device = :device AND seq BETWEEN :first AND :last
ORDER BY seq;
