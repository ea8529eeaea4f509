-- Title: nn.Module hierarchy: host and device time
-- Question: Which layers of my model take the time?  Per module of the
--   hierarchy (nesting preserved: ResNet_0 > Sequential_1 > BasicBlock_0),
--   the CPU time of its forward calls and the GPU time of the work launched
--   inside them.  Rows are in tree order (children under their parent,
--   larger device time first); the JSON carries path, parent_path and depth
--   to rebuild the tree.  Backward work runs on autograd threads outside
--   the module ranges and is not charged to modules.
-- Requires: report_module_call
-- Parameters: :top
-- Empty: the trace has no nn.Module ranges; profile with with_stack=True
--   (or with_modules=True) to record them
-- Columns:
--   module           -      the module, indented under its parent
--   calls            count  calls (forward passes through it)
--   host_total_ns    ns     CPU time inside its calls
--   device_total_ns  ns     GPU time of the kernels, copies and fills launched inside its calls
--   device_pct       %      device_total_ns as a share of the GPU time of the scope
--   depth            count  0 for a top-level module
--   path             -      enclosing modules and itself, outermost first, joined by ' > '
--   parent_path      -      path of the enclosing module (NULL at the top)
WITH RECURSIVE per_path AS (
  SELECT path, max(module) AS module, max(parent_path) AS parent_path, max(depth) AS depth,
    count(*) AS calls, sum(dur) AS host_total_ns
  FROM report_module_call GROUP BY path
), gpu AS (
  -- each launching operator once per path, however often the path nests
  SELECT path, sum(l.gpu_ns) AS device_total_ns
  FROM (SELECT DISTINCT m.path, a.op_id FROM report_module_call m
        JOIN report_launch_anc a ON a.anc_id = m.id) x JOIN report_launch l USING (op_id)
  GROUP BY path
), node AS (
  SELECT p.*, coalesce(g.device_total_ns, 0) AS device_total_ns,
    row_number() OVER (PARTITION BY p.parent_path
                       ORDER BY coalesce(g.device_total_ns, 0) DESC, p.host_total_ns DESC, p.path) AS rank
  FROM per_path p LEFT JOIN gpu g USING (path)
), tree(path, sort_key) AS (
  SELECT path, printf('%06d', rank) FROM node WHERE parent_path IS NULL
  UNION ALL
  SELECT n.path, t.sort_key || printf('%06d', n.rank) FROM node n JOIN tree t ON n.parent_path = t.path
)
SELECT replace(hex(zeroblob(n.depth)), '00', char(160, 160)) || n.module AS module, n.calls,
  n.host_total_ns, n.device_total_ns,
  round(100.0 * n.device_total_ns / nullif((SELECT sum(dur) FROM report_gpu), 0), 2) AS device_pct,
  n.depth, n.path, n.parent_path
FROM node n JOIN tree t USING (path)
ORDER BY t.sort_key LIMIT 4 * :top;
