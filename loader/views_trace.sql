-- profdb database schema, part 2: public views over trace storage.
-- Names and categories are resolved from _string here, so queries read
-- text while the storage keeps small integers.

-- Every event of every kind, one row each (metadata events included).
CREATE VIEW IF NOT EXISTS event(
  -- event id, unique in the database
  event_id,
  -- trace the event belongs to
  trace_id,
  -- phase as written: 'X', 'i', 's', 't', 'f', 'M', 'C', ... (NULL if none)
  ph,
  -- normalized category: 'cpu_op', 'kernel', 'ac2g', ... (old names such
  -- as 'Operator', 'Runtime', 'Kernel', 'async' are mapped)
  cat,
  -- category as written in the file, NULL when the event had none
  raw_cat,
  -- kind name from _kind ('metadata' for M events, 'flow' for flows)
  kind,
  -- event name
  name,
  -- pid and tid as written (integer or text)
  pid, tid,
  -- start and duration in ns (dur NULL for instants and flows)
  ts, dur,
  -- remaining args as a JSON object
  args,
  -- event keys other than ph/cat/name/pid/tid/ts/dur/args (and raw values
  -- that could not be typed, e.g. an out-of-range ts) as a JSON object
  extra
) AS
SELECT s.id, s.trace_id, 'X',
  (SELECT value FROM _string WHERE _string.id = s.cat_id),
  (SELECT value FROM _string WHERE _string.id = s.raw_cat_id),
  (SELECT name FROM _kind WHERE _kind.kind = s.kind),
  (SELECT value FROM _string WHERE _string.id = s.name_id),
  s.pid, s.tid, s.ts, s.dur, s.args, s.extra
FROM _slice s
UNION ALL
SELECT g.id, g.trace_id, 'X',
  (SELECT value FROM _string WHERE _string.id = g.cat_id),
  (SELECT value FROM _string WHERE _string.id = g.raw_cat_id),
  (SELECT name FROM _kind WHERE _kind.kind = g.kind),
  (SELECT value FROM _string WHERE _string.id = g.name_id),
  g.pid, g.tid, g.ts, g.dur, g.args, g.extra
FROM _gpu g
UNION ALL
SELECT i.id, i.trace_id, i.ph,
  (SELECT value FROM _string WHERE _string.id = i.cat_id),
  (SELECT value FROM _string WHERE _string.id = i.raw_cat_id),
  (SELECT name FROM _kind WHERE _kind.kind = i.kind),
  (SELECT value FROM _string WHERE _string.id = i.name_id),
  i.pid, i.tid, i.ts, i.dur, i.args, i.extra
FROM _instant i
UNION ALL
SELECT f.id, f.trace_id, f.ph,
  (SELECT value FROM _string WHERE _string.id = f.cat_id),
  (SELECT value FROM _string WHERE _string.id = f.raw_cat_id),
  'flow',
  (SELECT value FROM _string WHERE _string.id = f.name_id),
  f.pid, f.tid, f.ts, NULL, f.args, f.extra
FROM _flow f
UNION ALL
SELECT m.id, m.trace_id, 'M', NULL, NULL, 'metadata',
  (SELECT value FROM _string WHERE _string.id = m.name_id),
  m.pid, m.tid, m.ts, NULL, m.args, m.extra
FROM _meta m;

-- Every CPU-side duration event with its nesting: ops, annotations,
-- Python frames, runtime/driver calls, trace spans.
CREATE VIEW IF NOT EXISTS slice(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- kind name: cpu_op, user_annotation, python_function, runtime,
  -- trace_span, cpu_other
  kind,
  -- normalized category and category as written
  cat, raw_cat,
  -- name
  name,
  -- process and thread as written
  pid, tid,
  -- start and duration (ns)
  ts, dur,
  -- dur minus the time of direct children on the same thread (ns)
  self_dur,
  -- nesting depth on the thread, 0 at top level
  depth,
  -- event_id of the enclosing slice, NULL at top level
  parent_id,
  -- ProfilerStep number containing ts, NULL outside steps
  step,
  -- args External id and correlation
  external_id, correlation,
  -- remaining args as JSON
  args
) AS
SELECT s.id, s.trace_id,
  (SELECT name FROM _kind WHERE _kind.kind = s.kind),
  (SELECT value FROM _string WHERE _string.id = s.cat_id),
  (SELECT value FROM _string WHERE _string.id = s.raw_cat_id),
  (SELECT value FROM _string WHERE _string.id = s.name_id),
  s.pid, s.tid, s.ts, s.dur, t.self_dur, t.depth, t.parent_id, t.step,
  s.external_id, s.correlation, s.args
