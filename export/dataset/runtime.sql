-- Export table runtime: CUDA / HIP runtime and driver calls of a rank, by
-- time.
-- Parameters: :trace_id, :base, :last, :run, :rank.
-- Output:
--   run          STRING  run
--   rank         INT64   rank
--   event_id     INT64   the rank's local event id
--   cat          STRING  'cuda_runtime', 'cuda_driver', ...
--   name         STRING  call name, e.g. 'cudaLaunchKernel'
--   pid          INT64   process
--   tid          INT64   thread
--   ts           INT64   start (ns)
--   dur          INT64   duration (ns)
--   depth        INT64   nesting depth on the thread
--   parent_id    INT64   enclosing slice (usually the launching op), local event id
--   step         INT64   ProfilerStep number, NULL outside steps
--   correlation  INT64   equal to the correlation of the GPU work it launched
--   external_id  INT64   External id of the launching op
--   cbid         INT64   CUPTI callback id
--   kernel       STRING  the launched kernel's name (ROCm)
SELECT :run AS run, :rank AS rank, event_id - :base AS event_id, cat, name, pid, tid, ts,
  dur, depth, parent_id - :base AS parent_id, step, correlation, external_id, cbid, kernel
FROM runtime
WHERE trace_id = :trace_id AND event_id > :base AND event_id <= :last
ORDER BY ts, event_id;
