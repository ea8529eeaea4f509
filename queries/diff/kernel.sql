-- Title: Kernels that moved the most
-- Question: Which kernels' time per step changed the most?  Matched by
--   name, else by base name (kernel_base(): template arguments dropped),
--   else by the operator that launched them (same operator, input shapes,
--   parent and kernel category: kernels a different GPU or library
--   renames), else by operator name and category; 'new' and 'vanished'
--   kernels count as moving from or to zero.
-- Requires: diff_kernel
-- Parameters: :top
-- Empty: neither run has GPU kernels in its analysed steps
-- Columns:
--   kernel             symbol kernel name (base name when matched by it or unmatched; the operator key when matched by operator)
--   matched_by         -      name, base name, operator, operator name, new (after only) or vanished (before only)
--   category           -      kernel_category()
--   before_ns          ns     time per step, before
--   after_ns           ns     time per step, after
--   delta_ns           ns     after - before
--   speedup            -      before / after (empty when one side is 0)
--   before_instances   count  instances in the analysed steps, before
--   after_instances    count  instances in the analysed steps, after
--   before_kernels     symbol operator matches: the kernels (base names) paired, before
--   after_kernels      symbol operator matches: the kernels (base names) paired, after
SELECT kernel, matched_by, category, CAST(round(before_per_step) AS INTEGER) AS before_ns,
  CAST(round(after_per_step) AS INTEGER) AS after_ns,
  CAST(round(after_per_step - before_per_step) AS INTEGER) AS delta_ns,
  CASE WHEN after_per_step > 0 AND before_per_step > 0
    THEN round(before_per_step / after_per_step, 3) END AS speedup,
  before_instances, after_instances, before_kernels, after_kernels
FROM diff_kernel
ORDER BY abs(after_per_step - before_per_step) DESC, kernel LIMIT :top;