FROM _slice s LEFT JOIN _slice_tree t ON t.id = s.id;

-- PyTorch operators (cat cpu_op; 'Operator' in 2021 traces; events of the
-- legacy exporter, which have no category).
CREATE VIEW IF NOT EXISTS cpu_op(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- operator name, e.g. 'aten::mm'
  name,
  -- process and thread
  pid, tid,
  -- start and duration (ns)
  ts, dur,
  -- dur minus direct children (nested ops, Python frames, runtime calls)
  self_dur,
  -- nesting depth on the thread and enclosing slice's event_id
  depth, parent_id,
  -- ProfilerStep number, NULL outside steps
  step,
  -- args "External id": the id GPU work launched by this op refers to
  external_id,
  -- args "Sequence number" and "Fwd thread id" (autograd), else NULL
  seq_num, fwd_tid,
  -- args "Ev Idx"
  ev_idx,
  -- args "Input Dims" and "Input type" as JSON text (record_shapes=True)
  input_dims, input_types,
  -- args "Input Strides" and "Concrete Inputs" as JSON text
  input_strides, concrete_inputs,
  -- args "Record function id"
  record_fn_id,
  -- remaining args as JSON
  args
) AS
SELECT s.id, s.trace_id,
  (SELECT value FROM _string WHERE _string.id = s.name_id),
  s.pid, s.tid, s.ts, s.dur, t.self_dur, t.depth, t.parent_id, t.step,
  s.external_id, s.seq_num, s.fwd_tid, s.ev_idx, s.input_dims,
  s.input_types, s.input_strides, s.concrete_inputs, s.record_fn_id, s.args
FROM _slice s LEFT JOIN _slice_tree t ON t.id = s.id
WHERE s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op');

-- Operator totals per thread, step and name (ProfilerStep#N ranges are not
-- operators), summed while loading: a fast way to the operator tables
--   SELECT name, sum(calls), sum(self_dur) FROM op_stats GROUP BY name
-- Rows with the same (trace_id, pid, tid, step, name) add up: a key has
-- several rows only for threads with very many distinct names per step.
CREATE VIEW IF NOT EXISTS op_stats(
  -- trace
  trace_id,
  -- process and thread
  pid, tid,
  -- ProfilerStep number whose CPU range contains the calls' starts, NULL
  -- outside steps
  step,
  -- operator name, and its _string id
  name, name_id,
  -- number of calls
  calls,
  -- total duration, self time (see cpu_op.self_dur), longest call (ns)
  total_dur, self_dur, max_dur,
  -- calls that recorded Input Dims (record_shapes=True)
  shaped
) AS
SELECT o.trace_id, o.pid, o.tid, o.step,
  (SELECT value FROM _string WHERE _string.id = o.name_id), o.name_id,
  o.calls, o.total_dur, o.self_dur, o.max_dur, o.shaped
FROM _op_stats o;

-- record_function ranges (cat user_annotation), ProfilerStep#N included.
CREATE VIEW IF NOT EXISTS user_annotation(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- annotation name
  name,
  -- process and thread
  pid, tid,
  -- start, duration and self time (ns)
  ts, dur, self_dur,
  -- nesting
  depth, parent_id,
  -- ProfilerStep number, NULL outside steps
  step,
  -- args External id
  external_id,
  -- args "Ev Idx" and "Record function id"
  ev_idx, record_fn_id,
  -- remaining args as JSON
  args
) AS
SELECT s.id, s.trace_id,
  (SELECT value FROM _string WHERE _string.id = s.name_id),
  s.pid, s.tid, s.ts, s.dur, t.self_dur, t.depth, t.parent_id, t.step,
  s.external_id, s.ev_idx, s.record_fn_id, s.args
FROM _slice s LEFT JOIN _slice_tree t ON t.id = s.id
WHERE s.kind = (SELECT kind FROM _kind WHERE name = 'user_annotation');

