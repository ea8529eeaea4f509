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
-- The per-trace lookups below read these by index: without them each
-- trace scans every trace's rows, and the report's cost grows with the
-- square of the ranks (issue 23); (k, a) serve the lookups of one call's
-- span and time (lib/37_launch.sql, lib/38_claim.sql): without them each
-- call reads its trace's every GPU interval, and a long trace's report
-- grows with calls x kernels.
CREATE INDEX temp.report_clip_sync_by_trace ON report_clip_sync(trace_id, name);
CREATE INDEX temp.report_clip_gpu_by_trace ON report_clip_gpu(trace_id, k, a);

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

-- Where in the user's code the host blocks: for each outermost
-- host-blocking call (no host-blocking call around it), the innermost
-- enclosing Python frame outside PyTorch and the standard library
-- (with_stack=True traces; '(no Python stack)' without), its blocked time
-- and the part with the process's GPUs idle, as in report_sync_idle.
--   trace_id, source     the frame ('file.py(line): function')
--   calls                outermost calls under it
--   blocked_ns           time blocked in them
--   blocked_gpu_idle_ns  the part with no GPU work of the process running
--   (report_sync_sourced: each outermost call with its trace and source,
--   indexed for the per-source lookups)
CREATE TEMP TABLE report_sync_sourced AS
WITH up(event_id, id, level) AS (
  SELECT DISTINCT event_id, event_id, 0 FROM report_clip_sync
  UNION ALL
  SELECT up.event_id, t.parent_id, up.level + 1 FROM up JOIN _slice_tree t ON t.id = up.id
  WHERE t.parent_id IS NOT NULL AND up.level < 200
), outer_call AS (
  SELECT DISTINCT c.event_id, c.trace_id FROM report_clip_sync c
  WHERE NOT EXISTS (SELECT 1 FROM up JOIN report_sync y ON y.event_id = up.id
                    WHERE up.event_id = c.event_id AND up.level > 0)
), frame AS (
  SELECT up.event_id, profdb_display_name(n.value) AS source,
    row_number() OVER (PARTITION BY up.event_id ORDER BY up.level) AS pick
  FROM up JOIN _slice s ON s.id = up.id JOIN _string n ON n.id = s.name_id
  WHERE up.event_id IN (SELECT event_id FROM outer_call)
    AND s.kind = (SELECT kind FROM _kind WHERE name = 'python_function') AND n.value GLOB '*.py(*' AND n.value NOT GLOB '*torch/*'
    AND n.value NOT GLOB '*python3*/*' AND n.value NOT GLOB '*site-packages/*'
)
SELECT o.trace_id, o.event_id, coalesce(f.source, '(no Python stack)') AS source
FROM outer_call o LEFT JOIN frame f ON f.event_id = o.event_id AND f.pick = 1;
CREATE INDEX temp.report_sync_sourced_by_source ON report_sync_sourced(trace_id, source);

CREATE TEMP TABLE report_sync_source AS
WITH sourced AS (SELECT * FROM report_sync_sourced)
SELECT x.trace_id, x.source, x.calls,
  (SELECT interval_union(c.a, c.b) FROM report_clip_sync c JOIN sourced y USING (event_id)
   WHERE y.trace_id = x.trace_id AND y.source = x.source) AS blocked_ns,
  (SELECT interval_union(c.a, c.b) FROM report_clip_sync c JOIN sourced y USING (event_id)
   WHERE y.trace_id = x.trace_id AND y.source = x.source)
  - coalesce((SELECT interval_overlap(a, b, is_sync) FROM (
      SELECT c.a, c.b, 1 AS is_sync FROM report_clip_sync c JOIN sourced y USING (event_id)
      WHERE y.trace_id = x.trace_id AND y.source = x.source
      UNION ALL
      SELECT g.a, g.b, 0 FROM report_clip_gpu g WHERE g.trace_id = x.trace_id)), 0)
    AS blocked_gpu_idle_ns
FROM (SELECT trace_id, source, count(*) AS calls FROM sourced GROUP BY trace_id, source) x;
