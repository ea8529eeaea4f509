-- Who owns the GPU idle time (findings gpu_idle, cold_start,
-- startup_calls, allocator_calls, wait_outside_trace, explicit_sync,
-- synchronization, data_loading, launch_bound).  Each instant of an
-- analysed span with no GPU work running is claimed by at most one
-- finding, the first of these whose calls the host was in then: a
-- cold-start launch call (cold_start), a one-time set-up call or cuDNN /
-- MIOpen autotuning sync (startup_calls), a host-blocking call whose wait
-- is not explained by the trace (wait_outside_trace), a GPU idle gap that
-- began with GPU work already queued (report_queued_gap: no host-side fix
-- fills it), an operator's first call holding one-time library work
-- (startup_calls), a repeated allocator or set-up call (allocator_calls), an
-- explicit synchronize outside any
-- operator (explicit_sync), another host-blocking call (synchronization),
-- a DataLoader range (data_loading); launch_bound then takes its bound out
-- of the rest (findings.sql, launch_claim) and gpu_idle keeps what is
-- left.  So the time-saving findings' savings never
-- count one instant twice (docs/definitions.md, "Who owns GPU idle
-- time").

-- The outermost host-blocking calls (report_sync_sourced) but the frees
-- (they are allocator calls, report_setup_call below), clipped to each
-- span.
--   k, trace_id, event_id, name, a, b  the call clipped to span k
CREATE TEMP TABLE report_sync_outer AS
  SELECT c.k, c.trace_id, c.event_id, c.name, c.a, c.b
  FROM report_clip_sync c JOIN report_sync_sourced o USING (event_id)
  WHERE c.name NOT IN (SELECT name FROM report_setup_name);

-- Those with an operator around them: report_sync_class's 'explicit'
-- calls are the others.  (A table of its own: as a CTE of that
-- statement, the recursive walk was run again per call.)
--   event_id   the call
--   in_conv    1 when one of the operators around it is a convolution
--              (a name with 'convolution': aten::cudnn_convolution*,
--              aten::miopen_convolution*, aten::convolution_backward,
--              CudnnConvolutionBackward ...)
CREATE TEMP TABLE report_sync_in_op AS
WITH RECURSIVE up(event_id, id, level) AS (
  SELECT DISTINCT event_id, event_id, 0 FROM report_sync_outer
  UNION ALL
  SELECT up.event_id, t.parent_id, up.level + 1 FROM up JOIN _slice_tree t ON t.id = up.id
  WHERE t.parent_id IS NOT NULL AND up.level < 200
)
SELECT up.event_id,
  max(lower((SELECT value FROM _string WHERE id = s.name_id)) GLOB '*convolution*') AS in_conv
FROM up JOIN _slice s ON s.id = up.id
WHERE up.level > 0 AND s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
GROUP BY up.event_id;

-- The allocator and set-up calls (report_setup_name) in the analysed
-- spans, clipped to each span they overlap, and the synchronize calls
-- inside convolution operators: cuDNN's and MIOpen's algorithm search
-- (torch.backends.cudnn.benchmark, MIOpen's find mode) times each
-- candidate kernel between events and waits for them; a convolution
-- synchronizes the host for nothing else.  It runs once per new input
-- shape.  A call is *one-time* when it
-- is an outlier against the trace's calls of its name (over 1 ms and over
-- 100 times their median: the first cudaFree creates the CUDA context,
-- the first events and streams initialize the runtime) or when its name
-- does not recur through the analysed time (a burst: the caching
-- allocator growing, cuDNN autotuning its first iterations).  It is
-- *repeated* (steady-state churn: PyTorch's caching allocator bypassed,
-- events or streams created every step) when its name is called, with n
-- analysed spans in the trace: n >= 2, in at least 2 and at least half
-- of the spans, one of them in the later half (span index >= n / 2, from
-- 0); n = 1 (one step, or no steps: the whole trace), at least 10 times,
-- in at least 5 of the span's ten equal time slices and in each of its
-- last three.  So calls in the first steps only (autotuning in iterations
-- 0 and 1) are one-time even when there are many of them.
--   k, trace_id      the span
--   event_id, name   the call
--   ts, dur          the call's start and duration (ns)
--   a, b             clipped start and end (ns)
--   is_alloc         1 for an allocation or free (report_setup_name)
--   autotune         1 for a synchronize call inside a convolution
--                    (recurrence judged over all of them together)
--   query            1 for a kernel query (report_setup_name): only its
--                    one-time calls are here
--   repeated         1 for a repeated call, 0 for a one-time call
CREATE TEMP TABLE report_setup_call AS
WITH y AS (
  SELECT trace_id, event_id, name, ts, dur, n.is_alloc, 0 AS autotune, name AS grp, n.query
  FROM report_setup JOIN report_setup_name n USING (name)
  UNION ALL
  SELECT m.trace_id, m.event_id, m.name, m.ts, m.dur, 0, 1, 'autotune', 0
  FROM report_sync m
  WHERE m.name GLOB '*Synchronize'
    AND m.event_id IN (SELECT event_id FROM report_sync_in_op WHERE in_conv)
), c AS (
  SELECT s.k, y.trace_id, y.event_id, y.name, y.grp, y.is_alloc, y.autotune, y.query, y.ts, y.dur,
    max(y.ts, s.ts) AS a, min(y.ts + y.dur, s.end_ts) AS b,
    min(9, max(0, (max(y.ts, s.ts) - s.ts) * 10 / max(s.end_ts - s.ts, 1))) AS tenth,
    s.k - t.k0 AS pos
  FROM y JOIN report_span s
    ON s.trace_id = y.trace_id AND y.ts < s.end_ts AND y.ts + y.dur > s.ts
  JOIN span_n t ON t.trace_id = s.trace_id
  WHERE y.trace_id IN (SELECT trace_id FROM report_longest WHERE code IS NOT NULL)
), span_n AS (
  SELECT trace_id, min(k) AS k0, count(*) AS n FROM report_span GROUP BY trace_id
), per AS (
  SELECT trace_id, grp, count(DISTINCT event_id) AS calls, count(DISTINCT k) AS spans,
    count(DISTINCT k * 10 + tenth) AS tenths, max(pos) AS last_pos,
    count(DISTINCT CASE WHEN tenth >= 7 THEN tenth END) AS late_tenths,
    profdb_median(dur) AS median_ns
  FROM c GROUP BY trace_id, grp
)
SELECT * FROM (
  SELECT c.k, c.trace_id, c.event_id, c.name, c.ts, c.dur, c.a, c.b, c.is_alloc, c.autotune,
    c.query, NOT (c.dur > 1000000 AND c.dur > 100 * p.median_ns)
      AND CASE WHEN t.n >= 2 THEN p.spans >= 2 AND 2 * p.spans >= t.n AND p.last_pos >= t.n / 2
               ELSE p.calls >= 10 AND p.tenths >= 5 AND p.late_tenths = 3 END AS repeated
  FROM c JOIN per p USING (trace_id, grp) JOIN span_n t USING (trace_id))
WHERE NOT (query AND repeated); -- (kernel queries: report_setup_name)

-- Operator calls (and DataLoader iterations) that hold one-time work
-- (issue 44, pattern 3; a DataLoader's first iteration: issue 44's audit):
-- the first call of an operator signature (name, "Input Dims" and "Input
-- type", as recorded: without shapes the name alone) in the trace, over
-- 1 ms and over 10 times the median of the later calls of that
-- signature.  cuDNN / cuBLAS / MIOpen create their handles and
-- workspaces, load their kernels and (cudnn.benchmark, MIOpen's find
-- mode) search algorithms inside an operator's first call; the later
-- calls of the same signature do the same work without that, so the
-- excess is start-up, not a per-step cost.  Judged against the
-- signature's own later calls, not a trace-wide median (most calls of a
-- short profile can be first calls); a signature called once is not
-- judged (nothing to compare).
--   trace_id, event_id  the call
--   pid, tid            its thread
--   name_id, ts, dur    its operator name, start and duration (ns)
--   median_ns           the median later call of its signature (ns)
--   later               the later calls of its signature
--   inner               1 when no other such call lies inside it (the
--                       operator named; the ones around it only wrap it)
CREATE TEMP TABLE report_first_call AS
WITH op AS (
  SELECT trace_id, id, pid, tid, name_id, ts, dur, input_dims, input_types,
    row_number() OVER (PARTITION BY trace_id, name_id, input_dims, input_types
                       ORDER BY ts, id) AS nth
  FROM _slice
  WHERE (kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
         -- a DataLoader's first next() starts its workers and waits for the
         -- first batch (its names: report_marker_name's, lib/10_trace_scope.sql)
         OR (kind = (SELECT kind FROM _kind WHERE name = 'user_annotation')
             AND name_id IN (SELECT name_id FROM report_marker_name WHERE dataloader)))
    AND ts IS NOT NULL AND dur IS NOT NULL AND trace_id IN (SELECT trace_id FROM report_trace)
    -- only names with a call over 1 ms can have such a first call: the
    -- window then sorts their calls, not every operator's
    AND name_id IN (SELECT name_id FROM _slice
                    WHERE kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation'))
                      AND dur > 1000000)
), later AS (
  SELECT trace_id, name_id, input_dims, input_types, profdb_median(dur) AS median_ns,
    count(*) AS n
  FROM op WHERE nth > 1 GROUP BY trace_id, name_id, input_dims, input_types
), f AS (
  SELECT o.trace_id, o.id AS event_id, o.pid, o.tid, o.name_id, o.ts, o.dur, l.median_ns,
    l.n AS later
  FROM op o JOIN later l ON l.trace_id = o.trace_id AND l.name_id = o.name_id
    AND l.input_dims IS o.input_dims AND l.input_types IS o.input_types
  WHERE o.nth = 1 AND o.dur > 1000000 AND o.dur > 10 * l.median_ns
)
SELECT f.*, NOT EXISTS (
  SELECT 1 FROM f g WHERE g.trace_id = f.trace_id AND g.pid IS f.pid AND g.tid IS f.tid
    AND g.event_id <> f.event_id AND g.ts >= f.ts AND g.ts + g.dur <= f.ts + f.dur
    AND (g.ts > f.ts OR g.dur < f.dur OR g.event_id > f.event_id)) AS inner
FROM f;
-- (launch_bound finds the launch calls inside them by thread and start)
CREATE INDEX temp.report_first_call_by_thread ON report_first_call(trace_id, tid, ts);

-- The host stalls (lib/36_gpu_gaps.sql, report_opaque_gap) that happen
-- once: those 90% inside an operator's one-time first call are that
-- call's (above); of the others, the trace's analysed spans hold at most two,
-- all in one span.  Recurring ones are steady host work (a loop's own
-- untraced Python) and stay gpu_idle's (issue 44's audit of unseen
-- traces: a compiled ResNet-18's first of three iterations stalls twice,
-- 5.26 and 8.62 ms, and once more inside its first SumBackward0 call).
--   k, trace_id   the span
--   a, b          the gap (ns)
CREATE TEMP TABLE report_stall AS
WITH g AS (
  SELECT o.* FROM report_opaque_gap o
  WHERE NOT EXISTS (SELECT 1 FROM report_first_call f WHERE f.trace_id = o.trace_id
                      AND f.ts < o.b AND f.ts + f.dur > o.a
                      AND min(f.ts + f.dur, o.b) - max(f.ts, o.a) >= 0.9 * (o.b - o.a))
)
SELECT k, trace_id, a, b FROM g
WHERE trace_id IN (SELECT trace_id FROM g GROUP BY trace_id
                   HAVING count(*) <= 2 AND count(DISTINCT k) = 1);

-- Each of those calls (report_sync_outer) by what its wait is:
--   'outside'   the process's GPUs stay idle for over 1 ms and over 90% of
--               the call (inside the span) while GPU work launched before
--               the call waits: some kernel, copy or fill launched before
--               it starts over 1 ms after it began.  The queued work is
--               held back by something the trace does not hold (a stream
--               waiting for an event recorded outside the window or
--               process), not by the host.  Also when all the GPU work
--               launched before the call had ended when it began, and the
--               call launches none itself (a blocking copy's own copy
--               keeps it 'op'): what it waits for then is GPU work the
--               trace does not hold
--               (records lost, another thread or process), and
--               removing the call leaves that wait elsewhere (issue 44's
--               third unseen audit: a 1.29 s closing cudaDeviceSynchronize
--               whose last recorded copy ended 319 us before it, promised
--               as explicit_sync)
--   'explicit'  a synchronize call (cuda/hip Device, Stream or Event
--               Synchronize) with no operator around it: an explicit
--               torch.cuda.synchronize() / event.synchronize(), often a
--               benchmark harness's
--   'op'        the rest: a device value read on the host by an operator
--               (.item(), .cpu(), nonzero, a blocking copy_)
--   k, trace_id, event_id, name, a, b  the call clipped to span k
--   class                              as above
CREATE TEMP TABLE report_sync_class AS
WITH outer_call AS (SELECT * FROM report_sync_outer
), idle AS MATERIALIZED ( -- (once: the join below would recompute it per call)
  SELECT o.*, (SELECT ts FROM _slice WHERE id = o.event_id) AS call_ts, o.b - o.a - coalesce((
    SELECT interval_union(max(g.a, o.a), min(g.b, o.b)) FROM report_clip_gpu g
    WHERE g.trace_id = o.trace_id AND g.k = o.k AND g.a < o.b AND g.b > o.a), 0) AS idle_ns
  FROM outer_call o WHERE o.b - o.a > 1000000
)
SELECT o.k, o.trace_id, o.event_id, o.name, o.a, o.b,
  CASE WHEN i.idle_ns > 1000000 AND i.idle_ns >= 0.9 * (o.b - o.a)
         AND (EXISTS (SELECT 1 FROM report_gpu g WHERE g.trace_id = o.trace_id
                      AND g.launch_ts < i.call_ts AND g.ts > i.call_ts + 1000000)
              OR NOT EXISTS (SELECT 1 FROM report_gpu g WHERE g.trace_id = o.trace_id
                      AND g.launch_ts <= i.call_ts AND g.ts + g.dur > i.call_ts))
         THEN 'outside'
       WHEN o.name GLOB '*Synchronize' AND o.event_id NOT IN (SELECT event_id FROM report_sync_in_op)
         THEN 'explicit'
       ELSE 'op' END AS class
FROM outer_call o LEFT JOIN idle i ON i.k = o.k AND i.event_id = o.event_id;

-- Per span, the GPU idle time each owner claims (ns): interval_layers
-- gives each instant to the lowest layer present (0: GPU work).
--   k, trace_id        the span
--   cold_ns            during cold-start launch calls (lib/13_cold_launch.sql)
--   startup_ns         during one-time set-up calls and autotuning syncs,
--                      and during operators' first calls holding one-time
--                      work (report_first_call) and one-time host stalls
--                      (report_stall) outside the waits on work
--                      outside the trace and the queued gaps
--   outside_ns         during host-blocking calls waiting on work outside the trace
--   queued_ns          in gaps that began with GPU work queued (report_queued_gap)
--   alloc_ns           during repeated allocator and set-up calls
--   explicit_ns        during explicit synchronize calls outside operators
--   op_sync_ns         during the other host-blocking calls (repeated
--                      autotuning syncs among them: a new input shape
--                      every step)
--   dataloader_ns      during enumerate(DataLoader) ranges
--   edge_ns            a whole-trace span's (no ProfilerStep ranges, or
--                      --scope trace) idle before its first and after its
--                      last GPU work: the profile's start and end, not a
--                      step (issue 44's audit: param resnet_kineto's last
--                      1.65 s, after its last kernel, promised to the host)
--   graph_ns           during CUDA/HIP graph launch calls: the one call a
--                      replay costs, which host-side fixes do not shorten
--                      (issue 44's audit of tests/cuda/graph_decode: 55 of
--                      106 us a step inside cudaGraphLaunch)
--   warm_ns            a whole-trace span's first iteration, when the span
--                      holds 3 or more Optimizer.step ranges: until the
--                      first ends (the first call of each operator: the
--                      warm-up a ProfilerStep schedule leaves out; issue
--                      44's audit of tests/cuda/cudnn_cold: about 5 of
--                      24.74 ms promised)
CREATE TEMP TABLE report_idle_claim AS
WITH graph_call AS MATERIALIZED (  -- the graph launch calls (one pass over the names)
  SELECT c.trace_id, c.ts, c.dur FROM _slice c
  WHERE c.name_id IN (SELECT id FROM _string WHERE value GLOB '*GraphLaunch*')
    AND c.id IN (SELECT l.launch_id FROM _gpu_link l)
), extent AS (  -- a whole-trace span's first GPU start and last GPU end
  SELECT s.k, s.trace_id, s.ts, s.end_ts, min(g.a) AS first_a, max(g.b) AS last_b
  FROM report_span s JOIN report_clip_gpu g ON g.trace_id = s.trace_id AND g.k = s.k
  WHERE s.step IS NULL GROUP BY s.k, s.trace_id
), warm AS (  -- a whole-trace span's first iteration, when it holds 3 or more
  -- Optimizer.step ranges: until the first ends (its first calls of each
  -- operator: the warm-up a ProfilerStep schedule leaves out)
  SELECT s.k, s.trace_id, min(o.ts + o.dur) AS first_end
  FROM report_span s JOIN _slice o ON o.trace_id = s.trace_id
  WHERE s.step IS NULL AND o.name_id IN (SELECT id FROM _string WHERE value GLOB 'Optimizer.step#*')
    AND o.ts >= s.ts AND o.ts + o.dur <= s.end_ts
  GROUP BY s.k, s.trace_id HAVING count(*) >= 3
), l AS (
  SELECT k, trace_id, interval_layers(a, b, layer, 13) AS x FROM (
    SELECT k, trace_id, a, b, 0 AS layer FROM report_clip_gpu
    UNION ALL
    SELECT s.k, s.trace_id, max(c.ts, s.ts), min(c.ts + c.dur, s.end_ts), 1
    FROM report_span s JOIN report_cold_launch c
      ON c.trace_id = s.trace_id AND c.ts < s.end_ts AND c.ts + c.dur > s.ts
    UNION ALL
    SELECT k, trace_id, a, b, CASE WHEN NOT repeated THEN 2 WHEN autotune THEN 8 ELSE 6 END
    FROM report_setup_call
    UNION ALL
    SELECT k, trace_id, a, b, CASE class WHEN 'outside' THEN 3 WHEN 'explicit' THEN 7 ELSE 8 END
    FROM report_sync_class
    UNION ALL
    SELECT k, trace_id, a, b, 4 FROM report_queued_gap
    UNION ALL
    -- (after the waits on work outside the trace and the queued gaps: a
    -- first call blocked on those waits for them, not on its set-up)
    SELECT s.k, s.trace_id, max(f.ts, s.ts), min(f.ts + f.dur, s.end_ts), 5
    FROM report_span s JOIN report_first_call f
      ON f.trace_id = s.trace_id AND f.ts < s.end_ts AND f.ts + f.dur > s.ts
    UNION ALL
    SELECT k, trace_id, a, b, 5 FROM report_stall
    UNION ALL
    SELECT k, trace_id, a, b, 9 FROM report_clip_calls WHERE class = 'dataloader'
    UNION ALL
    SELECT k, trace_id, ts, first_a, 10 FROM extent
    UNION ALL
    SELECT k, trace_id, last_b, end_ts, 10 FROM extent
    UNION ALL
    SELECT s.k, s.trace_id, max(c.ts, s.ts), min(c.ts + c.dur, s.end_ts), 11
    FROM graph_call c JOIN report_span s
      ON s.trace_id = c.trace_id AND c.ts < s.end_ts AND c.ts + c.dur > s.ts
    UNION ALL
    SELECT w.k, w.trace_id, s.ts, w.first_end, 12
    FROM warm w JOIN report_span s USING (k, trace_id))
  GROUP BY k, trace_id
)
SELECT k, trace_id, json_extract(x, '$[1]') AS cold_ns,
  json_extract(x, '$[2]') + json_extract(x, '$[5]') AS startup_ns,
  json_extract(x, '$[3]') AS outside_ns, json_extract(x, '$[4]') AS queued_ns,
  json_extract(x, '$[6]') AS alloc_ns, json_extract(x, '$[7]') AS explicit_ns,
  json_extract(x, '$[8]') AS op_sync_ns, json_extract(x, '$[9]') AS dataloader_ns,
  json_extract(x, '$[10]') AS edge_ns, json_extract(x, '$[11]') AS graph_ns,
  json_extract(x, '$[12]') AS warm_ns
FROM l;
