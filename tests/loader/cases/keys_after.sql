-- late-bound keys: the distributedInfo after traceEvents wins (rank 3),
-- world_size/backend come from the last one too (absent there: NULL)
SELECT trace_id, label, rank, world_size, backend, status, layout,
  schema_version, base_time_ns, display_time_unit, trace_name, events
FROM trace;
SELECT position, key, value FROM trace_metadata ORDER BY position;
SELECT trace_id, device_id, name, total_memory_bytes, compute_major,
  compute_minor, num_sms FROM device;
-- absolute time of the op = base + ts
SELECT name, ts, dur, base_time_ns + ts AS abs_ts
FROM cpu_op JOIN trace USING (trace_id);
