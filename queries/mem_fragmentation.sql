-- Title: Fragmentation and OOM risk
-- Question: How much reserved memory is cached but unusable for a large
--   allocation, would expandable segments help, and how close is the
--   device to running out?  The final snapshot's figures (reserved,
--   inactive) describe the end of the run; what matters for an
--   out-of-memory error is the state at the replayed peak (peak_*
--   columns, split as PyTorch's _memory_viz.py segsum does:
--   peak_reserved - peak_requested = peak_internal + peak_external +
--   peak_free_segments).
--   pinned_small_blocks: allocated blocks under 2 MiB with an inactive
--   block on both sides (they keep the segment from being released or
--   merged).  expandable_would_help: at the peak, free space inside partly
--   used segments (peak_external) is over 10% of what is reserved there,
--   across more than 10 segments, and expandable segments are not on
--   (neither the allocator setting nor any segment's is_expandable).
-- Requires: report_mem_device
-- Empty: no memory snapshot is loaded (see the memory summary)
-- Columns:
--   snapshot               -      snapshot id
--   device                 -      device ordinal
--   reserved               bytes  bytes in segments (final snapshot)
--   inactive               bytes  bytes in inactive blocks (final snapshot)
--   inactive_pct           %      inactive / reserved (final snapshot)
--   peak_reserved          bytes  bytes in segments at the allocation peak
--   peak_requested         bytes  bytes requested by the allocations live at the peak
--   peak_internal          bytes  block size - requested size of those allocations (rounding)
--   peak_external          bytes  free bytes inside segments that hold live allocations at the peak
--   peak_free_segments     bytes  segments holding no allocation at the peak (cached, releasable)
--   largest_inactive       bytes  largest single inactive block (largest allocation that fits without growing)
--   pinned_small_blocks    count  small allocated blocks between inactive ones
--   segments               count  segments
--   expandable_on          -      1 when allocator_settings enables expandable segments, 0 off, empty unknown
--   expandable_would_help  -      'yes' / 'no' (from the peak figures)
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
  f.reserved AS peak_reserved, f.requested AS peak_requested, f.internal AS peak_internal,
  f.external AS peak_external, f.free_segments AS peak_free_segments,
  p.largest_inactive, p.pinned AS pinned_small_blocks, p.segments, p.expandable_on,
  CASE WHEN f.external > 0.1 * f.reserved AND p.segments > 10 AND coalesce(p.expandable_on, 0) = 0
         AND NOT EXISTS (SELECT 1 FROM segment g WHERE g.snapshot_id = p.snapshot_id
                         AND g.device = p.device AND g.is_expandable = 1)
       THEN 'yes' ELSE 'no' END AS expandable_would_help,
  c.bytes AS capacity, c.bytes - p.reserved AS headroom,
  CASE WHEN c.bytes IS NULL THEN 'unknown'
       WHEN c.bytes - p.reserved < 1073741824 THEN 'critical'
       WHEN c.bytes - p.reserved < 2147483648 THEN 'high' ELSE 'low' END AS oom_risk
FROM per_device p LEFT JOIN report_mem_frag_peak f USING (snapshot_id, device), report_capacity c
ORDER BY p.snapshot_id, p.device;
