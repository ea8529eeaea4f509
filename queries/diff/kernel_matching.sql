-- Title: How the kernels were matched
-- Question: How much of each run's kernel time found a partner in the
--   other run, and by which rule (name, base name, operator, operator
--   name; docs/definitions.md, "Kernel matching")?  When the runs are on
--   different GPUs or library versions, most time should match by
--   operator; time left 'new' or 'vanished' is compared with nothing.
-- Requires: diff_kernel
-- Empty: neither run has GPU kernels in its analysed steps
-- Columns:
--   matched_by    -      name, base name, operator, operator name, new or vanished
--   pairs         count  rows of the kernel table matched this way
--   before_ns     ns     kernel time per step matched this way, before
--   after_ns      ns     kernel time per step matched this way, after
--   before_pct    %      share of the before run's kernel time
--   after_pct     %      share of the after run's kernel time
WITH t AS (
  SELECT sum(before_per_step) AS tb, sum(after_per_step) AS ta FROM diff_kernel
)
SELECT matched_by, count(*) AS pairs, CAST(round(sum(before_per_step)) AS INTEGER) AS before_ns,
  CAST(round(sum(after_per_step)) AS INTEGER) AS after_ns,
  round(100.0 * sum(before_per_step) / max(t.tb, 1), 2) AS before_pct,
  round(100.0 * sum(after_per_step) / max(t.ta, 1), 2) AS after_pct
FROM diff_kernel, t GROUP BY matched_by
ORDER BY CASE matched_by WHEN 'name' THEN 1 WHEN 'base name' THEN 2 WHEN 'operator' THEN 3
  WHEN 'operator name' THEN 4 WHEN 'vanished' THEN 5 ELSE 6 END;
