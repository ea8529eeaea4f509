-- profdb database schema, part 2: public views over trace storage, every
-- event and the CPU side (GPU: views_trace_gpu.sql; instants, flows,
-- metadata and args: views_trace_instants_flows.sql).
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
