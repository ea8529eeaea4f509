-- Title: New and vanished kernels
-- Question: Which kernels run in only one of the runs (by base name, so a
--   different template instantiation of the same kernel is not counted)?
--   Largest time per step first.
-- Requires: diff_kernel
-- Parameters: :top
-- Empty: every kernel of each run has a match in the other
-- Columns:
--   kernel          symbol base name (kernel_base())
--   change          -      new (after only) or vanished (before only)
--   category        -      kernel_category()
--   per_step_ns     ns     time per step in the run that has it
--   instances       count  instances in its analysed steps
SELECT kernel, matched_by AS change, category,
  CAST(round(max(before_per_step, after_per_step)) AS INTEGER) AS per_step_ns,
  before_instances + after_instances AS instances
FROM diff_kernel WHERE matched_by IN ('new', 'vanished')
ORDER BY per_step_ns DESC, kernel LIMIT :top;
