-- The timeline of the analysed spans: every GPU interval and every
-- interval a CPU thread was busy (cpu_busy) that overlaps a span, clipped
-- to it.  Sections that ask "what ran during the step" (step time,
-- utilization, thread busy time) use these; sections that ask "what did
-- the step launch" (kernel sums) use report_gpu / report_op_thread.
--
-- Each span reads its intervals with one index range scan (_gpu_by_ts,
-- cpu_busy_by_ts): those starting before the span ends and after its start
-- minus the longest interval of that kind, so none is missed.  CROSS JOIN
-- keeps the spans as the outer loop.

-- HTA's bound between the two kinds of gap between a stream's GPU work
-- with the next work already queued (get_idle_time_breakdown's
-- kernel_wait): under it, launch and dependency overhead; from it on, the
-- GPU waits on something else (an event, another stream, a peer).  Read
-- by gpu_idle.sql and the findings' measures (queued.sql, critical.sql).
--   max_ns: 30 us
CREATE TEMP TABLE report_kernel_wait(max_ns INTEGER);
INSERT INTO report_kernel_wait VALUES (30000);

-- GPU work launched before the trace began: kernels, copies and fills
-- whose launch call the trace does not hold, in a trace that holds launch
-- calls, that start before the first work on their stream whose launch it
-- holds (a harness's previous iteration, still running when the profiler
-- started; a launch record lost mid-trace is no backlog).  Queued from
-- the trace's start (lib/38_claim.sql's queue, lib/findings/queued.sql),
-- and not the analysed steps' own GPU work when the findings judge who
-- sets the step (lib/findings/time.sql: issue 44's audit, TraceLens'
-- Qwen1.5 trace, 13.5 ms of it makes a 35%-idle step look 8% idle).
--   event_id: the activity (_gpu.id)
CREATE TEMP TABLE report_pretrace_gpu(event_id INTEGER PRIMARY KEY);
INSERT INTO report_pretrace_gpu
WITH work AS (
  SELECT g.id, g.trace_id, g.device, g.stream, g.ts,
    EXISTS (SELECT 1 FROM _gpu_link l JOIN _slice r ON r.id = l.launch_id
            WHERE l.id = g.id AND r.ts IS NOT NULL) AS launched
  FROM _gpu g
  WHERE g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.ts IS NOT NULL AND g.trace_id IN (SELECT trace_id FROM report_span)
), first_launched AS (  -- per stream, its first work whose launch the trace holds
  SELECT trace_id, device, stream, min(ts) AS ts FROM work WHERE launched
  GROUP BY trace_id, device, stream
)
SELECT w.id FROM work w
LEFT JOIN first_launched f
  ON f.trace_id = w.trace_id AND f.device IS w.device AND f.stream IS w.stream
WHERE NOT w.launched AND w.trace_id IN (SELECT trace_id FROM first_launched)
  AND (f.ts IS NULL OR w.ts < f.ts);

-- The longest interval of each kind per trace, for the scan bounds.
--   kind: 'gpu:kernel', 'gpu:memcpy', 'gpu:memset', or a cpu_busy class;
--   code: the _gpu kind code (NULL for cpu_busy)
CREATE TEMP TABLE report_longest AS
SELECT g.trace_id, 'gpu:' || k.name AS kind, g.kind AS code, max(g.dur) AS dur
FROM _gpu g JOIN _kind k ON k.kind = g.kind
WHERE k.name IN ('kernel', 'memcpy', 'memset')
  AND g.trace_id IN (SELECT trace_id FROM report_trace)
GROUP BY g.trace_id, g.kind
UNION ALL
SELECT trace_id, class, NULL, max(dur) FROM cpu_busy
WHERE trace_id IN (SELECT trace_id FROM report_trace)
GROUP BY trace_id, class;

-- GPU work (kernels, copies, fills) during the spans, clipped.
--   k, trace_id, step  the span
--   kind               'kernel', 'memcpy' or 'memset'
--   is_comm            1 for collective (NCCL/RCCL) kernels
--   device, stream     where it ran
--   a, b               clipped start and end (ns)
--   event_id           the activity (_gpu.id)
CREATE TEMP TABLE report_clip_gpu AS
SELECT s.k, s.trace_id, s.step,
  (SELECT name FROM _kind WHERE _kind.kind = g.kind) AS kind,
  (g.kind = (SELECT kind FROM _kind WHERE name = 'kernel')
   AND n.category = 'NCCL/communication') AS is_comm,
  g.device, g.stream, max(g.ts, s.ts) AS a, min(g.ts + g.dur, s.end_ts) AS b,
  g.id AS event_id
FROM report_span s CROSS JOIN report_longest m CROSS JOIN _gpu g
JOIN report_gpu_name n ON n.name_id = g.name_id
WHERE m.trace_id = s.trace_id AND m.code IS NOT NULL
  AND g.trace_id = s.trace_id AND g.kind = m.code
  AND g.ts < s.end_ts AND g.ts > s.ts - m.dur AND g.ts + g.dur > s.ts;

-- When CPU threads were busy (anything at all) during the spans, clipped.
--   k, trace_id, step  the span
--   pid, tid           thread
--   a, b               clipped start and end (ns)
CREATE TEMP TABLE report_clip_cpu AS
SELECT s.k, s.trace_id, s.step, c.pid, c.tid, max(c.ts, s.ts) AS a,
  min(c.ts + c.dur, s.end_ts) AS b
FROM report_span s CROSS JOIN report_longest m CROSS JOIN cpu_busy c
WHERE m.trace_id = s.trace_id AND m.kind = 'cpu'
  AND c.trace_id = s.trace_id AND c.class = 'cpu'
  AND c.ts < s.end_ts AND c.ts > s.ts - m.dur AND c.ts + c.dur > s.ts;

-- Runtime calls and DataLoader ranges during the spans, clipped.
--   k, trace_id, step  the span
--   class              'runtime' or 'dataloader'
--   a, b               clipped start and end (ns)
CREATE TEMP TABLE report_clip_calls AS
SELECT s.k, s.trace_id, s.step, c.class, max(c.ts, s.ts) AS a,
  min(c.ts + c.dur, s.end_ts) AS b
FROM report_span s CROSS JOIN report_longest m CROSS JOIN cpu_busy c
WHERE m.trace_id = s.trace_id AND m.kind IN ('runtime', 'dataloader')
  AND c.trace_id = s.trace_id AND c.class = m.kind
  AND c.ts < s.end_ts AND c.ts > s.ts - m.dur AND c.ts + c.dur > s.ts;
