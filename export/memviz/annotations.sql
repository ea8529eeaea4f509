-- memory_viz export: the snapshot's external_annotations (record_function
-- ranges the allocator saw) of the device inside the window's time range.
-- Parameters: :snapshot, :device, :lo_us, :hi_us (the window's first and
-- last event times, µs; NULL: no annotation is written).
-- Output, by seq:
--   stage    'START' or 'END'
--   name     the range name
--   device   device ordinal
--   time_us  epoch µs
SELECT stage, name, device, time_us
FROM annotation
WHERE snapshot_id = :snapshot AND (device IS NULL OR device = :device)
  AND time_us BETWEEN :lo_us AND :hi_us
ORDER BY seq;
