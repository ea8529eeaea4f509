-- Measure: what the database holds, for the missing-artifact rules (one row).
-- Builds: measure_counts
-- Reads: _flow, _gpu, _instant, _kind, _slice, _string, device, gpu_activity, report_gpu,
--   report_mem_device, report_op_stats, report_step, report_step_all, report_trace, trace
CREATE TEMP TABLE measure_counts (
  traces          INTEGER,  -- reported traces
  mem_devices     INTEGER,  -- snapshot devices
  gpu             INTEGER,  -- GPU activities in the analysed steps
  gpu_all         INTEGER,  -- GPU activities of the reported traces
  other_device    TEXT,     -- without GPU work: the most frequent other-accelerator category, in
                            --   words
  launch_calls    INTEGER,  -- without GPU work: runtime calls that launch GPU work
  ac2g_flows      INTEGER,  -- without GPU work: ac2g flows
  cpu_mem_peak    INTEGER,  -- without GPU work: peak CPU memory of the [memory] events, bytes
  gpu_mem_events  INTEGER,  -- without GPU work: [memory] events on a GPU
  devices         INTEGER,  -- GPUs in deviceProperties
  range_profiler  INTEGER,  -- 1: a cuda_profiler_range event is there
  legacy_traces   INTEGER,  -- traces of the legacy exporter
  steps           INTEGER,  -- analysed steps
  all_steps       INTEGER,  -- steps
  ops             INTEGER,  -- operator calls
  ops_with_shapes INTEGER,  -- operator calls with shapes
  host_recorded   INTEGER   -- with GPU work: 1 when the traces hold any host record (a CPU
                            --   operator, runtime call or user annotation; CPU activity always
                            --   records operators); 0: a GPU-only capture
) STRICT;
INSERT INTO measure_counts
WITH
-- GPU work of the reported traces, in the analysed steps or not: the
-- counts below that explain its absence scan the trace only without it
-- (a CASE evaluates its branch only when taken; a guard inside a
-- subquery's WHERE does not stop its scan).
gpu_all_m AS (
  SELECT count(*) AS gpu_all FROM gpu_activity a JOIN report_trace t USING (trace_id)
)
  SELECT (SELECT count(*) FROM report_trace) AS traces,
    (SELECT count(*) FROM report_mem_device) AS mem_devices,
    (SELECT count(*) FROM report_gpu) AS gpu,
    g.gpu_all,
    -- (scanned only when the traces have no CUDA/ROCm GPU work at all)
    CASE WHEN g.gpu_all = 0 THEN (SELECT printf('%d ''%s'' events', n, cat) FROM (
       SELECT c.value AS cat, count(*) AS n FROM _slice e JOIN _string c ON c.id = e.cat_id
       WHERE e.kind = (SELECT kind FROM _kind WHERE name = 'cpu_other') AND e.trace_id IN (SELECT
         trace_id FROM report_trace)
         AND (c.value GLOB 'mtia*' OR c.value GLOB 'xpu*' OR c.value GLOB 'hpu*'
              OR c.value GLOB 'npu*')
       GROUP BY c.value ORDER BY n DESC, c.value LIMIT 1)) END AS other_device,
    -- (scanned only when the traces have no GPU work at all) runtime calls
    -- that launch GPU work, ac2g flows (CPU-to-GPU links), [memory]
    -- events on the CPU (device type 0) and on a GPU, GPUs listed in
    -- deviceProperties, and whether a cuda_profiler_range event (CUPTI's
    -- range profiler, which records counters per range, not kernels) is there
    CASE WHEN g.gpu_all = 0 THEN (SELECT count(*) FROM _slice r JOIN _string n ON n.id = r.name_id
     WHERE r.kind = (SELECT kind FROM _kind WHERE name = 'runtime')
       AND r.trace_id IN (SELECT trace_id FROM report_trace)
       AND (n.value GLOB '*Launch*' OR n.value GLOB '*MemcpyAsync*'
            OR n.value GLOB '*MemsetAsync*')) ELSE 0 END AS launch_calls,
    CASE WHEN g.gpu_all = 0 THEN (SELECT count(*) FROM _flow f
     WHERE f.trace_id IN (SELECT trace_id FROM report_trace)
       AND f.cat_id = (SELECT id FROM _string WHERE value = 'ac2g')) ELSE 0 END AS ac2g_flows,
    CASE WHEN g.gpu_all = 0 THEN (SELECT max(i.total_allocated) FROM _instant i
     WHERE i.trace_id IN (SELECT trace_id FROM report_trace)
       AND i.kind = (SELECT kind FROM _kind WHERE name = 'memory') AND i.device_type = 0) END AS
         cpu_mem_peak,
    CASE WHEN g.gpu_all = 0 THEN (SELECT count(*) FROM _instant i
     WHERE i.trace_id IN (SELECT trace_id FROM report_trace)
       AND i.kind = (SELECT kind FROM _kind WHERE name = 'memory') AND i.device_type = 1) ELSE 0
         END AS gpu_mem_events,
    (SELECT count(*) FROM device d WHERE d.trace_id IN (SELECT trace_id FROM report_trace)) AS
      devices,
    CASE WHEN g.gpu_all = 0 THEN (SELECT count(*) > 0 FROM _slice e
     WHERE e.trace_id IN (SELECT trace_id FROM report_trace)
       AND e.cat_id = (SELECT id FROM _string WHERE value = 'cuda_profiler_range')) ELSE 0 END AS
         range_profiler,
    -- traces from PyTorch's legacy (pre-Kineto) exporter: a bare array of
    -- events without categories (FORMATS.md 1.10); it never writes shapes
    (SELECT count(*) FROM trace t WHERE t.trace_id IN (SELECT trace_id FROM report_trace)
       AND t.layout = 'array'
       AND NOT EXISTS (SELECT 1 FROM _slice e WHERE e.trace_id = t.trace_id AND e.raw_cat_id IS
         NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM _gpu e WHERE e.trace_id = t.trace_id AND e.raw_cat_id IS NOT
         NULL))
      AS legacy_traces,
    (SELECT count(*) FROM report_step) AS steps,
    (SELECT count(*) FROM report_step_all) AS all_steps,
    (SELECT coalesce(sum(calls), 0) FROM report_op_stats) AS ops,
    (SELECT coalesce(sum(shaped), 0) FROM report_op_stats) AS ops_with_shapes,
    -- (one match ends the scan: a trace with host records has them early)
    CASE WHEN g.gpu_all > 0 THEN EXISTS (SELECT 1 FROM _slice e
     WHERE e.trace_id IN (SELECT trace_id FROM report_trace)
       AND e.kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'runtime',
         'user_annotation'))) ELSE 1 END AS host_recorded
  FROM gpu_all_m g;