-- Python frames and module calls recorded with with_stack=True.
CREATE VIEW IF NOT EXISTS python_function(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- frame name: 'file.py(12): func', 'nn.Module: Linear_0', ...
  name,
  -- process and thread
  pid, tid,
  -- start, duration and self time (ns)
  ts, dur, self_dur,
  -- nesting
  depth, parent_id,
  -- ProfilerStep number, NULL outside steps
  step,
  -- args "Python id" and "Python parent id"
  python_id, python_parent_id,
  -- remaining args as JSON
  args
) AS
SELECT s.id, s.trace_id,
  (SELECT value FROM _string WHERE _string.id = s.name_id),
  s.pid, s.tid, s.ts, s.dur, t.self_dur, t.depth, t.parent_id, t.step,
  s.python_id, s.python_parent_id, s.args
FROM _slice s LEFT JOIN _slice_tree t ON t.id = s.id
WHERE s.kind = (SELECT kind FROM _kind WHERE name = 'python_function');

-- CUDA/HIP runtime and driver calls (cat cuda_runtime, cuda_driver;
-- 'Runtime' in 2021 traces; other backends' *_runtime / *_driver).
CREATE VIEW IF NOT EXISTS runtime(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- normalized category: 'cuda_runtime', 'cuda_driver', ...
  cat,
  -- call name, e.g. 'cudaLaunchKernel'
  name,
  -- process and thread
  pid, tid,
  -- start and duration (ns)
  ts, dur,
  -- nesting: the enclosing slice is usually the launching op
  depth, parent_id,
  -- ProfilerStep number, NULL outside steps
  step,
  -- args correlation: equal to the correlation of the GPU work it launched
  correlation,
  -- args External id of the launching op, NULL when not linked
  external_id,
  -- args cbid (CUPTI callback id)
  cbid,
  -- args kernel: the launched kernel's name (ROCm runtime calls)
  kernel,
  -- remaining args as JSON
  args
) AS
SELECT s.id, s.trace_id,
  (SELECT value FROM _string WHERE _string.id = s.cat_id),
  (SELECT value FROM _string WHERE _string.id = s.name_id),
  s.pid, s.tid, s.ts, s.dur, t.depth, t.parent_id, t.step,
  s.correlation, s.external_id, s.cbid,
  (SELECT value FROM _string WHERE _string.id = s.kernel_id), s.args
FROM _slice s LEFT JOIN _slice_tree t ON t.id = s.id
WHERE s.kind = (SELECT kind FROM _kind WHERE name = 'runtime');

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

-- profile_memory instants: '[memory]' allocations/frees and
-- '[OutOfMemory]' (no cat in 2021 traces, cpu_instant_event later).
CREATE VIEW IF NOT EXISTS memory_event(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- '[memory]' or '[OutOfMemory]'
  name,
  -- process and thread
  pid, tid,
  -- time (ns)
  ts,
  -- args Addr (pointer as integer), NULL for [OutOfMemory]
  addr,
  -- args Bytes: positive on allocation, negative on free
  bytes,
  -- args "Total Allocated" and "Total Reserved" after the event (bytes)
  total_allocated, total_reserved,
  -- args "Device Type" (0 CPU, 1 CUDA) and "Device Id" (-1 for CPU)
  device_type, device_id,
  -- remaining args as JSON
  args
) AS
SELECT i.id, i.trace_id,
  (SELECT value FROM _string WHERE _string.id = i.name_id),
  i.pid, i.tid, i.ts, i.addr, i.bytes, i.total_allocated, i.total_reserved,
  i.device_type, i.device_id, i.args
FROM _instant i WHERE i.kind IN (SELECT kind FROM _kind WHERE name IN ('memory', 'out_of_memory'));

-- Instants and events of other phases that are not [memory] events.
CREATE VIEW IF NOT EXISTS instant(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- phase as written, NULL when the event had none
  ph,
  -- normalized category and category as written
  cat, raw_cat,
  -- name
  name,
  -- process and thread
  pid, tid,
  -- time and duration (ns; dur only for phases that have one)
  ts, dur,
  -- scope "s"
  scope,
  -- remaining args and extra keys as JSON
  args, extra
) AS
SELECT i.id, i.trace_id, i.ph,
  (SELECT value FROM _string WHERE _string.id = i.cat_id),
  (SELECT value FROM _string WHERE _string.id = i.raw_cat_id),
  (SELECT value FROM _string WHERE _string.id = i.name_id),
  i.pid, i.tid, i.ts, i.dur, i.scope, i.args, i.extra
FROM _instant i
WHERE i.kind NOT IN (SELECT kind FROM _kind WHERE name IN ('memory', 'out_of_memory'));

-- Flow events as written (ph s, t, f).
CREATE VIEW IF NOT EXISTS flow_event(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- 's' start, 't' step, 'f' finish
  ph,
  -- normalized category ('ac2g', 'fwdbwd', ...) and category as written
  cat, raw_cat,
  -- name
  name,
  -- process and thread
  pid, tid,
  -- time (ns)
  ts,
  -- flow id (per category)
  flow_id,
  -- binding point ('e' = enclosing slice)
  bp,
  -- remaining args as JSON
  args
) AS
SELECT f.id, f.trace_id, f.ph,
  (SELECT value FROM _string WHERE _string.id = f.cat_id),
  (SELECT value FROM _string WHERE _string.id = f.raw_cat_id),
  (SELECT value FROM _string WHERE _string.id = f.name_id),
  f.pid, f.tid, f.ts, f.flow_id, f.bp, f.args
FROM _flow f;

-- Flows paired by (trace, category, id): one row per flow id, with its
-- start and finish.  Either side is NULL for orphan flows, which are
-- routine (every runtime call emits an 'f' bound to itself).
CREATE VIEW IF NOT EXISTS flow(
  -- trace
  trace_id,
  -- normalized category
  cat,
  -- flow id
  flow_id,
  -- the 's' event: event_id, pid, tid, ts (NULL when there is none)
  start_event_id, start_pid, start_tid, start_ts,
  -- the 'f' event: event_id, pid, tid, ts (NULL when there is none)
  end_event_id, end_pid, end_tid, end_ts,
  -- number of 's', 't' and 'f' events with this id
  events
) AS
SELECT f.trace_id,
  (SELECT value FROM _string WHERE _string.id = f.cat_id),
  f.flow_id,
  min(f.id) FILTER (WHERE f.ph = 's'),
  min(f.pid) FILTER (WHERE f.ph = 's'),
  min(f.tid) FILTER (WHERE f.ph = 's'),
  min(f.ts) FILTER (WHERE f.ph = 's'),
  min(f.id) FILTER (WHERE f.ph = 'f'),
  min(f.pid) FILTER (WHERE f.ph = 'f'),
  min(f.tid) FILTER (WHERE f.ph = 'f'),
  min(f.ts) FILTER (WHERE f.ph = 'f'),
  count(*)
FROM _flow f GROUP BY f.trace_id, f.cat_id, f.flow_id;

-- Metadata events (ph M) as written.
CREATE VIEW IF NOT EXISTS metadata_event(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- 'process_name', 'thread_name', 'process_labels', ...
  name,
  -- process and thread
  pid, tid,
  -- time (ns)
  ts,
  -- args as JSON
  args
) AS
SELECT m.id, m.trace_id,
  (SELECT value FROM _string WHERE _string.id = m.name_id),
  m.pid, m.tid, m.ts, m.args
FROM _meta m;

-- Every arg without a typed column, one row per (event, key): the JSON
-- objects of the storage tables' args columns, expanded.
CREATE VIEW IF NOT EXISTS args(
  -- event id
  event_id,
  -- arg key as written, e.g. 'Concrete Inputs', 'context'
  key,
  -- value: integer, real, text, or JSON text for arrays and objects;
  -- integers beyond 64 bits are kept as text
  value,
  -- JSON type: 'integer', 'real', 'text', 'array', 'object', 'true',
  -- 'false', 'null'
  type
) AS
SELECT s.id, j.key, j.value, j.type FROM _slice s, json_each(s.args) j
WHERE s.args IS NOT NULL
UNION ALL
SELECT g.id, j.key, j.value, j.type FROM _gpu g, json_each(g.args) j
WHERE g.args IS NOT NULL
UNION ALL
SELECT i.id, j.key, j.value, j.type FROM _instant i, json_each(i.args) j
WHERE i.args IS NOT NULL
UNION ALL
SELECT f.id, j.key, j.value, j.type FROM _flow f, json_each(f.args) j
WHERE f.args IS NOT NULL
UNION ALL
SELECT m.id, j.key, j.value, j.type FROM _meta m, json_each(m.args) j
WHERE m.args IS NOT NULL;
