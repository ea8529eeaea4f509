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
