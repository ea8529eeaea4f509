-- Title: Segment sizes
-- Question: How is reserved memory split between small and large segments?
-- Requires: report_mem_device
-- Empty: no memory snapshot is loaded (see the memory summary)
-- Columns:
--   snapshot      -      snapshot id
--   device        -      device ordinal
--   bucket        -      segment size range
--   segments      count  segments in the range
--   total_size    bytes  their size
--   allocated     bytes  bytes in active_allocated blocks
--   pct_reserved  %      share of the device's reserved bytes
SELECT g.snapshot_id AS snapshot, g.device,
  CASE WHEN g.total_size >= 1073741824 THEN '>= 1 GiB'
       WHEN g.total_size >= 268435456 THEN '256 MiB - 1 GiB'
       WHEN g.total_size >= 67108864 THEN '64 - 256 MiB'
       WHEN g.total_size >= 2097152 THEN '2 - 64 MiB'
       ELSE '< 2 MiB' END AS bucket,
  count(*) AS segments, sum(g.total_size) AS total_size, sum(g.allocated_size) AS allocated,
  round(100.0 * sum(g.total_size) / max((SELECT sum(x.total_size) FROM segment x
        WHERE x.snapshot_id = g.snapshot_id AND x.device = g.device), 1), 2) AS pct_reserved
FROM segment g JOIN report_mem_device d ON d.snapshot_id = g.snapshot_id AND d.device = g.device
GROUP BY g.snapshot_id, g.device, bucket
ORDER BY g.snapshot_id, g.device, min(g.total_size) DESC;
