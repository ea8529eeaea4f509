-- profdb diff, what each run ran on: the facts that qualify a comparison
-- when they differ (the verdict's caveats).  One row per side and fact,
-- from the traces' metadata; values of several traces (ranks) are listed,
-- distinct, in order.  A fact neither run recorded has no row.
--   fact: 'GPUs' (deviceProperties names), 'world size' (distributedInfo),
--   'NCCL version' (distributedInfo.nccl_version), 'CUDA runtime',
--   'CUDA driver', 'CUPTI version', 'HIP runtime' (Kineto's top-level
--   version keys, traces since 2024-09)
CREATE TEMP TABLE diff_env AS
WITH m AS (
  SELECT 'after' AS side, key, value FROM main.trace_metadata
  UNION ALL
  SELECT 'before', key, value FROM base.trace_metadata
), t AS (
  SELECT 'after' AS side, world_size FROM main.trace
  UNION ALL
  SELECT 'before', world_size FROM base.trace
), facts(side, fact, value) AS (
  SELECT side, 'GPUs', devices FROM diff_run WHERE devices IS NOT NULL
  UNION ALL
  SELECT side, 'world size', world_size FROM t WHERE world_size IS NOT NULL
  UNION ALL
  SELECT side, 'NCCL version', json_extract(value, '$.nccl_version') FROM m
  WHERE key = 'distributedInfo' AND json_valid(value)
    AND json_extract(value, '$.nccl_version') IS NOT NULL
  UNION ALL
  SELECT side, CASE key WHEN 'cuda_runtime_version' THEN 'CUDA runtime'
    WHEN 'cuda_driver_version' THEN 'CUDA driver' WHEN 'cupti_version' THEN 'CUPTI version'
    ELSE 'HIP runtime' END, value FROM m
  WHERE key IN ('cuda_runtime_version', 'cuda_driver_version', 'cupti_version',
                'hip_runtime_version')
)
SELECT side, fact, group_concat(value, ', ') AS value
FROM (SELECT DISTINCT side, fact, value FROM facts ORDER BY side, fact, value)
GROUP BY side, fact;
