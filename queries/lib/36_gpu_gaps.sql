-- The GPU's idle gaps in the analysed spans and what they began with
-- (findings gpu_idle, queued_idle, startup_calls; lib/38_claim.sql gives
-- each instant an owner): the launch queue of each trace
-- (report_queue_step), the gaps (report_gpu_gap), those that began with
-- GPU work queued (report_queued_gap) and the host stalls the profiler
-- does not see into (report_opaque_gap).

-- The launch queue of each trace, all its streams together
-- (docs/definitions.md "Queue length"): after each change, the number of
-- operations launched (their launch call started; a call over 1 ms, at its
-- end, or at the operation's start if sooner: a cold-start call loading the
-- kernel's module enqueues it as it returns, issue 44's eighth audit, a
-- 5.11 ms first cudaLaunchKernel whose kernel read as queued 3.68 ms "on
-- nothing the trace records") and not yet started on the GPU.  Every
-- traced operation with its launch call counts, in the analysed spans or
-- not (work a warm-up step queued still holds the GPU),
-- but those whose launch call blocks the host until they are done (a
-- synchronous or pageable copy, report_sync): their wait is the host's,
-- owned by the sync findings.
--   trace_id, t   the change (ns): one row a time, every change at it
--                 taken together
--   launched      operations launched (as above) at t or before
--   started       operations that started on the GPU at t or before
-- (GPU work whose launch call the trace does not hold counts as launched
-- at the trace's start: see below.)
-- At an instant a, the operations queued are those launched before a
-- (launched at the last t < a) less those started by a (started at the
-- last t <= a): an operation that starts (or starts and ends, a kernel
-- under the clock's resolution) at a is no longer queued then.
CREATE TEMP TABLE report_queue_step AS
WITH ev AS (
  SELECT g.trace_id, CASE WHEN r.dur > 1000000 THEN min(r.ts + r.dur, g.ts) ELSE r.ts END AS t,
    1 AS d
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _slice r ON r.id = l.launch_id
  WHERE g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.ts IS NOT NULL AND r.ts IS NOT NULL AND g.trace_id IN (SELECT trace_id FROM report_span)
    AND r.id NOT IN (SELECT event_id FROM report_sync)
  UNION ALL
  SELECT g.trace_id, g.ts, -1
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _slice r ON r.id = l.launch_id
  WHERE g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.ts IS NOT NULL AND r.ts IS NOT NULL AND g.trace_id IN (SELECT trace_id FROM report_span)
    AND r.id NOT IN (SELECT event_id FROM report_sync)
  UNION ALL
  -- GPU work launched before the trace began (report_pretrace_gpu):
  -- queued from the trace's start (issue 44's audit: TraceLens' Qwen1.5
  -- trace opens with 13.5 ms of such work run during an explicit
  -- synchronize, whose 500 gaps of under 8 us between queued kernels were
  -- promised to explicit_sync)
  SELECT g.trace_id, CASE d.d WHEN 1 THEN tr.start_ts ELSE g.ts END, d.d
  FROM report_pretrace_gpu p JOIN _gpu g ON g.id = p.event_id
    JOIN report_trace tr ON tr.trace_id = g.trace_id
    CROSS JOIN (SELECT 1 AS d UNION ALL SELECT -1) d
)
SELECT trace_id, t, sum(sum(d > 0)) OVER w AS launched, sum(sum(d < 0)) OVER w AS started
FROM ev GROUP BY trace_id, t
WINDOW w AS (PARTITION BY trace_id ORDER BY t ROWS UNBOUNDED PRECEDING);
CREATE INDEX temp.report_queue_step_by_t ON report_queue_step(trace_id, t);

-- The GPU idle gaps of each span: no kernel, copy or fill running on any
-- stream of the trace.
--   k, trace_id   the span
--   a, b          the gap (ns)
CREATE TEMP TABLE report_gpu_gap AS
WITH u AS (
  SELECT k, trace_id, a, max(b) OVER (PARTITION BY k, trace_id ORDER BY a, b
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
  FROM report_clip_gpu
), gap AS (
  SELECT k, trace_id, prev AS a, a AS b FROM u WHERE prev < a
  UNION ALL
  SELECT s.k, s.trace_id, s.ts, coalesce(min(c.a), s.end_ts)
  FROM report_span s LEFT JOIN report_clip_gpu c ON c.k = s.k AND c.trace_id = s.trace_id
  GROUP BY s.k, s.trace_id
  UNION ALL
  SELECT s.k, s.trace_id, max(c.b), s.end_ts
  FROM report_span s JOIN report_clip_gpu c ON c.k = s.k AND c.trace_id = s.trace_id
  GROUP BY s.k, s.trace_id
)
SELECT k, trace_id, a, b FROM gap WHERE b > a;

-- The GPU idle gaps (report_gpu_gap) that begin with GPU work queued:
-- launched before the gap, started after it.  The GPU then waits on
-- something other than the host (another stream, an event, a producer
-- outside the trace): launching sooner fills none of it, so no host-side
-- finding promises it.
--   k, trace_id   the span
--   a, b          the gap (ns)
CREATE TEMP TABLE report_queued_gap AS
SELECT k, trace_id, a, b FROM report_gpu_gap gap
WHERE coalesce((SELECT q.launched FROM report_queue_step q WHERE q.trace_id = gap.trace_id
                  AND q.t < gap.a ORDER BY q.t DESC LIMIT 1), 0)
    > coalesce((SELECT q.started FROM report_queue_step q WHERE q.trace_id = gap.trace_id
                  AND q.t <= gap.a ORDER BY q.t DESC LIMIT 1), 0);

-- Host stalls the profiler does not see into (issue 44's audit
-- of unseen traces: a TorchScript function compiled before its first
-- call, 292-366 ms with nothing recorded, and optimized inside its second
-- call, 294 ms under one operator with nothing recorded beneath it, in
-- single-forward traces whose steady forward has neither): a GPU idle gap
-- of over 1 ms, 90% or more of which the host records nothing
-- (no operator, annotation, Python frame, runtime call or DataLoader
-- range), or lies inside one call that has children but spends 90% or
-- more of its time outside them: a function or annotation, not an aten
-- operator (whose own time is its recorded work) nor a ProfilerStep
-- range, and stands out: over 100 times the median GPU idle gap of the
-- trace's analysed spans (a loop whose every gap is long is not stalled
-- once).  Which of them are one-time (they do not recur) is judged in
-- lib/38_claim.sql (report_stall), beside the operators' one-time first
-- calls.  A whole-trace span's idle before its first and after its last
-- GPU work is the profile's start and end (report_idle_claim's edge), not
-- a stall.  The candidates first (big), then the host's recorded time in their spans
-- as disjoint runs (report_host_run), so that each gap reads only the runs
-- it overlaps, by index: a join of each gap with every host interval of its
-- span grew with the square of a whole-trace span's events (a stepless
-- trace tiled 16 times: 259 M SQL steps, 6 s, for this statement alone;
-- tests/report/check_trace_scaling.py).
--   k, trace_id   the span
--   a, b          the gap (ns)
CREATE TEMP TABLE report_big_gap AS
WITH median AS (
  SELECT trace_id, profdb_median(b - a) AS ns FROM report_gpu_gap GROUP BY trace_id
)
SELECT g.k, g.trace_id, g.a, g.b FROM report_gpu_gap g JOIN report_span s USING (k, trace_id)
JOIN median m USING (trace_id)
WHERE g.b - g.a > 1000000 AND g.b - g.a > 100 * m.ns
  AND NOT (s.step IS NULL AND (g.a = s.ts OR g.b = s.end_ts));

