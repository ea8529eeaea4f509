-- HTA's view of the GPU work, for the temporal breakdown of --scope hta
-- (temporal_breakdown.sql): the events HolisticTraceAnalysis v0.6.0
-- (facebookresearch/HolisticTraceAnalysis, commit f4d0062) counts in
-- get_temporal_breakdown, with its times.  Empty unless :scope_hta = 1.
-- HTA's own arithmetic, followed even where it is wrong
-- (docs/definitions.md, "Temporal breakdown"):
--   * times are µs doubles; a trace with a fractional timestamp anywhere
--     is rounded (hta/common/trace_parser.py round_down_time_stamps): each
--     event starts at ceil(ts) and ends at floor(ts + dur), so an event
--     shorter than a microsecond can end before it starts (hta_ts, hta_end);
--   * GPU work is every event with an integer "stream" arg other than -1
--     (breakdown_analysis.py: trace_df["stream"].ne(-1)): kernels, copies,
--     fills, CUDA synchronization events, and CPU events that carry a
--     stream (Triton launchers, MTIA ccp events), all streams together;
--   * with two or more ProfilerStep#N names in the job, HTA keeps only the
--     CPU events that start before the last ProfilerStep#N does (of the
--     CPU ranges and the GPU annotations) and the GPU events (stream >= 0
--     with a correlation, or Event Sync / Context Sync) whose correlation
--     is one of theirs (trace.py _filter_irrelevant_gpu_kernels); other
--     events with a stream count as CPU events there;
--   * compute is a name matching none of HTA's non-compute patterns
--     (hta/common/types.py ComputeKernelGroupingPattern, inverted).

-- The "stream" arg of CPU events as HTA reads it (pd.to_numeric, -1 when
-- absent or not a number), for the slices that have one.
CREATE TEMP TABLE report_hta_slice_stream(id INTEGER PRIMARY KEY, stream INTEGER);
INSERT INTO report_hta_slice_stream
SELECT s.id,
  CASE json_type(s.args, '$.stream')
    WHEN 'integer' THEN json_extract(s.args, '$.stream')
    WHEN 'real' THEN CAST(json_extract(s.args, '$.stream') AS INTEGER)
    WHEN 'text' THEN CASE WHEN json_extract(s.args, '$.stream') GLOB '[0-9]*'
                            AND NOT json_extract(s.args, '$.stream') GLOB '*[^0-9]*'
                          THEN CAST(json_extract(s.args, '$.stream') AS INTEGER) ELSE -1 END
    ELSE -1 END
FROM _slice s JOIN report_hta_trace h USING (trace_id)
WHERE coalesce(:scope_hta, 0) AND s.args LIKE '%"stream"%' AND json_valid(s.args) AND json_type(s.args, '$.stream') IS NOT NULL;

-- Correlations of the CPU events HTA keeps (those starting before the last
-- ProfilerStep#N), in filtered traces.
CREATE TEMP TABLE report_hta_corr(trace_id INTEGER, correlation INTEGER,
  PRIMARY KEY(trace_id, correlation)) WITHOUT ROWID;
INSERT OR IGNORE INTO report_hta_corr
SELECT s.trace_id, s.correlation
FROM _slice s JOIN report_hta_trace h USING (trace_id)
WHERE coalesce(:scope_hta, 0) AND h.filtered AND s.correlation IS NOT NULL AND s.dur IS NOT NULL
  AND s.raw_cat_id IS NOT NULL AND hta_ts(s.ts, h.rounded) < h.last_start
  -- a slice with a stream and a correlation is GPU work for HTA
  AND NOT (s.correlation >= 0 AND coalesce((SELECT x.stream FROM report_hta_slice_stream x
                                            WHERE x.id = s.id), -1) >= 0)
  AND (SELECT value FROM _string WHERE id = s.name_id) NOT IN ('Event Sync', 'Context Sync');

-- The GPU work of the temporal breakdown, as HTA sees it.
--   trace_id         -      trace
--   ts, end_ts       µs     HTA's start and end, minus the job's first timestamp
--   compute          -      1 when HTA counts the name as computation
CREATE TEMP TABLE report_hta_gpu(trace_id INTEGER, ts REAL, end_ts REAL, compute INTEGER);
INSERT INTO report_hta_gpu
WITH ev AS (
  SELECT g.trace_id, g.ts, g.dur, g.stream, g.correlation, g.name_id
  FROM _gpu g JOIN report_hta_trace h USING (trace_id)
  WHERE coalesce(:scope_hta, 0)
    AND g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset', 'gpu_sync'))
    AND g.ts IS NOT NULL AND g.dur IS NOT NULL AND g.raw_cat_id IS NOT NULL
  UNION ALL
  SELECT s.trace_id, s.ts, s.dur, x.stream, s.correlation, s.name_id
  FROM report_hta_slice_stream x JOIN _slice s ON s.id = x.id
  WHERE s.ts IS NOT NULL AND s.dur IS NOT NULL AND s.raw_cat_id IS NOT NULL
)
SELECT ev.trace_id, hta_ts(ev.ts, h.rounded) - h.shift, hta_end(ev.ts, ev.dur, h.rounded, h.shift),
  NOT (n.value GLOB 'nccl*' OR n.value GLOB 'hip*' OR n.value GLOB 'hccl*'
       OR n.value GLOB '*ncclKernel*' OR n.value GLOB '*Memcpy*' OR n.value GLOB '*Memset*'
       OR n.value GLOB '*dma*' OR n.value GLOB '*Sync*' OR n.value GLOB 'Stream Wait Event*'
       OR n.value GLOB '*cuda*LaunchKernel*' OR n.value GLOB 'runFunction*'
       OR n.value GLOB 'job_exe*' OR n.value GLOB 'packet*' OR n.value GLOB 'pe_exe*'
       OR n.value GLOB 'cpum_exe_subgraph*' OR n.value GLOB 'collective_subgraph_execution*')
FROM ev JOIN report_hta_trace h USING (trace_id) JOIN _string n ON n.id = ev.name_id
WHERE coalesce(:scope_hta, 0) AND ev.stream <> -1
  AND (NOT h.filtered
       OR CASE WHEN (ev.stream >= 0 AND ev.correlation >= 0)
                    OR n.value IN ('Event Sync', 'Context Sync')
               THEN EXISTS (SELECT 1 FROM report_hta_corr c
                            WHERE c.trace_id = ev.trace_id AND c.correlation = ev.correlation)
               ELSE hta_ts(ev.ts, h.rounded) < h.last_start END);
