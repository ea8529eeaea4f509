-- Host-blocking calls (report_sync) during the analysed spans, and how
-- much of that time the process's GPUs had nothing to run: only that part
-- can become GPU work when the sync goes (sync_sum, findings).  Numerator
-- and denominator share one scope: calls clipped to the spans, divided by
-- the spans' wall time.

-- Each host-blocking call clipped to each span it overlaps.  Only in
-- traces with GPU work: without a GPU, aten::item reads a CPU tensor and
-- waits for nothing.
--   k, trace_id   the span
--   event_id      the call (several rows when it crosses spans)
--   name          call or op name
--   pid, tid      thread
--   a, b          clipped start and end (ns)
CREATE TEMP TABLE report_clip_sync AS
SELECT s.k, y.trace_id, y.event_id, y.name, y.pid, y.tid,
  max(y.ts, s.ts) AS a, min(y.ts + y.dur, s.end_ts) AS b
FROM report_sync y JOIN report_span s
  ON s.trace_id = y.trace_id AND y.ts < s.end_ts AND y.ts + y.dur > s.ts
WHERE y.trace_id IN (SELECT trace_id FROM report_longest WHERE code IS NOT NULL);

-- Per trace and call name (name NULL: all the calls together):
--   blocked_ns           time some thread of the process was in such a call
--                        (nested and concurrent calls counted once)
--   blocked_gpu_idle_ns  the part of it with no kernel, copy or fill
--                        running on any of the process's GPUs
CREATE TEMP TABLE report_sync_idle AS
WITH keys AS (
  SELECT DISTINCT trace_id, name FROM report_clip_sync
  UNION ALL SELECT DISTINCT trace_id, NULL FROM report_clip_sync
)
SELECT x.trace_id, x.name,
  (SELECT interval_union(c.a, c.b) FROM report_clip_sync c
   WHERE c.trace_id = x.trace_id AND (x.name IS NULL OR c.name = x.name)) AS blocked_ns,
  (SELECT interval_union(c.a, c.b) FROM report_clip_sync c
   WHERE c.trace_id = x.trace_id AND (x.name IS NULL OR c.name = x.name))
  - coalesce((SELECT interval_overlap(a, b, is_sync) FROM (
      SELECT c.a, c.b, 1 AS is_sync FROM report_clip_sync c
      WHERE c.trace_id = x.trace_id AND (x.name IS NULL OR c.name = x.name)
      UNION ALL
      SELECT g.a, g.b, 0 FROM report_clip_gpu g WHERE g.trace_id = x.trace_id)), 0)
    AS blocked_gpu_idle_ns
FROM keys x;
