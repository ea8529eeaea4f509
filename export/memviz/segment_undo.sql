-- memory_viz export: the segment events after the window, last first: the
-- export undoes them on the final segments to get the segments as they
-- stood at the window's end.
-- Parameters: :snapshot, :device, :last (the window's last seq; -1 when
-- the window ends before the first event).
-- Output, by seq descending:
--   action      'segment_alloc', 'segment_free', 'segment_map' or 'segment_unmap'
--   addr, size  the range (bytes)
--   stream      its stream handle
SELECT action, addr, size, stream
FROM alloc_event
WHERE snapshot_id = :snapshot AND device = :device AND seq > :last
  AND action IN ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap')
ORDER BY seq DESC;
