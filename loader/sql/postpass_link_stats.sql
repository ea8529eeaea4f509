-- postpass_link_stats.sql — per new trace: GPU work with no runtime call
-- of the same correlation (import_stats gpu_without_launch), and the kernel
-- and graph launch calls no kernel links to (launch_without_gpu), the
-- captured ones left out (captured_launches).  Unmatched flows
-- are counted from keys gathered while parsing (flows.c), or by
-- postpass_flow_stats.sql.
-- A launch call whose kernels never reached the trace means GPU records
-- were lost (CUPTI's buffers dropped them, or the profiler stopped before
-- they were flushed): the report's gpu_records_lost reads this count,
-- which a dataset's summary keeps (it keeps neither every runtime call nor
-- the links).  The parser counts the launch calls (kernel_launches,
-- graph_launches) and the graph captures' begin and end calls
-- (graph_capture_calls), by name, so that no runtime row is read back here
-- (the kernels' own launch calls are: one lookup a kernel); a launch made
-- while its thread captures a graph runs nothing by design, and only a
-- trace that captures one reads its launches to leave those out.  Copies and fills are not
-- counted: CUPTI often records no fill for a cudaMemsetAsync (5.6% of them
-- on TraceLens' owlv2, 2% on param's resnet_kineto, every kernel there
-- recorded).
-- ?1 = the first trace id of this load.
--   trace_id, unlinked, captured, launches_without_gpu
WITH runtime AS (SELECT kind FROM _kind WHERE name = 'runtime'),
counted AS (  -- the parser's counts, per new trace with GPU work
  SELECT t.trace_id,
    coalesce((SELECT value FROM import_stats WHERE artifact_id = t.trace_id
       AND artifact = 'trace' AND name = 'kernel_launches'), 0) AS launches,
    coalesce((SELECT value FROM import_stats WHERE artifact_id = t.trace_id
       AND artifact = 'trace' AND name = 'graph_launches'), 0) AS graphs,
    coalesce((SELECT value FROM import_stats WHERE artifact_id = t.trace_id
       AND artifact = 'trace' AND name = 'graph_capture_calls'), 0) AS captures
  FROM trace t WHERE t.trace_id >= ?1
    AND EXISTS (SELECT 1 FROM _gpu g WHERE g.trace_id = t.trace_id)
),
-- the launch calls' names, as the parser counts them (kernel launches, and
-- graph launches: graph); read for the captured launches and for the calls
-- kernels link to: a kernel launch call links to one kernel (by its name: a
-- fill or copy call may launch kernels too, ROCm's __amd_rocclr_fillBuffer),
-- a graph launch to many (then the distinct calls are counted, which costs a
-- sort: only in traces that launch graphs)
launch_name AS MATERIALIZED (
  SELECT id, value GLOB '*Graph*' AS graph FROM _string
  WHERE value GLOB 'cu*Launch*Kernel*' OR value GLOB 'hi*Launch*Kernel*'
    OR value GLOB 'cu*GraphLaunch*' OR value GLOB 'hi*GraphLaunch*'
),
-- (only in traces that capture a graph) each capture on its thread, and
-- the launch calls inside it, found by name
capture_call AS MATERIALIZED (
  SELECT r.trace_id, r.pid, r.tid, r.ts, s.value GLOB '*BeginCapture*' AS begins
  FROM _slice r JOIN _string s ON s.id = r.name_id
  WHERE r.trace_id IN (SELECT trace_id FROM counted WHERE captures > 0)
    AND r.correlation IS NOT NULL AND r.kind = (SELECT kind FROM runtime)
    AND (s.value GLOB '*StreamBeginCapture*' OR s.value GLOB '*StreamEndCapture*')
),
capture AS (
  SELECT trace_id, pid, tid, ts AS a, coalesce(next_ts, 9223372036854775807) AS b FROM (
    SELECT *, lead(ts) OVER (PARTITION BY trace_id, pid, tid ORDER BY ts) AS next_ts
    FROM capture_call)
  WHERE begins
),
captured AS (
  SELECT r.trace_id, count(*) AS n
  FROM _slice r
  WHERE r.trace_id IN (SELECT trace_id FROM capture)
    AND r.correlation IS NOT NULL AND r.kind = (SELECT kind FROM runtime)
    AND r.name_id IN (SELECT id FROM launch_name WHERE NOT graph)
    AND EXISTS (SELECT 1 FROM capture c WHERE c.trace_id = r.trace_id AND c.pid IS r.pid
                AND c.tid IS r.tid AND r.ts >= c.a AND r.ts < c.b)
  GROUP BY r.trace_id
),
links AS (
  SELECT c.trace_id, c.launches + c.graphs AS launches,
    (SELECT count(*) FROM _gpu g JOIN _gpu_link l ON l.id = g.id
     WHERE g.trace_id = c.trace_id AND l.launch_id IS NULL
       AND g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset')))
      AS unlinked,
    (SELECT count(*) FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _slice r ON r.id = l.launch_id
     WHERE g.trace_id = c.trace_id AND g.kind = (SELECT kind FROM _kind WHERE name = 'kernel')
       AND r.name_id IN (SELECT id FROM launch_name WHERE NOT graph))
    + CASE WHEN c.graphs > 0
        THEN (SELECT count(DISTINCT l.launch_id) FROM _gpu g JOIN _gpu_link l ON l.id = g.id
              JOIN _slice r ON r.id = l.launch_id
              WHERE g.trace_id = c.trace_id
                AND g.kind = (SELECT kind FROM _kind WHERE name = 'kernel')
                AND r.name_id IN (SELECT id FROM launch_name WHERE graph))
        ELSE 0 END AS linked,
    coalesce((SELECT n FROM captured y WHERE y.trace_id = c.trace_id), 0) AS captured
  FROM counted c
)
SELECT k.trace_id, k.unlinked, k.captured,
  max(0, k.launches - k.linked - k.captured) AS launches_without_gpu
FROM links k;
