-- Title: CPU operators that moved the most
-- Question: Which operators' time per step changed the most, by self time
--   (the operator's own work) and by total time (with what it calls)?
-- Requires: diff_op_step
-- Parameters: :top
-- Empty: neither run has CPU operators in its analysed steps
-- Columns:
--   name              symbol operator name
--   before_self_ns    ns     self time per step, before
--   after_self_ns     ns     self time per step, after
--   delta_self_ns     ns     after - before
--   before_total_ns   ns     total time per step, before
--   after_total_ns    ns     total time per step, after
--   delta_total_ns    ns     after - before
--   before_calls      count  calls in the analysed steps, before
--   after_calls       count  calls in the analysed steps, after
SELECT name, CAST(round(before_self) AS INTEGER) AS before_self_ns,
  CAST(round(after_self) AS INTEGER) AS after_self_ns,
  CAST(round(after_self - before_self) AS INTEGER) AS delta_self_ns,
  CAST(round(before_total) AS INTEGER) AS before_total_ns,
  CAST(round(after_total) AS INTEGER) AS after_total_ns,
  CAST(round(after_total - before_total) AS INTEGER) AS delta_total_ns,
  before_calls, after_calls
FROM diff_op_step
ORDER BY max(abs(after_self - before_self), abs(after_total - before_total)) DESC, name
LIMIT :top;
