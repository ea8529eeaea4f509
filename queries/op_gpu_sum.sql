-- Title: Operators: host and device time
-- Question: Which PyTorch operators take the CPU and which the GPU time
--   (TensorBoard's operator view, key_averages())?  Device self time is the
--   GPU time of the kernels, copies and fills an operator launched itself;
--   device total adds those of the operators nested in it.  The device
--   self times of all rows plus '(no operator)' add up to the GPU time of
--   the scope.
-- Requires: report_trace
-- Parameters: :top
-- Empty: the trace has neither CPU operators nor GPU work
-- Columns:
--   name             symbol operator name; '(no operator)': GPU work launched outside any operator
--   calls            count  calls in the analysed steps
--   host_self_ns     ns     CPU time not spent in nested operators, Python frames or runtime calls
--   host_total_ns    ns     CPU time including nested work
--   device_self_ns   ns     GPU time of the work it launched itself
--   device_total_ns  ns     GPU time of the work it and the operators nested in it launched
--   device_self_pct  %      device_self_ns as a share of the GPU time of the scope
WITH gpu_total AS (SELECT sum(dur) AS ns FROM report_gpu),
rows AS (
  -- (an operator that started before the analysed steps but launched work
  -- in them has device time and no host row: its calls are NULL)
  SELECT n.name, s.calls, s.self_dur AS host_self_ns, s.total_dur AS host_total_ns,
    coalesce(g.device_self_ns, 0) AS device_self_ns, coalesce(g.device_total_ns, 0) AS device_total_ns
  FROM (SELECT name_id FROM report_op_stats UNION SELECT name_id FROM report_op_gpu) k
  JOIN report_name n USING (name_id)
  LEFT JOIN report_op_stats s USING (name_id) LEFT JOIN report_op_gpu g USING (name_id)
  UNION ALL
  SELECT '(no operator)', NULL, NULL, NULL, sum(g.dur), sum(g.dur)
  FROM report_gpu g
  WHERE NOT EXISTS (SELECT 1 FROM report_launch l WHERE l.op_id = g.op_id)
  HAVING count(*) > 0
)
SELECT name, calls, host_self_ns, host_total_ns, device_self_ns, device_total_ns,
  round(100.0 * device_self_ns / nullif((SELECT ns FROM gpu_total), 0), 2) AS device_self_pct
FROM rows
ORDER BY device_total_ns DESC, host_total_ns DESC, name LIMIT :top;
