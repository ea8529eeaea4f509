-- Measure: per snapshot device: its memory figures.
-- Builds: measure_mem
-- Reads: alloc_event, allocator_setting, block, report_capacity, report_mem_device,
--   report_mem_frag_peak, report_mem_peak, segment
CREATE TEMP TABLE measure_mem (
  snapshot_id        INTEGER,  -- snapshot
  device             INTEGER,  -- device
  reserved           INTEGER,  -- reserved at the end, bytes
  inactive           INTEGER,  -- inactive blocks at the end, bytes
  segments           INTEGER,  -- segments
  ooms               INTEGER,  -- out-of-memory events
  expandable_on      INTEGER,  -- 1/0: the expandable_segments setting; NULL: not recorded
  peak_allocated     INTEGER,  -- peak allocated (requested sizes), bytes
  peak_reserved      INTEGER,  -- peak reserved, bytes
  end_allocated      INTEGER,  -- allocated at the end, bytes
  capacity           INTEGER,  -- device memory, bytes
  frag_reserved      INTEGER,  -- reserved at the allocation peak, bytes
  frag_requested     INTEGER,  -- requested at the peak, bytes
  frag_internal      INTEGER,  -- rounding inside blocks at the peak, bytes
  frag_external      INTEGER,  -- free space inside segments holding allocations at the peak,
                               --   bytes
  frag_free_segments INTEGER   -- segments holding nothing at the peak, bytes
) STRICT;
INSERT INTO measure_mem
  SELECT d.snapshot_id, d.device,
    (SELECT coalesce(sum(total_size),
      0) FROM segment g WHERE g.snapshot_id = d.snapshot_id AND g.device = d.device) AS reserved,
    (SELECT coalesce(sum(b.size), 0) FROM block b JOIN segment g USING (segment_id)
      WHERE g.snapshot_id = d.snapshot_id AND g.device = d.device AND b.state = 'inactive') AS
        inactive,
    (SELECT count(*) FROM segment g WHERE g.snapshot_id = d.snapshot_id AND g.device = d.device)
      AS segments,
    (SELECT count(*) FROM alloc_event e WHERE e.snapshot_id = d.snapshot_id AND e.device =
      d.device AND e.action = 'oom') AS ooms,
    (SELECT CASE WHEN value IN (1, 'true', 'True') THEN 1 ELSE 0 END FROM allocator_setting a
      WHERE a.snapshot_id = d.snapshot_id AND a.key = 'expandable_segments') AS expandable_on,
    p.peak_allocated, p.peak_reserved, p.end_allocated, c.bytes AS capacity,
    f.reserved AS frag_reserved, f.requested AS frag_requested, f.internal AS frag_internal,
    f.external AS frag_external, f.free_segments AS frag_free_segments
  FROM report_mem_device d LEFT JOIN report_mem_peak p USING (snapshot_id, device)
  LEFT JOIN report_mem_frag_peak f USING (snapshot_id, device), report_capacity c;
