-- The timeline of the analysed spans: every GPU and CPU interval that
-- overlaps a span, clipped to it.  Sections that ask "what ran during the
-- step" (step time, utilization, thread busy time) use these; sections that
-- ask "what did the step launch" (kernel sums) use report_gpu/report_cpu.
--
-- An interval [ts, end) overlaps the spans k0..k1, where k0 is the first
-- span ending after ts and k1 the last span starting before end (spans are
-- sorted and disjoint), so clipping is one indexed lookup per interval.

-- GPU work (kernels, copies, fills) during the spans, clipped.
--   k, trace_id, step  the span
--   kind               'kernel', 'memcpy' or 'memset'
--   is_comm            1 for collective (NCCL/RCCL) kernels
--   device, stream     where it ran
--   a, b               clipped start and end (ns)
CREATE TEMP TABLE report_clip_gpu AS
WITH iv AS (
  SELECT g.trace_id, g.kind, g.name, g.device, g.stream, g.ts, g.ts + g.dur AS end_ts
  FROM gpu_activity g JOIN report_window w ON w.trace_id = g.trace_id
  WHERE g.ts < w.end_ts AND g.ts + g.dur > w.ts
), located AS (
  SELECT iv.*,
    (SELECT s.k FROM report_span s WHERE s.trace_id = iv.trace_id AND s.end_ts > iv.ts
     ORDER BY s.end_ts LIMIT 1) AS k0,
    (SELECT s.k FROM report_span s WHERE s.trace_id = iv.trace_id AND s.ts < iv.end_ts
     ORDER BY s.ts DESC LIMIT 1) AS k1
  FROM iv
)
SELECT s.k, s.trace_id, s.step, l.kind,
  (l.kind = 'kernel' AND kernel_category(l.name) = 'NCCL/communication') AS is_comm,
  l.device, l.stream, max(l.ts, s.ts) AS a, min(l.end_ts, s.end_ts) AS b
FROM located l JOIN report_span s ON s.k BETWEEN l.k0 AND l.k1;

-- CPU work during the spans, clipped: ops, annotations (ProfilerStep#N
-- excluded: it is the step itself), Python frames and runtime calls.
--   k, trace_id, step  the span
--   kind               'cpu_op', 'user_annotation', 'python_function', 'runtime'
--   is_dataloader      1 for enumerate(DataLoader)... ranges
--   pid, tid           thread
--   a, b               clipped start and end (ns)
CREATE TEMP TABLE report_clip_cpu AS
WITH iv AS (
  SELECT c.trace_id, c.kind, c.name, c.pid, c.tid, c.ts, c.ts + c.dur AS end_ts
  FROM slice c JOIN report_window w ON w.trace_id = c.trace_id
  WHERE c.kind IN ('cpu_op', 'user_annotation', 'python_function', 'runtime')
    AND c.ts < w.end_ts AND c.ts + c.dur > w.ts
    AND c.name NOT GLOB 'ProfilerStep#*'
), located AS (
  SELECT iv.*,
    (SELECT s.k FROM report_span s WHERE s.trace_id = iv.trace_id AND s.end_ts > iv.ts
     ORDER BY s.end_ts LIMIT 1) AS k0,
    (SELECT s.k FROM report_span s WHERE s.trace_id = iv.trace_id AND s.ts < iv.end_ts
     ORDER BY s.ts DESC LIMIT 1) AS k1
  FROM iv
)
SELECT s.k, s.trace_id, s.step, l.kind, l.name LIKE 'enumerate(DataLoader)%' AS is_dataloader,
  l.pid, l.tid, max(l.ts, s.ts) AS a, min(l.end_ts, s.end_ts) AS b
FROM located l JOIN report_span s ON s.k BETWEEN l.k0 AND l.k1;
