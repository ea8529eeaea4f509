-- Title: Memory allocated per operator ([memory] events)
-- Question: Which operators allocate memory, and how much does each leave
--   allocated (TensorBoard's memory view: allocation count and size, self
--   size increase)?  Each [memory] event of the trace (profile_memory=True)
--   is charged to the innermost operator running on its thread at that
--   instant.
-- Requires: report_mem_event_op
-- Parameters: :top
-- Empty: the trace has no [memory] events; profile with profile_memory=True
-- Columns:
--   name                symbol operator name ('(no operator)': outside any operator)
--   device              -      'CPU', or 'CUDA:N' (c10 DeviceType and ordinal)
--   allocations         count  allocation events
--   allocated_bytes     bytes  bytes allocated
--   frees               count  free events
--   freed_bytes         bytes  bytes freed
--   size_increase_bytes bytes  allocated minus freed inside the operator itself (self size increase)
SELECT coalesce(profdb_display_name(n.value), '(no operator)') AS name,
  CASE e.device_type WHEN 0 THEN 'CPU' WHEN 1 THEN 'CUDA:' || e.device_id
    ELSE e.device_type || ':' || e.device_id END AS device,
  sum(e.bytes > 0) AS allocations, sum(CASE WHEN e.bytes > 0 THEN e.bytes ELSE 0 END) AS allocated_bytes,
  sum(e.bytes < 0) AS frees, -sum(CASE WHEN e.bytes < 0 THEN e.bytes ELSE 0 END) AS freed_bytes,
  sum(e.bytes) AS size_increase_bytes
FROM report_mem_event_op e LEFT JOIN _slice s ON s.id = e.op_id LEFT JOIN _string n ON n.id = s.name_id
GROUP BY name, device
ORDER BY allocated_bytes DESC, size_increase_bytes DESC, name, device LIMIT :top;
