-- Whose GPU time: the GPU work of the analysed steps (report_gpu) charged
-- to the CPU slices it was launched from.  kernel.op_id is the operator
-- that launched it; every slice enclosing that operator on its thread
-- (parent operators, nn.Module ranges, record_function annotations,
-- Python frames) launched it too.  The load derived what encloses each
-- operator call in its nesting pass (_slice_tree.ctx_id -> _attr_ctx and
-- its _attr_ctx_op / _attr_ctx_shape rows, _attr_path, _attr_range), so
-- this file only adds up: no walk over _slice_tree.  Computed once for
-- op_gpu_sum, op_shape_sum, module_sum, annotation_sum, source_gpu_sum,
-- gemm_efficiency and the findings.

-- GPU time launched by each operator itself (its device self time, as
-- TensorBoard's operator view and key_averages() define it).
--   op_id       the launching cpu_op's event_id
--   gpu_ns      sum of the durations of the kernels, copies and fills it launched
--   activities  how many
--   name_id     the operator's name
--   device      device ordinal of that work (the lowest, if several)
--   ctx_id      what encloses the operator (_attr_ctx.id); NULL for an
--               operator the nesting pass did not see (no usable duration)
--   flop_id     the innermost FLOP-counted operator call enclosing it, itself
--               included (_attr_flop.id), NULL when none
CREATE TEMP TABLE report_launch AS
SELECT g.op_id, sum(g.dur) AS gpu_ns, count(*) AS activities, s.name_id, min(g.device) AS device,
  t.ctx_id, t.flop_id
FROM report_gpu g JOIN _slice s ON s.id = g.op_id AND s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
LEFT JOIN _slice_tree t ON t.id = g.op_id
GROUP BY g.op_id;
CREATE UNIQUE INDEX temp.report_launch_by_op ON report_launch(op_id);

-- GPU time per attribution context (the operators launching it share
-- their enclosing operators, paths and source frame).
--   ctx_id  _attr_ctx.id
--   gpu_ns  GPU time launched by the operators of that context
CREATE TEMP TABLE report_ctx_gpu AS
SELECT ctx_id, sum(gpu_ns) AS gpu_ns FROM report_launch WHERE ctx_id IS NOT NULL GROUP BY ctx_id;
CREATE UNIQUE INDEX temp.report_ctx_gpu_by_ctx ON report_ctx_gpu(ctx_id);

-- GPU time per launch context, for the module and annotation trees: the
-- context of the runtime call that launched the work (what encloses the
-- call on its thread: a record_function range or nn.Module frame around
-- the launch counts it even with no operator around the call, or with the
-- range inside the operator), else that of the launching operator (work
-- without a runtime call; databases loaded before runtime calls had one).
--   ctx_id  _attr_ctx.id
--   gpu_ns  GPU time launched in that context
CREATE TEMP TABLE report_launch_ctx_gpu AS
SELECT coalesce(r.ctx_id, o.ctx_id) AS ctx_id, sum(g.dur) AS gpu_ns
FROM report_gpu g LEFT JOIN _slice_tree r ON r.id = g.launch_id
LEFT JOIN _slice_tree o ON o.id = g.op_id
WHERE coalesce(r.ctx_id, o.ctx_id) IS NOT NULL
GROUP BY 1;
CREATE UNIQUE INDEX temp.report_launch_ctx_gpu_by_ctx ON report_launch_ctx_gpu(ctx_id);

-- Device time per operator name.  An activity counts once per name even
-- when operators of that name nest (aten::matmul inside aten::matmul), so
-- device_total_ns never exceeds the GPU time of the scope.
--   device_self_ns   GPU time of the work the operators of this name launched themselves
--   device_total_ns  the same including the work of the operators nested in them
CREATE TEMP TABLE report_op_gpu AS
SELECT name_id, sum(self_ns) AS device_self_ns, sum(total_ns) AS device_total_ns
FROM (SELECT c.name_id, CASE WHEN c.is_self THEN g.gpu_ns ELSE 0 END AS self_ns,
        g.gpu_ns AS total_ns
      FROM report_ctx_gpu g JOIN _attr_ctx_op c USING (ctx_id)
      UNION ALL
      SELECT name_id, gpu_ns, gpu_ns FROM report_launch WHERE ctx_id IS NULL)
GROUP BY name_id;

-- Device time per operator name and input shapes (record_shapes=True);
-- the same rules as report_op_gpu.
--   name_id, input_dims  operator name and its "Input Dims" (JSON text)
CREATE TEMP TABLE report_op_shape_gpu AS
SELECT name_id, input_dims, sum(self_ns) AS device_self_ns, sum(total_ns) AS device_total_ns
FROM (SELECT c.name_id, c.input_dims, CASE WHEN c.is_self THEN g.gpu_ns ELSE 0 END AS self_ns,
        g.gpu_ns AS total_ns
      FROM report_ctx_gpu g JOIN _attr_ctx_shape c USING (ctx_id)
      UNION ALL
      SELECT l.name_id, s.input_dims, l.gpu_ns, l.gpu_ns
      FROM report_launch l JOIN _slice s ON s.id = l.op_id
      WHERE l.ctx_id IS NULL AND s.input_dims IS NOT NULL)
GROUP BY name_id, input_dims;

-- One row per node of the module and annotation trees, in tree order
-- (children under their parent, siblings by device time, then host time).
-- The ranges are nn.Module calls ('nn.Module: Linear_0' Python frames,
-- recorded with with_stack=True or with_modules=True) and record_function
-- annotations (ProfilerStep#N excluded) of the analysed steps, each
-- placed under the ranges of its own tree enclosing it on its thread
-- (_attr_path).
--   tree             'module' or 'annotation'
--   path             the enclosing ranges' names and its own, outermost first, joined by ' > '
--   name             module name without 'nn.Module: ' ('Linear_0': class and instance
--                    number), or the annotation's name
--   parent_path      path of the enclosing range, NULL at the top
--   depth            0 at the top
--   calls            calls of ranges with that path
--   host_total_ns    their summed durations
--   device_total_ns  GPU time of the work launched inside them (by a runtime call inside them;
--                    report_launch_ctx_gpu), each activity once per path
--   sort_key         orders the rows of one tree depth-first
CREATE TEMP TABLE report_range_node AS
WITH RECURSIVE per_path AS (
  SELECT p.tree, p.path, max(p.name) AS name, max(q.path) AS parent_path, max(p.depth) AS depth,
    sum(r.calls) AS calls, sum(r.total_dur) AS host_total_ns
  FROM _attr_range r JOIN _attr_path p ON p.id = r.path_id LEFT JOIN _attr_path q ON q.id = p.parent_id
  WHERE EXISTS (SELECT 1 FROM report_scope k
                WHERE k.trace_id = r.trace_id AND k.step = coalesce(r.step, -1))
  GROUP BY p.tree, p.path
), up(ctx_id, path_id) AS (
  -- each context's innermost module and annotation paths, then the paths enclosing them
  SELECT c.id, c.module_path_id FROM _attr_ctx c JOIN report_launch_ctx_gpu g ON g.ctx_id = c.id
  WHERE c.module_path_id IS NOT NULL
  UNION ALL
  SELECT c.id, c.annotation_path_id FROM _attr_ctx c JOIN report_launch_ctx_gpu g ON g.ctx_id = c.id
  WHERE c.annotation_path_id IS NOT NULL
  UNION ALL
  SELECT up.ctx_id, p.parent_id FROM up JOIN _attr_path p ON p.id = up.path_id
  WHERE p.parent_id IS NOT NULL
), gpu AS (
  SELECT p.tree, p.path, sum(g.gpu_ns) AS device_total_ns
  FROM up JOIN _attr_path p ON p.id = up.path_id JOIN report_launch_ctx_gpu g USING (ctx_id)
  GROUP BY p.tree, p.path
), node AS (
  SELECT p.*, coalesce(g.device_total_ns, 0) AS device_total_ns,
    row_number() OVER (PARTITION BY p.tree, p.parent_path
                       ORDER BY coalesce(g.device_total_ns, 0) DESC, p.host_total_ns DESC, p.path) AS rank
  FROM per_path p LEFT JOIN gpu g USING (tree, path)
), ordered(tree, path, sort_key) AS (
  SELECT tree, path, printf('%06d', rank) FROM node WHERE parent_path IS NULL
  UNION ALL
  SELECT n.tree, n.path, o.sort_key || printf('%06d', n.rank)
  FROM node n JOIN ordered o ON n.tree = o.tree AND n.parent_path = o.path
)
SELECT n.tree, n.path, n.name, n.parent_path, n.depth, n.calls, n.host_total_ns, n.device_total_ns,
  o.sort_key
FROM node n JOIN ordered o USING (tree, path);

-- The first user-code frame of each launching operator's Python stack
-- (with_stack=True): among the enclosing Python frames named
-- 'file.py(line): function', the one of lowest frame_rank() (user .py
-- files, then installed packages, then PyTorch), innermost first
-- (_attr_ctx.source_id, picked by the load).  report_source_name: each
-- such frame name once, in the display form.
--   op_id   launching operator
--   source  'file:line function'
CREATE TEMP TABLE report_source_name(name_id INTEGER PRIMARY KEY, source TEXT);
INSERT INTO report_source_name
SELECT id, profdb_display_name(
  filename || ':' || substr(value, length(filename) + 2, instr(value, '): ') - length(filename) - 2)
    || ' ' || substr(value, instr(value, '): ') + 3))
FROM (SELECT id, value, substr(value, 1, instr(value, '(') - 1) AS filename FROM _string
      WHERE id IN (SELECT source_id FROM _attr_ctx));
CREATE TEMP TABLE report_launch_source AS
SELECT l.op_id, f.source
FROM report_launch l JOIN _attr_ctx c ON c.id = l.ctx_id JOIN report_source_name f ON f.name_id = c.source_id;
CREATE UNIQUE INDEX temp.report_launch_source_by_op ON report_launch_source(op_id);
