-- Title: Operators by input shape
-- Question: Which operator and input-shape pairs take the time
--   (key_averages(group_by_input_shape=True))?  Device times as in
--   op_gpu_sum.
-- Requires: report_scope
-- Parameters: :top
-- Empty: the trace records no input shapes; profile with record_shapes=True
-- Columns:
--   name             symbol operator name
--   input_dims       -      "Input Dims" as recorded: one list per argument ([] for non-tensors)
--   input_types      -      "Input type" of the first call with these shapes
--   calls            count  calls
--   host_self_ns     ns     CPU self time (see op_gpu_sum)
--   host_total_ns    ns     CPU time including nested work
--   device_self_ns   ns     GPU time of the work it launched itself
--   device_total_ns  ns     GPU time including nested operators' work
WITH host AS (
  -- the load's totals per (name, shapes, types): _attr_shape
  SELECT s.name_id, s.input_dims, min(s.input_types) AS input_types, sum(a.calls) AS calls,
    sum(a.self_dur) AS host_self_ns, sum(a.total_dur) AS host_total_ns
  FROM _attr_shape a JOIN _slice s ON s.id = a.shape_id
  WHERE s.input_dims IS NOT NULL AND EXISTS (SELECT 1 FROM report_scope k
                WHERE k.trace_id = a.trace_id AND k.step = coalesce(a.step, -1))
  GROUP BY s.name_id, s.input_dims
)
SELECT profdb_display_name(n.value) AS name, h.input_dims, h.input_types, h.calls, h.host_self_ns, h.host_total_ns,
  coalesce(g.device_self_ns, 0) AS device_self_ns, coalesce(g.device_total_ns, 0) AS device_total_ns
FROM host h JOIN _string n ON n.id = h.name_id
LEFT JOIN report_op_shape_gpu g USING (name_id, input_dims)
WHERE n.value NOT GLOB 'ProfilerStep#*'
ORDER BY device_total_ns DESC, host_total_ns DESC, name, h.input_dims LIMIT :top;