-- The host's recorded time (operators, annotations, Python frames, runtime
-- calls, DataLoader ranges) in the spans that have such gaps, merged into
-- disjoint runs: a run starts where an interval starts after every earlier
-- one ended.
--   k      the span
--   a, b   the run (ns)
CREATE TEMP TABLE report_host_run AS
WITH host AS (
  SELECT k, a, b FROM report_clip_cpu WHERE k IN (SELECT k FROM report_big_gap)
  UNION ALL
  SELECT k, a, b FROM report_clip_calls WHERE k IN (SELECT k FROM report_big_gap)
), starts AS (
  SELECT k, a, b, coalesce(a > max(b) OVER (PARTITION BY k ORDER BY a, b
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                           1) AS new
  FROM host
), numbered AS (
  SELECT k, a, b, sum(new) OVER (PARTITION BY k ORDER BY a, b ROWS UNBOUNDED PRECEDING) AS run
  FROM starts
)
SELECT k, min(a) AS a, max(b) AS b FROM numbered GROUP BY k, run;
CREATE INDEX temp.report_host_run_by_start ON report_host_run(k, a);

-- The stalls: the candidates the host records 10% or less of, or that lie
-- inside one opaque call.
--   k, trace_id   the span
--   a, b          the gap (ns)
CREATE TEMP TABLE report_opaque_gap AS
WITH opaque_call AS MATERIALIZED (  -- operators and annotations mostly outside their children
  SELECT s.trace_id, s.ts, s.ts + s.dur AS end_ts
  FROM _slice_tree t CROSS JOIN _slice s ON s.id = t.id  -- (the few long self times first)
  WHERE EXISTS (SELECT 1 FROM report_big_gap)  -- (once: no scan of the slices without such gaps)
    AND t.self_dur > 1000000 AND t.self_dur < s.dur AND t.self_dur >= 0.9 * s.dur
    AND s.kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation'))
    AND s.trace_id IN (SELECT trace_id FROM report_big_gap)
    AND s.name_id NOT IN (SELECT id FROM _string WHERE value GLOB 'aten::*'
                            OR value GLOB 'ProfilerStep#*')
), covered AS (  -- per gap, the host's recorded time in it: the run begun before it, then
                 -- the runs begun inside it
  SELECT g.*,
    coalesce((SELECT max(0, min(r.b, g.b) - g.a) FROM report_host_run r
              WHERE r.k = g.k AND r.a <= g.a ORDER BY r.a DESC LIMIT 1), 0)
    + coalesce((SELECT sum(min(r.b, g.b) - r.a) FROM report_host_run r
                WHERE r.k = g.k AND r.a > g.a AND r.a < g.b), 0) AS ns
  FROM report_big_gap g
)
SELECT g.k, g.trace_id, g.a, g.b FROM covered g
WHERE g.ns <= 0.1 * (g.b - g.a)
  OR EXISTS (SELECT 1 FROM opaque_call c WHERE c.trace_id = g.trace_id AND c.ts < g.b
               AND c.end_ts > g.a AND min(c.end_ts, g.b) - max(c.ts, g.a) >= 0.9 * (g.b - g.a));
