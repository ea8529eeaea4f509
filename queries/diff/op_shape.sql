-- Title: Operators by name and input shapes
-- Question: Which operator calls got slower on the host or on the device?
--   Per operator name and input shapes (Input Dims, when recorded), per
--   step: host time (the operator's own span, children included) and
--   device time (kernels it launched itself, _gpu_link.op_id).  The table
--   that stays meaningful across GPUs, where kernel names differ.  Largest
--   change first.
-- Requires: diff_op_shape
-- Parameters: :top
-- Empty: neither run has CPU operators in its analysed steps
-- Columns:
--   name               symbol operator name
--   shapes             -      input shapes (JSON), empty when not recorded
--   before_calls       count  calls in the analysed steps, before
--   after_calls        count  calls in the analysed steps, after
--   before_host_ns     ns     host time per step, before
--   after_host_ns      ns     host time per step, after
--   before_device_ns   ns     device time per step of the kernels it launched, before
--   after_device_ns    ns     device time per step, after
--   delta_device_ns    ns     after - before, device
WITH steps AS (
  SELECT (SELECT steps FROM diff_per_step WHERE side = 'before') AS sb,
    (SELECT steps FROM diff_per_step WHERE side = 'after') AS sa
), k AS (
  SELECT op, shapes, coalesce(sum(total_dur) FILTER (WHERE side = 'before'), 0) AS kb,
    coalesce(sum(total_dur) FILTER (WHERE side = 'after'), 0) AS ka
  FROM diff_gpu_launch WHERE op <> '' GROUP BY op, shapes
), o AS (
  SELECT o.name, o.shapes, o.before_calls, o.after_calls, 1.0 * o.before_dur / s.sb AS hb,
    1.0 * o.after_dur / s.sa AS ha, 1.0 * coalesce(k.kb, 0) / s.sb AS db,
    1.0 * coalesce(k.ka, 0) / s.sa AS da
  FROM diff_op_shape o CROSS JOIN steps s LEFT JOIN k ON k.op = o.name AND k.shapes = o.shapes
)
SELECT name, shapes, before_calls, after_calls, CAST(round(hb) AS INTEGER) AS before_host_ns,
  CAST(round(ha) AS INTEGER) AS after_host_ns, CAST(round(db) AS INTEGER) AS before_device_ns,
  CAST(round(da) AS INTEGER) AS after_device_ns, CAST(round(da - db) AS INTEGER) AS delta_device_ns
FROM o ORDER BY max(abs(da - db), abs(ha - hb)) DESC, name, shapes LIMIT :top;
