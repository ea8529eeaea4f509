-- Export table kernel: GPU kernels of a rank, by time.
-- Parameters: :trace_id, :base, :run, :rank.
-- Output:
--   run            STRING  run
--   rank           INT64   rank
--   event_id       INT64   the rank's local event id
--   name           STRING  kernel name as written
--   device         INT64   device ordinal
--   stream         INT64   stream id
--   ts             INT64   start (ns, the rank's clock)
--   dur            INT64   duration (ns)
--   step           INT64   ProfilerStep number of the launch, NULL outside steps
--   correlation    INT64   args correlation
--   external_id    INT64   args External id
--   launch_id      INT64   the runtime call that launched it (local event id)
--   op_id          INT64   the CPU op that launched it (local event id)
--   grid_x         INT64   grid dimensions
--   grid_y         INT64   grid dimensions
--   grid_z         INT64   grid dimensions
--   block_x        INT64   block dimensions
--   block_y        INT64   block dimensions
--   block_z        INT64   block dimensions
--   registers      INT64   registers per thread
--   shared_memory  INT64   shared memory (bytes)
--   blocks_per_sm  DOUBLE  blocks per SM
--   warps_per_sm   DOUBLE  warps per SM
--   occupancy_pct  DOUBLE  estimated achieved occupancy (%)
SELECT :run AS run, :rank AS rank, event_id - :base AS event_id, name, device, stream, ts,
  dur, step, correlation, external_id, launch_id - :base AS launch_id,
  op_id - :base AS op_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers,
  shared_memory, blocks_per_sm, warps_per_sm, occupancy_pct
FROM kernel WHERE trace_id = :trace_id
ORDER BY ts, event_id;
