-- Title: Fragmentation and OOM risk
-- Question: How much reserved memory is cached but unusable for a large
--   allocation, would expandable segments help, and how close is the
--   device to running out?
--   pinned_small_blocks: allocated blocks under 2 MiB with an inactive
--   block on both sides (they keep the segment from being released or
--   merged).  expandable_would_help: over 10% of reserved is inactive
--   across more than 10 segments and expandable segments are not on.
-- Requires: report_mem_device
-- Empty: no memory snapshot is loaded (see the memory summary)
-- Columns:
--   snapshot               -      snapshot id
--   device                 -      device ordinal
--   reserved               bytes  bytes in segments
--   inactive               bytes  bytes in inactive blocks
--   inactive_pct           %      inactive / reserved: fragmentation
--   largest_inactive       bytes  largest single inactive block (largest allocation that fits without growing)
--   pinned_small_blocks    count  small allocated blocks between inactive ones
--   segments               count  segments
--   expandable_on          -      1 when allocator_settings enables expandable segments, 0 off, empty unknown
--   expandable_would_help  -      'yes' / 'no'
--   capacity               bytes  device memory (--gpu-gb, else deviceProperties); empty when unknown
--   headroom               bytes  capacity - reserved
--   oom_risk               -      'critical' (< 1 GiB headroom), 'high' (< 2 GiB), 'low', or 'unknown'
WITH blocks AS (
  SELECT b.snapshot_id, s.device, b.segment_id, b.position, b.size, b.state,
    lag(b.state) OVER w AS prev_state, lead(b.state) OVER w AS next_state
  FROM block b JOIN segment s USING (segment_id)
  JOIN report_mem_device d ON d.snapshot_id = b.snapshot_id AND d.device = s.device
  WINDOW w AS (PARTITION BY b.segment_id ORDER BY b.position)
), per_device AS (
  SELECT d.snapshot_id, d.device,
    (SELECT coalesce(sum(total_size), 0) FROM segment g WHERE g.snapshot_id = d.snapshot_id AND g.device = d.device) AS reserved,
    (SELECT count(*) FROM segment g WHERE g.snapshot_id = d.snapshot_id AND g.device = d.device) AS segments,
    (SELECT coalesce(sum(size), 0) FROM blocks b WHERE b.snapshot_id = d.snapshot_id AND b.device = d.device AND b.state = 'inactive') AS inactive,
    (SELECT max(size) FROM blocks b WHERE b.snapshot_id = d.snapshot_id AND b.device = d.device AND b.state = 'inactive') AS largest_inactive,
    (SELECT count(*) FROM blocks b WHERE b.snapshot_id = d.snapshot_id AND b.device = d.device
       AND b.state = 'active_allocated' AND b.size < 2097152
       AND b.prev_state = 'inactive' AND b.next_state = 'inactive') AS pinned,
    (SELECT CASE WHEN value IN (1, 'true', 'True') THEN 1 ELSE 0 END FROM allocator_setting a
     WHERE a.snapshot_id = d.snapshot_id AND a.key = 'expandable_segments') AS expandable_on
  FROM report_mem_device d
)
SELECT p.snapshot_id AS snapshot, p.device, p.reserved, p.inactive,
  round(100.0 * p.inactive / max(p.reserved, 1), 2) AS inactive_pct,
  p.largest_inactive, p.pinned AS pinned_small_blocks, p.segments, p.expandable_on,
  CASE WHEN p.inactive > 0.1 * p.reserved AND p.segments > 10 AND coalesce(p.expandable_on, 0) = 0
       THEN 'yes' ELSE 'no' END AS expandable_would_help,
  c.bytes AS capacity, c.bytes - p.reserved AS headroom,
  CASE WHEN c.bytes IS NULL THEN 'unknown'
       WHEN c.bytes - p.reserved < 1073741824 THEN 'critical'
       WHEN c.bytes - p.reserved < 2147483648 THEN 'high' ELSE 'low' END AS oom_risk
FROM per_device p, report_capacity c ORDER BY p.snapshot_id, p.device;
