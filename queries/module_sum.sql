-- Title: nn.Module hierarchy: host and device time
-- Question: Which layers of my model take the time?  Per module of the
--   hierarchy (nesting preserved: ResNet_0 > Sequential_1 > BasicBlock_0),
--   the CPU time of its forward calls and the GPU time of the work launched
--   inside them.  Rows are in tree order (children under their parent,
--   larger device time first); the JSON carries path, parent_path and depth
--   to rebuild the tree.  Backward work runs on autograd threads outside
--   the module ranges and is not charged to modules.
-- Requires: report_range_node
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
SELECT replace(hex(zeroblob(depth)), '00', char(160, 160)) || name AS module, calls,
  host_total_ns, device_total_ns,
  round(100.0 * device_total_ns / nullif((SELECT sum(dur) FROM report_gpu), 0), 2) AS device_pct,
  depth, path, parent_path
FROM report_range_node WHERE tree = 'module'
ORDER BY sort_key LIMIT 4 * :top;
