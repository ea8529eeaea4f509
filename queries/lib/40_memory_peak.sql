-- Peak replay, computed once for the mem_peak* sections and the findings:
-- the peak of each (snapshot, device) and the allocations live at it
-- (mem_peak / mem_live_at from the profdb extension).

CREATE TEMP TABLE report_mem_peak AS
SELECT d.snapshot_id, d.device, p.peak_allocated, p.peak_seq, p.baseline,
  p.end_allocated, p.peak_reserved, p.events
FROM report_mem_device d, mem_peak(d.snapshot_id, d.device) p;

CREATE TEMP TABLE report_mem_live AS
SELECT p.snapshot_id, p.device, l.addr, l.size, l.alloc_seq, l.stack_id
FROM report_mem_peak p, mem_live_at(p.snapshot_id, p.device, coalesce(p.peak_seq, -1)) l;

-- Keyed like every join on them: without these, a snapshot with many
-- devices joins them device by device (20,000 devices: 37 s instead of
-- well under a second).
CREATE INDEX temp.report_mem_peak_key ON report_mem_peak(snapshot_id, device);
CREATE INDEX temp.report_mem_live_key ON report_mem_live(snapshot_id, device);

-- The segments reserved right after the peak event (peak_seq), rebuilt
-- from the final snapshot's segments and the segment events: a segment is
-- there when its last segment event up to the peak mapped it, or, with no
-- event up to the peak, when its first later event unmaps it or (no event
-- at all) the final snapshot has it.
--   snapshot_id, device  the replay
--   address, size        the segment (bytes)
-- The segment events of the replayed devices, indexed: the rebuild looks
-- each segment's events up (a CTE here would be scanned once per segment:
-- quadratic in a snapshot with thousands of devices).
--   snapshot_id, device, seq, addr, size  the event
--   maps      1 for segment_alloc / segment_map, 0 for a free / unmap
--   peak_seq  the device's peak event
CREATE TEMP TABLE report_mem_segment_event AS
SELECT p.snapshot_id, p.device, e.seq, e.addr, e.size,
  e.action IN ('segment_alloc', 'segment_map') AS maps, p.peak_seq
FROM report_mem_peak p JOIN alloc_event e USING (snapshot_id, device)
WHERE e.action IN ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap');
CREATE INDEX temp.report_mem_segment_event_key
  ON report_mem_segment_event(snapshot_id, device, addr, seq);

CREATE TEMP TABLE report_mem_peak_segment AS
WITH ev AS (SELECT * FROM report_mem_segment_event), known AS (
  SELECT p.snapshot_id, p.device, s.address AS addr, s.total_size AS size, 1 AS in_final,
    p.peak_seq
  FROM report_mem_peak p JOIN segment s USING (snapshot_id, device)
  UNION
  SELECT snapshot_id, device, addr, size, 0, peak_seq FROM ev
), judged AS (
  SELECT k.snapshot_id, k.device, k.addr, k.size, max(k.in_final) AS in_final,
    (SELECT e.maps FROM report_mem_segment_event e WHERE e.snapshot_id = k.snapshot_id AND e.device = k.device
       AND e.addr = k.addr AND e.seq <= coalesce(k.peak_seq, -1) ORDER BY e.seq DESC LIMIT 1) AS before,
    (SELECT e.maps FROM report_mem_segment_event e WHERE e.snapshot_id = k.snapshot_id AND e.device = k.device
       AND e.addr = k.addr AND e.seq > coalesce(k.peak_seq, -1) ORDER BY e.seq LIMIT 1) AS after
  FROM known k GROUP BY k.snapshot_id, k.device, k.addr, k.size
)
SELECT snapshot_id, device, addr AS address, size FROM judged
WHERE CASE WHEN before IS NOT NULL THEN before WHEN after IS NOT NULL THEN NOT after
           ELSE in_final END;
CREATE INDEX temp.report_mem_peak_segment_by_addr
  ON report_mem_peak_segment(snapshot_id, device, address);

