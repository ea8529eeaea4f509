-- memory_viz export: the device's segments in the final snapshot (the state
-- after its last event), which the export walks back to the window's end.
-- Parameters: :snapshot, :device.
-- Output, by address:
--   address, total_size  the segment (bytes)
--   stream               its stream handle
--   segment_type         'large' or 'small'
--   pool_id              segment_pool_id as JSON text ('[0,0]'), or NULL
--   is_expandable        1 for an expandable segment, else 0 (NULL: unknown)
--   stack_id             the stack of its allocation, or NULL
SELECT address, total_size, stream, segment_type, pool_id, is_expandable, stack_id
FROM segment
WHERE snapshot_id = :snapshot AND device = :device
ORDER BY address;
