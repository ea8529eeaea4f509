-- profdb database schema, part 2 continued (after views_trace.sql): public
-- views over a trace's GPU activity (_gpu): kernels, memcpy and memset,
-- all of them together, GPU annotations and synchronization.

-- GPU kernels (cat kernel; 'Kernel' in 2021 traces).
CREATE VIEW IF NOT EXISTS kernel(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- kernel name as written (templated names can be several KB)
  name,
  -- device ordinal and stream id
  device, stream,
  -- start and duration (ns)
  ts, dur,
  -- ProfilerStep number of the launch, NULL outside steps
  step,
  -- args correlation and External id
  correlation, external_id,
  -- event_id of the runtime call that launched it (same correlation)
  launch_id,
  -- event_id of the CPU op that launched it
  op_id,
  -- grid and block dimensions
  grid_x, grid_y, grid_z, block_x, block_y, block_z,
  -- grid and block as JSON text '[x,y,z]'
  grid, block,
  -- registers per thread, shared memory (bytes)
  registers, shared_memory,
  -- blocks and warps per SM, estimated achieved occupancy (%)
  blocks_per_sm, warps_per_sm, occupancy_pct,
  -- remaining args as JSON
  args
) AS
SELECT g.id, g.trace_id,
  (SELECT value FROM _string WHERE _string.id = g.name_id),
  g.device, g.stream, g.ts, g.dur, l.step, g.correlation, g.external_id,
  l.launch_id, l.op_id,
  g.grid_x, g.grid_y, g.grid_z, g.block_x, g.block_y, g.block_z,
  CASE WHEN g.grid_x IS NOT NULL
    THEN '[' || g.grid_x || ',' || g.grid_y || ',' || g.grid_z || ']' END,
  CASE WHEN g.block_x IS NOT NULL
    THEN '[' || g.block_x || ',' || g.block_y || ',' || g.block_z || ']' END,
  g.registers, g.shared_memory, g.blocks_per_sm, g.warps_per_sm,
  g.occupancy_pct, g.args
FROM _gpu g LEFT JOIN _gpu_link l ON l.id = g.id
WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'kernel');

-- GPU memory copies (cat gpu_memcpy; 'Memcpy' in 2021 traces).
CREATE VIEW IF NOT EXISTS memcpy(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- name, e.g. 'Memcpy HtoD (Pageable -> Device)'
  name,
  -- direction taken from the name (_copy_kind): 'HtoD', 'DtoH', 'DtoD', 'HtoH', 'PtoP',
  -- or the name when it has no such word
  copy_kind,
  -- device ordinal and stream id
  device, stream,
  -- start and duration (ns)
  ts, dur,
  -- ProfilerStep number of the launch
  step,
  -- bytes copied, NULL when absent
  bytes,
  -- args "memory bandwidth (GB/s)"
  bandwidth_gbps,
  -- links (see kernel)
  correlation, external_id, launch_id, op_id,
  -- remaining args as JSON
  args
) AS
SELECT m.event_id, m.trace_id, m.name,
  coalesce((SELECT k.copy_kind FROM _copy_kind k WHERE m.name LIKE k.pattern
            ORDER BY k.priority LIMIT 1), m.name),
  m.device, m.stream, m.ts, m.dur, m.step, m.bytes, m.bandwidth_gbps,
  m.correlation, m.external_id, m.launch_id, m.op_id, m.args
FROM (
  SELECT g.id AS event_id, g.trace_id AS trace_id,
    (SELECT value FROM _string WHERE _string.id = g.name_id) AS name,
    g.device AS device, g.stream AS stream, g.ts AS ts, g.dur AS dur,
    l.step AS step, g.bytes AS bytes, g.bandwidth_gbps AS bandwidth_gbps,
    g.correlation AS correlation, g.external_id AS external_id,
    l.launch_id AS launch_id, l.op_id AS op_id, g.args AS args
  FROM _gpu g LEFT JOIN _gpu_link l ON l.id = g.id
  WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'memcpy')) m;

-- GPU memory fills (cat gpu_memset; 'Memset' in 2021 traces).
CREATE VIEW IF NOT EXISTS memset(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- name, e.g. 'Memset (Device)'
  name,
  -- device ordinal and stream id
  device, stream,
  -- start and duration (ns)
  ts, dur,
  -- ProfilerStep number of the launch
  step,
  -- bytes set, NULL when absent
  bytes,
  -- links (see kernel)
  correlation, external_id, launch_id, op_id,
  -- remaining args as JSON
  args
) AS
SELECT g.id, g.trace_id,
  (SELECT value FROM _string WHERE _string.id = g.name_id),
  g.device, g.stream, g.ts, g.dur, l.step, g.bytes, g.correlation,
  g.external_id, l.launch_id, l.op_id, g.args
FROM _gpu g LEFT JOIN _gpu_link l ON l.id = g.id
WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'memset');

-- All GPU work that occupies a stream: kernels, copies and fills.
CREATE VIEW IF NOT EXISTS gpu_activity(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- 'kernel', 'memcpy' or 'memset'
  kind,
  -- name
  name,
  -- device ordinal and stream id
  device, stream,
  -- start and duration (ns)
  ts, dur,
  -- ProfilerStep number of the launch
  step,
  -- links (see kernel)
  correlation, external_id, launch_id, op_id
) AS
SELECT g.id, g.trace_id,
  (SELECT name FROM _kind WHERE _kind.kind = g.kind),
  (SELECT value FROM _string WHERE _string.id = g.name_id),
  g.device, g.stream, g.ts, g.dur, l.step, g.correlation, g.external_id,
  l.launch_id, l.op_id
FROM _gpu g LEFT JOIN _gpu_link l ON l.id = g.id
WHERE g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'));

-- record_function ranges projected on GPU streams (gpu_user_annotation).
CREATE VIEW IF NOT EXISTS gpu_annotation(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- annotation name, e.g. 'ProfilerStep#3'
  name,
  -- device ordinal and stream id
  device, stream,
  -- start and duration (ns); nudged by the profiler to enclose kernels
  ts, dur,
  -- args External id
  external_id,
  -- remaining args as JSON
  args
) AS
SELECT g.id, g.trace_id,
  (SELECT value FROM _string WHERE _string.id = g.name_id),
  g.device, g.stream, g.ts, g.dur, g.external_id, g.args
FROM _gpu g WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'gpu_annotation');

-- GPU synchronization events (cat cuda_sync): event/stream/context syncs.
CREATE VIEW IF NOT EXISTS gpu_sync(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- sync kind name: 'Event Sync', 'Stream Wait Event', 'Stream Sync', ...
  name,
  -- device ordinal and stream id (-1 when not tied to a stream)
  device, stream,
  -- start and duration (ns)
  ts, dur,
  -- ProfilerStep number of the call
  step,
  -- links (see kernel)
  correlation, external_id, launch_id,
  -- remaining args (wait_on_stream, wait_on_cuda_event_id, ...) as JSON
  args
) AS
SELECT g.id, g.trace_id,
  (SELECT value FROM _string WHERE _string.id = g.name_id),
  g.device, g.stream, g.ts, g.dur, l.step, g.correlation, g.external_id,
  l.launch_id, g.args
FROM _gpu g LEFT JOIN _gpu_link l ON l.id = g.id
WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'gpu_sync');
