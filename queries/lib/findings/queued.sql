-- Measure: what the GPU waited on in the idle gaps that began with GPU work queued (one row a gap).
-- Each gap of report_queued_gap (no GPU work of the trace runs, yet an
-- operation launched before the gap starts only after it) is owned by
-- what the first of its waiting operations to start waited on.  No host-side change fills
-- such a gap (lib/38_claim.sql), so its owner says where to look instead:
--   switch   the gap is under 30 us (HolisticTraceAnalysis' kernel_wait
--            bound): the GPU's own step from one operation to the next
--   graph    the operation is a node of a CUDA/HIP graph replay: the GPU
--            ran the graph's own scheduling and dependencies
--   event    its stream waits on an event (a cudaStreamWaitEvent /
--            hipStreamWaitEvent call on the launching thread since the
--            stream's previous launch, or a recorded Stream Wait Event on
--            the stream) whose producer ran nothing of this trace then
--   unseen   no dependency is recorded: the stream's own work had ended;
--            the GPU ran work the trace does not hold (another process,
--            records lost or sampled) or waited on an unrecorded event
-- Builds: measure_queued_gap
-- Reads: _gpu, _gpu_link, _kind, _slice, _string, report_clip_gpu, report_kernel_wait,
--   report_pretrace_gpu, report_queued_gap, report_sync
CREATE TEMP TABLE measure_queued_gap (
  k         INTEGER,  -- the span (report_span.k)
  trace_id  INTEGER,  -- trace
  a         INTEGER,  -- the gap's start, ns
  b         INTEGER,  -- the gap's end, ns
  event_id  INTEGER,  -- the first to start of the operations queued at the gap's start
                      --   (_gpu.id); NULL when it starts after the span
  name      TEXT,     -- its name
  device    INTEGER,  -- its device
  stream    INTEGER,  -- its stream
  launch    TEXT,     -- the runtime call that launched it (NULL: launched before the trace)
  queued_ns INTEGER,  -- from its launch call's start to its own start, ns
  owner     TEXT      -- 'switch', 'graph', 'event' or 'unseen' (above)
) STRICT;
INSERT INTO measure_queued_gap
WITH thread_wait AS MATERIALIZED (  -- stream-wait calls, by thread: few, read once
  SELECT trace_id, pid, tid, ts FROM _slice
  WHERE name_id IN (SELECT id FROM _string
                    WHERE value IN ('cudaStreamWaitEvent', 'hipStreamWaitEvent'))
), stream_wait AS MATERIALIZED (  -- recorded waits (enable_cuda_sync_events), by stream
  SELECT trace_id, device, stream, ts FROM _gpu
  WHERE kind = (SELECT kind FROM _kind WHERE name = 'gpu_sync')
    AND name_id IN (SELECT id FROM _string WHERE value = 'Stream Wait Event')
), ops AS MATERIALIZED (  -- each operation of a span after its stream's previous one
  SELECT k, event_id,
    lag(event_id) OVER (PARTITION BY k, trace_id, device, stream ORDER BY a, event_id) AS prev_id
  FROM report_clip_gpu
), first_op AS (  -- the first to start of the operations queued at the gap's start (the
                  -- queue of lib/38_claim.sql: no host-blocking call's); report_clip_gpu's
                  -- index by (trace_id, k, a) finds it in a step or two
  SELECT f.k, f.trace_id, f.a, f.b,
    -- (work launched before the trace, report_pretrace_gpu, is queued from
    -- its start, as lib/38_claim.sql's queue counts it)
    (SELECT min(c.event_id) FROM report_clip_gpu c LEFT JOIN _gpu_link l ON l.id = c.event_id
       LEFT JOIN _slice r ON r.id = l.launch_id
     WHERE c.trace_id = f.trace_id AND c.k = f.k AND c.a = f.first_a
       AND (r.ts < f.a AND r.id NOT IN (SELECT event_id FROM report_sync)
            OR c.event_id IN (SELECT event_id FROM report_pretrace_gpu))) AS event_id  -- ties:
  FROM (SELECT q.k, q.trace_id, q.a, q.b,                               -- the lowest id
          (SELECT c.a FROM report_clip_gpu c LEFT JOIN _gpu_link l ON l.id = c.event_id
             LEFT JOIN _slice r ON r.id = l.launch_id
           WHERE c.trace_id = q.trace_id AND c.k = q.k AND c.a >= q.b
             AND (r.ts < q.a AND r.id NOT IN (SELECT event_id FROM report_sync)
                  OR c.event_id IN (SELECT event_id FROM report_pretrace_gpu))
           ORDER BY c.a LIMIT 1) AS first_a
        FROM report_queued_gap q) f
), op AS (
  SELECT f.k, f.trace_id, f.a, f.b, f.event_id, g.name_id, g.device, g.stream, g.ts,
    r.id AS launch_id, r.ts AS launch_ts, r.pid, r.tid,
    (SELECT value FROM _string WHERE id = r.name_id) AS launch,
    (SELECT r2.ts FROM _gpu_link l2 JOIN _slice r2 ON r2.id = l2.launch_id
     WHERE l2.id = p.prev_id) AS prev_launch_ts
  FROM first_op f JOIN ops p ON p.event_id = f.event_id AND p.k = f.k
  JOIN _gpu g ON g.id = f.event_id LEFT JOIN _gpu_link l ON l.id = g.id
  LEFT JOIN _slice r ON r.id = l.launch_id
), last_wait AS (  -- per launch, the latest wait on its thread and on its stream before it
  SELECT id, max(thread_ts) OVER (PARTITION BY trace_id, pid, tid ORDER BY ts, id IS NOT NULL
                                  ROWS UNBOUNDED PRECEDING) AS thread_ts,
    max(stream_ts) OVER (PARTITION BY trace_id, device, stream ORDER BY ts, id IS NOT NULL
                         ROWS UNBOUNDED PRECEDING) AS stream_ts
  FROM (SELECT launch_id AS id, trace_id, pid, tid, NULL AS device, NULL AS stream, launch_ts AS ts,
          NULL AS thread_ts, NULL AS stream_ts FROM op
        UNION ALL
        SELECT launch_id, trace_id, NULL, NULL, device, stream, launch_ts, NULL, NULL FROM op
        UNION ALL
        SELECT NULL, trace_id, pid, tid, NULL, NULL, ts, ts, NULL FROM thread_wait
        UNION ALL
        SELECT NULL, trace_id, NULL, NULL, device, stream, ts, NULL, ts FROM stream_wait)
), waited AS (
  SELECT id, max(thread_ts) AS thread_ts, max(stream_ts) AS stream_ts FROM last_wait
  WHERE id IS NOT NULL GROUP BY id
)
SELECT q.k, q.trace_id, q.a, q.b, o.event_id, (SELECT value FROM _string WHERE id = o.name_id),
  o.device, o.stream, o.launch, o.ts - o.launch_ts,
  CASE
    WHEN q.b - q.a < (SELECT max_ns FROM report_kernel_wait) THEN 'switch'  -- HTA's bound
    WHEN o.launch LIKE '%GraphLaunch%' THEN 'graph'
    WHEN max(coalesce(w.thread_ts, -1), coalesce(w.stream_ts, -1))  -- a wait since the
           >= coalesce(o.prev_launch_ts, 0) THEN 'event'              -- stream's previous launch
    ELSE 'unseen'
  END
FROM report_queued_gap q LEFT JOIN op o ON o.k = q.k AND o.trace_id = q.trace_id AND o.a = q.a
LEFT JOIN waited w ON w.id = o.launch_id;
