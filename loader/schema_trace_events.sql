-- profdb database schema, part 1 continued (after schema_trace.sql): the
-- storage of a trace's events, by table: CPU slices (_slice) with their
-- nesting (_slice_tree) and attribution contexts (_attr_*), the tables
-- derived from them at load (cpu_busy, _op_stats), GPU activity (_gpu,
-- _gpu_link), instants and counters (_instant), flows (_flow) and
-- metadata events (_meta).  Conventions: see schema_trace.sql.

-- Storage: CPU-side duration events (ph X on host threads).
CREATE TABLE IF NOT EXISTS _slice(
  -- event id
  id INTEGER PRIMARY KEY,
  -- trace
  trace_id INTEGER NOT NULL,
  -- kind code (_kind): cpu_op, user_annotation, python_function, runtime,
  -- trace_span, cpu_other
  kind INTEGER NOT NULL,
  -- normalized category string id
  cat_id INTEGER,
  -- category string id as written in the file
  raw_cat_id INTEGER,
  -- name string id
  name_id INTEGER,
  -- pid and tid as written (integer or text)
  pid, tid,
  -- start and duration in ns; NULL when absent or out of range
  ts INTEGER, dur INTEGER,
  -- args "External id" (or "external id")
  external_id INTEGER,
  -- args "correlation" (runtime calls)
  correlation INTEGER,
  -- args "Sequence number" (autograd)
  seq_num INTEGER,
  -- args "Fwd thread id"
  fwd_tid INTEGER,
  -- args "Ev Idx" (or "Profiler Event Index")
  ev_idx INTEGER,
  -- args "Input Dims" (or "Input dims") as JSON text
  input_dims TEXT,
  -- args "Input type" as JSON text
  input_types TEXT,
  -- args "cbid" (CUPTI callback id of runtime calls)
  cbid INTEGER,
  -- args "Python id" / "Python parent id" (python_function)
  python_id INTEGER, python_parent_id INTEGER,
  -- args "Record function id"
  record_fn_id INTEGER,
  -- args "Input Strides" and "Concrete Inputs" as JSON text (record_shapes)
  input_strides TEXT, concrete_inputs TEXT,
  -- args "kernel" of ROCm runtime calls (the launched kernel's name), as a
  -- _string id: repeated long names are stored once
  kernel_id INTEGER,
  -- remaining args as a JSON object, NULL when none
  args TEXT,
  -- event keys other than ph/cat/name/pid/tid/ts/dur/args, as a JSON
  -- object (kept so nothing is lost), NULL when none
  extra TEXT
);

-- Storage: CPU slice nesting, derived after loading.
CREATE TABLE IF NOT EXISTS _slice_tree(
  -- _slice.id
  id INTEGER PRIMARY KEY,
  -- id of the innermost enclosing slice on the same thread, NULL at top
  parent_id INTEGER,
  -- nesting depth, 0 at top level
  depth INTEGER NOT NULL,
  -- dur minus the time covered by direct children (clipped to the slice)
  self_dur INTEGER,
  -- ProfilerStep number whose CPU range contains ts, NULL outside steps
  step INTEGER,
  -- cpu_op: its attribution context (_attr_ctx.id: enclosing operators,
  -- nn.Module and annotation paths, source frame); NULL for other kinds
  ctx_id INTEGER,
  -- an nn.Module Python frame or a record_function annotation other than
  -- ProfilerStep#N: its path (_attr_path.id); NULL for other slices
  path_id INTEGER,
  -- cpu_op: the innermost FLOP-counted operator call enclosing it, itself
  -- included (_attr_flop.id); NULL when none
  flop_id INTEGER
);

-- Attribution, derived in the nesting pass (postpass.c), where each
-- slice's ancestors are on the stack: the report charges GPU work to the
-- operators, module and annotation paths and source lines enclosing its
-- launching operator with plain joins, never walking _slice_tree upwards.

-- The nn.Module and annotation trees: one row per trace and distinct path
-- (the names of the enclosing ranges of the same tree on the thread,
-- outermost first, and the range's own).
CREATE TABLE IF NOT EXISTS _attr_path(
  -- event id of the first range with this path
  id INTEGER PRIMARY KEY,
  -- 'module' (nn.Module Python frames) or 'annotation' (record_function
  -- ranges, ProfilerStep#N excluded)
  tree TEXT NOT NULL,
  -- the range's name (_string id)
  name_id INTEGER NOT NULL,
  -- path of the enclosing range of the same tree (_attr_path.id), NULL at
  -- the top
  parent_id INTEGER,
  -- 0 at the top
  depth INTEGER NOT NULL,
  -- the name without 'nn.Module: ' for modules ('Linear_0')
  name TEXT,
  -- the names from the outermost range to this one, joined by ' > '
  path TEXT
);

-- Host time per path: the calls of the ranges with each path, per thread
-- and step (the same layout as _op_stats).  A (thread, step, path) may
-- have several rows: they add up.
CREATE TABLE IF NOT EXISTS _attr_range(
  -- trace
  trace_id INTEGER NOT NULL,
  -- process and thread
  pid, tid,
  -- ProfilerStep number whose CPU range contains the ranges' starts, NULL
  -- outside steps
  step INTEGER,
  -- the path (_attr_path.id)
  path_id INTEGER NOT NULL,
  -- calls, and their total, self and longest duration (ns)
  calls INTEGER NOT NULL,
  total_dur INTEGER NOT NULL,
  self_dur INTEGER NOT NULL,
  max_dur INTEGER NOT NULL,
  -- always 0 (the _op_stats layout)
  shaped INTEGER NOT NULL
);

-- What encloses an operator call: one row per trace and distinct
-- combination of the chain of enclosing operators (names and input shapes),
-- the innermost nn.Module and annotation paths and the source frame.
CREATE TABLE IF NOT EXISTS _attr_ctx(
  -- event id of the first operator call with this context
  id INTEGER PRIMARY KEY,
  -- innermost enclosing nn.Module path (_attr_path.id), NULL when none
  module_path_id INTEGER,
  -- innermost enclosing annotation path (_attr_path.id), NULL when none
  annotation_path_id INTEGER,
  -- the source frame (_string id of 'file.py(line): function'): among the
  -- enclosing Python frames, the innermost of lowest frame_rank(); NULL
  -- when none
  source_id INTEGER
);

-- The operator names enclosing a context's operator, itself included,
-- each once.
CREATE TABLE IF NOT EXISTS _attr_ctx_op(
  -- the context (_attr_ctx.id)
  ctx_id INTEGER NOT NULL,
  -- operator name (_string id)
  name_id INTEGER NOT NULL,
  -- 1 when the context's operator itself has this name
  is_self INTEGER NOT NULL
);

-- The same for operator name and input shapes, over the enclosing
-- operators that recorded "Input Dims".
CREATE TABLE IF NOT EXISTS _attr_ctx_shape(
  -- the context (_attr_ctx.id)
  ctx_id INTEGER NOT NULL,
  -- operator name (_string id)
  name_id INTEGER NOT NULL,
  -- "Input Dims" as JSON text
  input_dims TEXT,
  -- event id of an operator call with these name and shapes (input_dims
  -- is read from it)
  op_id INTEGER NOT NULL,
  -- 1 when the context's operator itself has these name and shapes
  is_self INTEGER NOT NULL
);

-- Host time per operator name, input shapes and input types: the calls of
-- every cpu_op (ProfilerStep#N of 2021 traces included; no shapes is a key
-- of its own), per thread and step (the _op_stats layout; rows of one key
-- add up).
CREATE TABLE IF NOT EXISTS _attr_shape(
  -- trace
  trace_id INTEGER NOT NULL,
  -- process and thread
  pid, tid,
  -- ProfilerStep number whose CPU range contains the calls' starts, NULL
  -- outside steps
  step INTEGER,
  -- event id of the first call with this name, "Input Dims" and "Input
  -- type" (read name_id, input_dims and input_types from it; the two are
  -- told apart by a 64-bit hash of their JSON text)
  shape_id INTEGER NOT NULL,
  -- calls, and their total, self and longest duration (ns)
  calls INTEGER NOT NULL,
  total_dur INTEGER NOT NULL,
  self_dur INTEGER NOT NULL,
  max_dur INTEGER NOT NULL,
  -- calls that recorded Input Dims (all or none of a row's)
  shaped INTEGER NOT NULL
);

-- CPU slices (cpu_op, user_annotation, runtime, python_function) whose
-- names the report's CPU sections look for (queries/lib/10_trace_scope.sql,
-- report_marker_name; the loader's MARKER_NAME in postpass.c has the same
-- patterns): sync calls, checkpoint / recompute frames, backward and
-- optimizer phases, DataLoader ranges.
CREATE TABLE IF NOT EXISTS _attr_marker(
  -- the slice's event id
  id INTEGER PRIMARY KEY
);

-- Operator calls whose FLOPs op_flops() may count (aten::mm, addmm, bmm,
-- baddbmm, matmul, linear, convolution, convolution_backward,
-- scaled_dot_product_attention with "Input Dims").
CREATE TABLE IF NOT EXISTS _attr_flop(
  -- the call's event id
  id INTEGER PRIMARY KEY,
  -- the innermost such call enclosing it (_attr_flop.id), NULL when none
  parent_id INTEGER
);

-- When each CPU thread was busy: the union of its slices, as disjoint
-- intervals, derived after loading (the same sorted pass that nests the
-- slices).  Time sections use it instead of millions of nested slices.
CREATE TABLE IF NOT EXISTS cpu_busy(
  -- trace
  trace_id INTEGER NOT NULL,
  -- process and thread
  pid, tid,
  -- what the thread was doing: 'cpu' (any op, annotation, Python frame or
  -- runtime call, ProfilerStep#N ranges excluded), 'runtime' (CUDA/HIP
  -- runtime and driver calls) or 'dataloader' (enumerate(DataLoader)...
  -- ranges)
  class TEXT NOT NULL,
  -- start and duration (ns) of a maximal interval covered by such slices
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL
);

-- Storage: operator totals per thread, step and name, derived after loading
-- in the nesting pass (the op_stats view resolves the names).
CREATE TABLE IF NOT EXISTS _op_stats(
  -- trace
  trace_id INTEGER NOT NULL,
  -- process and thread
  pid, tid,
  -- ProfilerStep number whose CPU range contains the operators' starts,
  -- NULL outside steps
  step INTEGER,
  -- operator name (_string id)
  name_id INTEGER NOT NULL,
  -- calls, and their total, self and longest duration (ns)
  calls INTEGER NOT NULL,
  total_dur INTEGER NOT NULL,
  self_dur INTEGER NOT NULL,
  max_dur INTEGER NOT NULL,
  -- calls that recorded Input Dims
  shaped INTEGER NOT NULL
);

-- Storage: GPU-side duration events (kernels, copies, fills, GPU
-- annotations, synchronization), pid = device and tid = stream.
CREATE TABLE IF NOT EXISTS _gpu(
  -- event id
  id INTEGER PRIMARY KEY,
  -- trace
  trace_id INTEGER NOT NULL,
  -- kind code (_kind): kernel, memcpy, memset, gpu_annotation, gpu_sync
  kind INTEGER NOT NULL,
  -- normalized and raw category string ids, name string id
  cat_id INTEGER, raw_cat_id INTEGER, name_id INTEGER,
  -- pid and tid as written
  pid, tid,
  -- start and duration in ns
  ts INTEGER, dur INTEGER,
  -- args device / stream (fall back to pid / tid when absent)
  device INTEGER, stream INTEGER,
  -- args correlation (links to the launching runtime call)
  correlation INTEGER,
  -- args External id (links to the launching CPU op)
  external_id INTEGER,
  -- args grid and block dimensions
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
  block_x INTEGER, block_y INTEGER, block_z INTEGER,
  -- args "registers per thread"
  registers INTEGER,
  -- args "shared memory" (bytes, static + dynamic)
  shared_memory INTEGER,
  -- args "blocks per SM", "warps per SM" (NULL when "inf": kept in args)
  blocks_per_sm REAL, warps_per_sm REAL,
  -- args "est. achieved occupancy %"
  occupancy_pct REAL,
  -- args bytes (memcpy/memset)
  bytes INTEGER,
  -- args "memory bandwidth (GB/s)" (NULL when "N/A": kept in args)
  bandwidth_gbps REAL,
  -- remaining args / extra event keys as JSON objects, NULL when none
  args TEXT, extra TEXT
);

-- Storage: links of GPU events, derived after loading.
CREATE TABLE IF NOT EXISTS _gpu_link(
  -- _gpu.id
  id INTEGER PRIMARY KEY,
  -- event_id of the runtime call with the same correlation, NULL if none
  launch_id INTEGER,
  -- event_id of the CPU op with the same External id, else the innermost
  -- cpu_op enclosing the launch; NULL if none
  op_id INTEGER,
  -- ProfilerStep number of the launch (or of the CPU step containing ts
  -- when there is no launch), NULL outside steps
  step INTEGER
);

-- Storage: instants and other non-duration phases (i, I, C, n, B, E, ...),
-- including profile_memory [memory] events.
CREATE TABLE IF NOT EXISTS _instant(
  -- event id
  id INTEGER PRIMARY KEY,
  -- trace
  trace_id INTEGER NOT NULL,
  -- kind code (_kind): memory, out_of_memory, instant, counter, other_phase
  kind INTEGER NOT NULL,
  -- phase as written (NULL when the event had none)
  ph TEXT,
  -- normalized and raw category string ids, name string id
  cat_id INTEGER, raw_cat_id INTEGER, name_id INTEGER,
  -- pid and tid as written
  pid, tid,
  -- time in ns
  ts INTEGER,
  -- duration in ns for phases that carry one, else NULL
  dur INTEGER,
  -- instant scope "s" ('t', 'p', 'g')
  scope TEXT,
  -- [memory]: args Addr, Bytes (negative on free), Total Allocated,
  -- Total Reserved, Device Type (0 CPU, 1 CUDA), Device Id
  addr INTEGER, bytes INTEGER, total_allocated INTEGER,
  total_reserved INTEGER, device_type INTEGER, device_id INTEGER,
  -- remaining args / extra event keys as JSON objects, NULL when none
  args TEXT, extra TEXT
);

-- Storage: flow events (ph s, t, f): CPU launch -> GPU (ac2g) and
-- forward -> backward (fwdbwd) arrows.
CREATE TABLE IF NOT EXISTS _flow(
  -- event id
  id INTEGER PRIMARY KEY,
  -- trace
  trace_id INTEGER NOT NULL,
  -- phase: 's' start, 't' step, 'f' finish
  ph TEXT NOT NULL,
  -- normalized and raw category string ids, name string id
  cat_id INTEGER, raw_cat_id INTEGER, name_id INTEGER,
  -- pid and tid as written
  pid, tid,
  -- time in ns
  ts INTEGER,
  -- flow id (integer or text); ids are per-category namespaces
  flow_id,
  -- binding point "bp" ('e' = enclosing slice), NULL when absent
  bp TEXT,
  -- remaining args / extra event keys as JSON objects, NULL when none
  args TEXT, extra TEXT
);

-- Storage: metadata events (ph M): process/thread names and sort indexes.
CREATE TABLE IF NOT EXISTS _meta(
  -- event id
  id INTEGER PRIMARY KEY,
  -- trace
  trace_id INTEGER NOT NULL,
  -- name string id: process_name, thread_name, ...
  name_id INTEGER,
  -- pid and tid as written
  pid, tid,
  -- time in ns
  ts INTEGER,
  -- args as a JSON object, NULL when none
  args TEXT,
  -- extra event keys as a JSON object, NULL when none
  extra TEXT
);
