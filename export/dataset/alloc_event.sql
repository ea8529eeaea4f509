-- Export table alloc_event: the allocator's recorded actions
-- (device_traces), in order.
-- Parameters: :snapshot_id, :run, :rank.
-- Output:
--   run          STRING  run
--   rank         INT64   rank
--   seq          INT64   position in the device's trace (time order)
--   device       INT64   device ordinal
--   action       STRING  'alloc', 'free_requested', 'free_completed', 'segment_alloc', ...
--   addr         INT64   address
--   size         INT64   bytes
--   stream       INT64   stream handle
--   ts           INT64   time (ns since the epoch; the snapshot's time_us x 1000), NULL when not recorded
--   stack_id     INT64   the stack of the action (stack_frame.stack_id)
--   device_free  INT64   free device memory reported with an OOM (bytes)
SELECT :run AS run, :rank AS rank, e.seq, e.device, e.action, e.addr, e.size, e.stream,
  e.time_us * 1000 AS ts, x.local_id AS stack_id, e.device_free
FROM alloc_event e LEFT JOIN temp._export_stack x ON x.stack_id = e.stack_id
WHERE e.snapshot_id = :snapshot_id
ORDER BY e.device, e.seq;