-- Allocated blocks of the final snapshots, by address (block sizes of the
-- live allocations at the peak that are still there).
CREATE TEMP TABLE report_mem_final_block AS
SELECT b.snapshot_id, b.device, b.address, b.size, b.requested_size
FROM block b JOIN report_mem_peak p USING (snapshot_id, device)
WHERE b.state = 'active_allocated';
CREATE INDEX temp.report_mem_final_block_by_addr
  ON report_mem_final_block(snapshot_id, device, address);

-- Fragmentation at the peak, split as PyTorch's _memory_viz.py segsum
-- splits a snapshot (docs/definitions.md, "Fragmentation at the peak"):
-- reserved - requested = internal + external + free_segments.
--   reserved        bytes in the segments at the peak
--   requested       bytes the live allocations asked for
--   internal        block size - requested size of the live allocations
--                   (the block size: the final snapshot's block at the same
--                   address when it holds the same request, else the
--                   request rounded up to 512 bytes as the allocator does)
--   external        free bytes inside segments that hold live allocations:
--                   what expandable segments can give back at most
--   free_segments   segments with no live allocation (empty_cache() would
--                   release them)
--   unplaced        live allocations in no rebuilt segment (0 when the
--                   rebuild is consistent)
-- Each live allocation at the peak: its block size and its segment.
-- Tables with an index, not CTEs: the sums below look them up per device.
CREATE TEMP TABLE report_mem_peak_block AS
  SELECT l.snapshot_id, l.device, l.addr, l.size AS requested,
    coalesce((SELECT b.size FROM report_mem_final_block b WHERE b.snapshot_id = l.snapshot_id
                AND b.device = l.device AND b.address = l.addr AND b.requested_size = l.size),
             CASE WHEN l.size < 512 THEN 512 ELSE (l.size + 511) / 512 * 512 END) AS block_size,
    (SELECT s.address FROM report_mem_peak_segment s
     WHERE s.snapshot_id = l.snapshot_id AND s.device = l.device AND s.address <= l.addr
       AND s.address + s.size > l.addr
     ORDER BY s.address DESC LIMIT 1) AS segment
  FROM report_mem_live l;
CREATE INDEX temp.report_mem_peak_block_key ON report_mem_peak_block(snapshot_id, device);
-- Bytes of blocks per segment that holds a live allocation.
CREATE TEMP TABLE report_mem_peak_used AS
  SELECT snapshot_id, device, segment, sum(block_size) AS blocks FROM report_mem_peak_block
  WHERE segment IS NOT NULL GROUP BY snapshot_id, device, segment;
CREATE INDEX temp.report_mem_peak_used_key ON report_mem_peak_used(snapshot_id, device, segment);

CREATE TEMP TABLE report_mem_frag_peak AS

SELECT p.snapshot_id, p.device,
  (SELECT coalesce(sum(size), 0) FROM report_mem_peak_segment s
   WHERE s.snapshot_id = p.snapshot_id AND s.device = p.device) AS reserved,
  (SELECT coalesce(sum(requested), 0) FROM report_mem_peak_block b
   WHERE b.snapshot_id = p.snapshot_id AND b.device = p.device) AS requested,
  (SELECT coalesce(sum(block_size - requested), 0) FROM report_mem_peak_block b
   WHERE b.snapshot_id = p.snapshot_id AND b.device = p.device) AS internal,
  (SELECT coalesce(sum(s.size - u.blocks), 0) FROM report_mem_peak_segment s
   JOIN report_mem_peak_used u ON u.snapshot_id = s.snapshot_id AND u.device = s.device AND u.segment = s.address
   WHERE s.snapshot_id = p.snapshot_id AND s.device = p.device) AS external,
  (SELECT coalesce(sum(s.size), 0) FROM report_mem_peak_segment s
   WHERE s.snapshot_id = p.snapshot_id AND s.device = p.device
     AND NOT EXISTS (SELECT 1 FROM report_mem_peak_used u WHERE u.snapshot_id = s.snapshot_id
                       AND u.device = s.device AND u.segment = s.address)) AS free_segments,
  (SELECT count(*) FROM report_mem_peak_block b WHERE b.snapshot_id = p.snapshot_id AND b.device = p.device
     AND b.segment IS NULL) AS unplaced
FROM report_mem_peak p;
