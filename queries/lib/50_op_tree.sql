-- Whose GPU time: the GPU work of the analysed steps (report_gpu) charged
-- to the CPU slices it was launched from.  kernel.op_id is the operator
-- that launched it; every slice enclosing that operator on its thread
-- (parent operators, nn.Module ranges, record_function annotations,
-- Python frames) launched it too.  Computed once for op_gpu_sum,
-- op_shape_sum, module_sum, annotation_sum, source_gpu_sum,
-- gemm_efficiency and the findings.

-- GPU time launched by each operator itself (its device self time, as
-- TensorBoard's operator view and key_averages() define it).
--   op_id       the launching cpu_op's event_id
--   gpu_ns      sum of the durations of the kernels, copies and fills it launched
--   activities  how many
CREATE TEMP TABLE report_launch AS
SELECT g.op_id, sum(g.dur) AS gpu_ns, count(*) AS activities
FROM report_gpu g JOIN _slice s ON s.id = g.op_id AND s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
GROUP BY g.op_id;
CREATE UNIQUE INDEX temp.report_launch_by_op ON report_launch(op_id);

-- Every slice enclosing a launching operator on its thread, the operator
-- itself included (distance 0): the op tree walked upwards.
--   op_id     launching operator
--   anc_id    enclosing slice (any kind: cpu_op, user_annotation, python_function, ...)
--   distance  levels between them (0 = the operator itself)
CREATE TEMP TABLE report_launch_anc AS
WITH RECURSIVE up(op_id, anc_id, distance) AS (
  SELECT op_id, op_id, 0 FROM report_launch
  UNION ALL
  SELECT up.op_id, t.parent_id, up.distance + 1
  FROM up JOIN _slice_tree t ON t.id = up.anc_id
  WHERE t.parent_id IS NOT NULL
)
SELECT op_id, anc_id, distance FROM up;
CREATE INDEX temp.report_launch_anc_by_anc ON report_launch_anc(anc_id);

-- Device time per operator name.  An activity counts once per name even
-- when operators of that name nest (aten::matmul inside aten::matmul), so
-- device_total_ns never exceeds the GPU time of the scope.
--   device_self_ns   GPU time of the work the operators of this name launched themselves
--   device_total_ns  the same including the work of the operators nested in them
CREATE TEMP TABLE report_op_gpu AS
WITH per_name AS (
  SELECT s.name_id, a.op_id, max(a.distance = 0) AS is_self
  FROM report_launch_anc a JOIN _slice s ON s.id = a.anc_id AND s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
  GROUP BY s.name_id, a.op_id
)
SELECT p.name_id, sum(CASE WHEN p.is_self THEN l.gpu_ns ELSE 0 END) AS device_self_ns,
  sum(l.gpu_ns) AS device_total_ns
FROM per_name p JOIN report_launch l USING (op_id)
GROUP BY p.name_id;

-- Device time per operator name and input shapes (record_shapes=True);
-- the same rules as report_op_gpu.
--   name_id, input_dims  operator name and its "Input Dims" (JSON text)
CREATE TEMP TABLE report_op_shape_gpu AS
WITH per_shape AS (
  SELECT s.name_id, s.input_dims, a.op_id, max(a.distance = 0) AS is_self
  FROM report_launch_anc a JOIN _slice s ON s.id = a.anc_id AND s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
  WHERE s.input_dims IS NOT NULL
  GROUP BY s.name_id, s.input_dims, a.op_id
)
SELECT p.name_id, p.input_dims, sum(CASE WHEN p.is_self THEN l.gpu_ns ELSE 0 END) AS device_self_ns,
  sum(l.gpu_ns) AS device_total_ns
FROM per_shape p JOIN report_launch l USING (op_id)
GROUP BY p.name_id, p.input_dims;

-- The ranges users name: nn.Module calls ('nn.Module: Linear_0' Python
-- frames, recorded with with_stack=True or with_modules=True) and
-- record_function annotations (ProfilerStep#N excluded) of the analysed
-- steps, each placed under the ranges of its own tree enclosing it on its
-- thread.
--   tree             'module' or 'annotation'
--   id, trace_id     the range's event_id and trace
--   name             module name without 'nn.Module: ' ('Linear_0': class and instance
--                    number), or the annotation's name
--   path             the enclosing ranges' names and its own, outermost first, joined by ' > '
--   parent_path      path of the enclosing range, NULL at the top
--   depth            0 at the top
--   dur              duration of this call (ns)
CREATE TEMP TABLE report_range_call AS
WITH RECURSIVE range AS (
  SELECT s.id, s.trace_id, CASE s.kind WHEN (SELECT kind FROM _kind WHERE name = 'python_function') THEN 'module' ELSE 'annotation' END AS tree,
    CASE s.kind WHEN (SELECT kind FROM _kind WHERE name = 'python_function') THEN substr(n.value, 12) ELSE n.value END AS name, s.dur
  FROM _slice s JOIN _string n ON n.id = s.name_id JOIN _slice_tree t ON t.id = s.id
  WHERE ((s.kind = (SELECT kind FROM _kind WHERE name = 'python_function') AND n.value LIKE 'nn.Module: %')
         OR (s.kind = (SELECT kind FROM _kind WHERE name = 'user_annotation') AND n.value NOT GLOB 'ProfilerStep#*'))
    AND s.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM report_scope k
                WHERE k.trace_id = s.trace_id AND k.step = coalesce(t.step, -1))
), up(id, anc_id, distance) AS (
  SELECT id, id, 0 FROM range
  UNION ALL
  SELECT up.id, t.parent_id, up.distance + 1
  FROM up JOIN _slice_tree t ON t.id = up.anc_id WHERE t.parent_id IS NOT NULL
), chain AS (
  -- the ranges of the same tree enclosing each one (itself included), outermost first
  SELECT up.id, a.name, up.distance
  FROM up JOIN range a ON a.id = up.anc_id JOIN range r ON r.id = up.id AND r.tree = a.tree
  ORDER BY up.id, up.distance DESC
)
SELECT r.tree, r.id, r.trace_id, r.name, c.path,
  CASE WHEN c.depth > 0 THEN substr(c.path, 1, length(c.path) - length(r.name) - 3) END AS parent_path,
  c.depth, r.dur
FROM range r JOIN (SELECT id, group_concat(name, ' > ') AS path, count(*) - 1 AS depth
                   FROM chain GROUP BY id) c USING (id);
CREATE INDEX temp.report_range_call_by_id ON report_range_call(id);

-- One row per node of the module and annotation trees, in tree order
-- (children under their parent, siblings by device time, then host time).
--   tree, path, name, parent_path, depth   the node (see report_range_call)
--   calls            calls of ranges with that path
--   host_total_ns    their summed durations
--   device_total_ns  GPU time of the work launched inside them, each launching operator once per path
--   sort_key         orders the rows of one tree depth-first
CREATE TEMP TABLE report_range_node AS
WITH RECURSIVE per_path AS (
  SELECT tree, path, max(name) AS name, max(parent_path) AS parent_path, max(depth) AS depth,
    count(*) AS calls, sum(dur) AS host_total_ns
  FROM report_range_call GROUP BY tree, path
), gpu AS (
  SELECT tree, path, sum(l.gpu_ns) AS device_total_ns
  FROM (SELECT DISTINCT m.tree, m.path, a.op_id FROM report_range_call m
        JOIN report_launch_anc a ON a.anc_id = m.id) x JOIN report_launch l USING (op_id)
  GROUP BY tree, path
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
-- files, then installed packages, then PyTorch), innermost first.
--   op_id   launching operator
--   source  'file:line function'
CREATE TEMP TABLE report_launch_source AS
WITH frame_name AS (
  -- each distinct Python frame name once: its file, rank and display form
  SELECT id AS name_id, frame_rank(filename) AS rank,
    filename || ':' || substr(value, length(filename) + 2, instr(value, '): ') - length(filename) - 2)
      || ' ' || substr(value, instr(value, '): ') + 3) AS source
  FROM (SELECT id, value, substr(value, 1, instr(value, '(') - 1) AS filename FROM _string
        WHERE value GLOB '*.py([0-9]*): *')
), ranked AS (
  -- the lowest (rank, distance) per operator; SQLite takes the bare column
  -- source from the row holding the min()
  SELECT a.op_id, f.source, min(f.rank * 1000000 + a.distance) AS pick
  FROM report_launch_anc a JOIN _slice s ON s.id = a.anc_id AND s.kind = (SELECT kind FROM _kind WHERE name = 'python_function')
  JOIN frame_name f ON f.name_id = s.name_id
  GROUP BY a.op_id
)
SELECT op_id, source FROM ranked;
