-- Export table device: the GPUs a rank's trace describes
-- (deviceProperties).
-- Parameters: :trace_id, :run, :rank.
-- Output:
--   run                 STRING  run
--   rank                INT64   rank
--   device_id           INT64   device ordinal
--   name                STRING  e.g. 'NVIDIA A100-SXM4-80GB'
--   total_memory_bytes  INT64   device memory (bytes)
--   compute_major       INT64   compute capability, major
--   compute_minor       INT64   compute capability, minor
--   num_sms             INT64   streaming multiprocessors
--   properties          STRING  every property as JSON
SELECT :run AS run, :rank AS rank, device_id, name, total_memory_bytes, compute_major,
  compute_minor, num_sms, properties
FROM device WHERE trace_id = :trace_id
ORDER BY device_id;
