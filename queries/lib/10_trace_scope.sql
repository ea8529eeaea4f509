-- Report scope for profiler traces: which traces, steps and events the
-- time sections analyse.  Run by profdb report before the sections; every
-- table here is TEMP, so reporting never writes to the database.
--
-- Parameters: :trace_id (NULL = every trace), :include_warmup (0 = the
-- first ProfilerStep of each trace with several steps is excluded as
-- warm-up: compilation, autotuning, allocator growth), :scope_trace (1 =
-- the whole trace: every event, inside or outside ProfilerSteps, in one
-- span per trace from its first to its last event), :scope_hta (1 with
-- :scope_trace = 1: HolisticTraceAnalysis' scope, which keeps GPU work only
-- when its launch call starts before the trace's last ProfilerStep does,
-- if the job has two ProfilerStep names or more: HTA drops the last step as
-- possibly incomplete, and GPU work it cannot relate to a launch call.  The
-- last ProfilerStep's start is the latest of its CPU range's and its GPU
-- annotations', as HTA takes it: with the GPU behind, the last step's work
-- is kept; report_hta_trace below).
--
-- A trace without ProfilerStep annotations is analysed whole (nothing can
-- be excluded as warm-up; report_window.all_steps is 0).
--
-- For speed on traces of millions of events, the event tables below read
-- the storage tables (_slice, _gpu, _slice_tree, _gpu_link: see
-- docs/schema.md) rather than the public views, and keep name ids; names
-- are resolved after aggregating (report_name).

-- report_trace (the traces reported on) and report_step_all (every step,
-- with its warm-up flag): lib/05_steps.sql, which profdb export runs too.

-- Steps analysed (none with the whole-trace scope: one span covers it all).
CREATE TEMP TABLE report_step AS
SELECT * FROM report_step_all
WHERE (:include_warmup OR NOT warmup) AND NOT empty AND NOT coalesce(:scope_trace, 0);
CREATE INDEX temp.report_step_by_trace ON report_step(trace_id);  -- (as report_step_all's)

-- Per trace: the analysed window [ts, end_ts), from the first analysed
-- step's span start to the last one's end (the whole trace when it has no
-- steps or with the whole-trace scope: whole = 1; NULL when it has steps
-- but none is analysed), and the counts.
CREATE TEMP TABLE report_window(trace_id INTEGER PRIMARY KEY, label TEXT, rank INTEGER,
  ts INTEGER, end_ts INTEGER, steps INTEGER, all_steps INTEGER, warmup_excluded INTEGER,
  whole INTEGER);
INSERT INTO report_window
SELECT t.trace_id, t.label, t.rank,
  CASE WHEN n.whole THEN t.start_ts ELSE n.ts END AS ts,
  CASE WHEN n.whole THEN t.end_ts ELSE n.end_ts END AS end_ts,
  n.steps, n.all_steps, n.warmup_excluded, n.whole
FROM report_trace t JOIN (
  SELECT r.trace_id,
    (SELECT min(s.span_ts) FROM report_step s WHERE s.trace_id = r.trace_id) AS ts,
    (SELECT max(s.span_end) FROM report_step s WHERE s.trace_id = r.trace_id) AS end_ts,
    (SELECT count(*) FROM report_step s WHERE s.trace_id = r.trace_id) AS steps,
    (SELECT count(*) FROM report_step_all s WHERE s.trace_id = r.trace_id) AS all_steps,
    (SELECT count(*) FROM report_step_all s WHERE s.trace_id = r.trace_id
       AND s.warmup AND NOT :include_warmup AND NOT coalesce(:scope_trace, 0)) AS warmup_excluded,
    coalesce(:scope_trace, 0)
      OR NOT EXISTS (SELECT 1 FROM report_step_all s WHERE s.trace_id = r.trace_id) AS whole
  FROM report_trace r) n USING (trace_id);

-- (trace_id, step) of the analysed steps; (trace_id, -1) for a trace
-- without steps, whose events all count, and with the whole-trace scope
-- every step and -1.  An event is in scope when (trace_id,
-- coalesce(step, -1)) is here.
CREATE TEMP TABLE report_scope(trace_id INTEGER, step INTEGER,
  PRIMARY KEY(trace_id, step)) WITHOUT ROWID;
INSERT INTO report_scope
SELECT trace_id, step FROM report_step
UNION SELECT s.trace_id, s.step FROM report_step_all s JOIN report_window w USING (trace_id)
  WHERE w.whole
UNION SELECT trace_id, -1 FROM report_window WHERE whole;

-- Names by id (the storage tables keep ids).
CREATE TEMP VIEW report_name(name_id, name) AS SELECT id, profdb_display_name(value) FROM _string;

-- Names of GPU work, once per name: kernel_category(), and whether it is a
-- fill/zero kernel (fill_kernel_sum), from the name's first 64 KiB (no
-- real kernel name is longer; a longer one is cut so that the rules read
-- a bounded copy: each use of a column copies the whole value, docs/
-- reliability.md "Long names").  name: the display form.
CREATE TEMP TABLE report_gpu_name(name_id INTEGER PRIMARY KEY, name TEXT, category TEXT,
  is_fill INTEGER);
WITH n AS MATERIALIZED (
  SELECT id, profdb_display_name(value) AS name,
    CASE WHEN length(value) > 65536 THEN substr(value, 1, 65536) ELSE value END AS head
  FROM _string
  WHERE id IN (SELECT name_id FROM _gpu
               WHERE kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset')))
)
INSERT INTO report_gpu_name
SELECT id, name, kernel_category(head),
  head LIKE '%FillFunctor%' OR head LIKE '%fill_kernel%' OR head LIKE '%zero_kernel%'
    OR head LIKE '%memset%'
FROM n;

-- With --scope hta, per trace (lib/11_hta.sql, lib/60 and the sections
-- read it too): rounded (HTA rounds its times: a fractional timestamp in
-- any event), filtered (HTA filters the trace: two or more ProfilerStep#N
-- names in the job, CPU ranges and GPU annotations), last_start (HTA µs:
-- the latest start of a ProfilerStep#N, CPU range or GPU annotation, one
-- per stream that ran the step's work; from it HTA keeps no CPU event and
-- no GPU work they launched, trace.py _filter_irrelevant_gpu_kernels; NULL
-- without one), shift (HTA µs: the job's first timestamp, which HTA
-- subtracts before adding durations).
CREATE TEMP TABLE report_hta_trace(trace_id INTEGER PRIMARY KEY, rounded INTEGER,
  filtered INTEGER, last_start REAL, shift REAL);
INSERT INTO report_hta_trace(trace_id, rounded)
SELECT t.trace_id,
  EXISTS (SELECT 1 FROM _slice s WHERE s.trace_id = t.trace_id AND s.ts % 1000 <> 0)
  OR EXISTS (SELECT 1 FROM _gpu g WHERE g.trace_id = t.trace_id AND g.ts % 1000 <> 0)
  OR EXISTS (SELECT 1 FROM _instant i WHERE i.trace_id = t.trace_id AND i.ts % 1000 <> 0)
  OR EXISTS (SELECT 1 FROM _flow f WHERE f.trace_id = t.trace_id AND f.ts % 1000 <> 0)
  OR EXISTS (SELECT 1 FROM _meta m WHERE m.trace_id = t.trace_id AND m.ts % 1000 <> 0)
FROM report_trace t
WHERE coalesce(:scope_hta, 0);
WITH ann AS (
  SELECT g.trace_id, g.ts, g.name_id FROM _gpu g JOIN _string n ON n.id = g.name_id
  WHERE g.dur IS NOT NULL AND g.kind = (SELECT kind FROM _kind WHERE name = 'gpu_annotation')
    AND g.trace_id IN (SELECT trace_id FROM report_hta_trace) AND n.value GLOB 'ProfilerStep#[0-9]*'
), cpu AS (
  SELECT st.trace_id, st.ts, s.name_id FROM step st JOIN _slice s ON s.id = st.event_id
  WHERE st.trace_id IN (SELECT trace_id FROM report_hta_trace)
)
UPDATE report_hta_trace SET
  filtered = (SELECT count(*) FROM (SELECT name_id FROM cpu UNION SELECT name_id FROM ann)) >= 2,
  last_start = (SELECT max(hta_ts(ts, report_hta_trace.rounded)) FROM (
      SELECT ts FROM cpu WHERE cpu.trace_id = report_hta_trace.trace_id
      UNION ALL SELECT ts FROM ann WHERE ann.trace_id = report_hta_trace.trace_id)),
  shift = (SELECT min(hta_ts(t.start_ts, h.rounded)) FROM report_hta_trace h
           JOIN trace t USING (trace_id));

-- GPU work (kernels, copies, fills) launched in the analysed steps (or all
-- of it for traces without steps).  category: kernel_category() of the
-- name; launch_ts: start of the launching runtime call.
CREATE TEMP TABLE report_gpu AS
SELECT g.id AS event_id, g.trace_id,
  (SELECT name FROM _kind WHERE _kind.kind = g.kind) AS kind,
  g.name_id, g.device, g.stream, g.ts, g.dur, l.step, g.correlation,
  l.launch_id, l.op_id, (SELECT r.ts FROM _slice r WHERE r.id = l.launch_id) AS launch_ts,
  g.bytes, n.category, n.is_fill
FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN report_gpu_name n ON n.name_id = g.name_id
WHERE g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
  AND g.dur IS NOT NULL AND g.ts IS NOT NULL
  AND EXISTS (SELECT 1 FROM report_scope k
              WHERE k.trace_id = g.trace_id AND k.step = coalesce(l.step, -1))
  AND (NOT coalesce(:scope_hta, 0)
       OR NOT (SELECT h.filtered FROM report_hta_trace h WHERE h.trace_id = g.trace_id)
       OR (SELECT hta_ts(r.ts, h.rounded) < h.last_start
           FROM _slice r, report_hta_trace h WHERE r.id = l.launch_id AND h.trace_id = g.trace_id));
CREATE INDEX temp.report_gpu_by_stream ON report_gpu(trace_id, device, stream, ts);

-- Calls and ops that block the host until the GPU has done some work
-- (sync_sum, findings): the synchronize calls, the synchronous copies
-- (cudaMemcpy and its 2D/3D/peer/symbol forms, the driver's cuMemcpyDtoH
-- / HtoD, their hip* twins, and hipMemcpyWithStream, which PyTorch on
-- ROCm issues for every blocking .cpu() / .item() / copy_), and the ops
-- that read a device value on the host (they end in one of those).  A
-- synchronous copy from device to device does not block the host (CUDA
-- runtime API, "API synchronization behavior"): report_marker drops those
-- whose copy ran DtoD.  Not cudaStreamWaitEvent / hipStreamWaitEvent:
-- they make a stream wait and return at once; not cudaMemset, nor
-- cudaMemcpyAsync / hipMemcpyAsync when the copy is device to device or
-- to or from pinned host memory: they return before the copy is done.
-- An async copy between device and *pageable* host memory blocks: "for
-- transfers from device memory to pageable host memory, the function will
-- return only once the copy has completed"; "if pageable memory must
-- first be staged to pinned memory, the driver may synchronize with the
-- stream" (CUDA runtime API, "API synchronization behavior",
-- Asynchronous); counting the call costs nothing when it does not block
-- (its idle is measured from its duration).  Kineto names those copies
-- "Memcpy DtoH (Device -> Pageable)" / "Memcpy HtoD (Pageable -> Device)".
-- So the async copy calls are listed here with is_copy 2 and count as
-- host-blocking only when their copy (_gpu_link) is pageable
-- (report_sync_pageable below; docs/definitions.md, "Host blocked on the
-- GPU").  The frees cudaFree, cudaFreeHost,
-- hipFree, hipHostFree (hipFreeHost) block too: freeing memory with them
-- synchronizes the device (CUDA Programming Guide, "Stream-Ordered Memory
-- Allocator": cudaMalloc and cudaFree "cause the GPU to synchronize across
-- all executing CUDA streams"); cudaFreeAsync / hipFreeAsync are
-- stream-ordered and return at once, so they are not listed.
-- loader/postpass.c's MARKER_NAME lists the same names and those of
-- report_setup_name below: keep them in step (report.marker checks it),
-- but for the async copies (is_copy 2): most of them block nothing, so
-- the load does not list them and report_marker takes the pageable ones
-- from _gpu_link.
--   name     call or op name as written
--   is_copy  1 for a blocking copy, 2 for an async copy that blocks only
--            when its host memory is pageable (the finding's advice names
--            either)
CREATE TEMP TABLE report_sync_name(name TEXT PRIMARY KEY, is_copy INTEGER);
INSERT INTO report_sync_name(name, is_copy) VALUES
  ('cudaStreamSynchronize', 0), ('cudaDeviceSynchronize', 0), ('cudaEventSynchronize', 0),
  ('cudaMemcpy', 1), ('cudaMemcpy2D', 1), ('cudaMemcpy3D', 1), ('cudaMemcpyPeer', 1),
  ('cudaMemcpyFromSymbol', 1), ('cudaMemcpyToSymbol', 1),
  ('cuMemcpyDtoH', 1), ('cuMemcpyDtoH_v2', 1), ('cuMemcpyHtoD', 1), ('cuMemcpyHtoD_v2', 1),
  ('hipStreamSynchronize', 0), ('hipDeviceSynchronize', 0), ('hipEventSynchronize', 0),
  ('hipMemcpy', 1), ('hipMemcpyWithStream', 1), ('hipMemcpyDtoH', 1), ('hipMemcpyHtoD', 1),
  ('hipMemcpy2D', 1), ('hipMemcpy3D', 1), ('hipMemcpyPeer', 1),
  ('hipMemcpyFromSymbol', 1), ('hipMemcpyToSymbol', 1),
  ('cudaMemcpyAsync', 2), ('cudaMemcpy2DAsync', 2), ('cudaMemcpy3DAsync', 2),
  ('hipMemcpyAsync', 2), ('hipMemcpy2DAsync', 2), ('hipMemcpy3DAsync', 2),
  ('aten::item', 0), ('aten::_local_scalar_dense', 0),
  ('aten::is_nonzero', 0), ('aten::equal', 0),
  ('cudaFree', 0), ('cudaFreeHost', 0), ('hipFree', 0), ('hipHostFree', 0), ('hipFreeHost', 0);

-- Allocator and one-time set-up calls (lib/38_claim.sql; findings
-- startup_calls, allocator_calls): runtime and driver calls that allocate
-- or free memory outside a stream's order, create events and streams or
-- load modules.  PyTorch's caching allocator makes them rare after
-- warm-up, so a profile without warm-up holds them at start-up; in the
-- steady state they mean the cache is bypassed (docs/definitions.md,
-- "Set-up and allocator calls").
--   name      runtime / driver call name
--   is_alloc  1 for an allocation or a free, 0 for creating events or
--             streams, loading modules or querying a kernel
--   query     1 for a query of a kernel's attributes or occupancy: the
--             first one loads the kernel's module (CUDA's lazy loading)
--             or a library's heuristics; one-time calls count as set-up,
--             repeated ones (a library asking before every launch, a few
--             us each) are ordinary runtime work, not churn (issue 44's
--             audit of unseen traces: a ResNet-50 forward's one
--             cudaOccupancyMaxActiveBlocksPerMultiprocessor call, 1.32 ms
--             inside its only addmm, was promised as steady GPU idle)
CREATE TEMP TABLE report_setup_name(name TEXT PRIMARY KEY, is_alloc INTEGER,
  query INTEGER DEFAULT 0);
INSERT INTO report_setup_name(name, is_alloc, query) VALUES
  ('cudaOccupancyMaxActiveBlocksPerMultiprocessor', 0, 1),
  ('cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags', 0, 1),
  ('cudaOccupancyMaxPotentialBlockSize', 0, 1), ('cudaFuncGetAttributes', 0, 1),
  ('cuOccupancyMaxActiveBlocksPerMultiprocessor', 0, 1), ('cuFuncGetAttribute', 0, 1),
  ('hipOccupancyMaxActiveBlocksPerMultiprocessor', 0, 1), ('hipFuncGetAttributes', 0, 1);
INSERT INTO report_setup_name(name, is_alloc) VALUES
  ('cudaMalloc', 1), ('cudaFree', 1), ('cudaMallocHost', 1), ('cudaHostAlloc', 1),
  ('cudaFreeHost', 1), ('cudaMallocManaged', 1), ('cudaMallocPitch', 1),
  ('cuMemAlloc', 1), ('cuMemAlloc_v2', 1), ('cuMemFree', 1), ('cuMemFree_v2', 1),
  ('hipMalloc', 1), ('hipFree', 1), ('hipHostMalloc', 1), ('hipHostFree', 1),
  ('hipFreeHost', 1), ('hipMallocManaged', 1), ('hipExtMallocWithFlags', 1),
  ('hipMallocPitch', 1),
  ('cudaEventCreate', 0), ('cudaEventCreateWithFlags', 0), ('cudaStreamCreate', 0),
  ('cudaStreamCreateWithFlags', 0), ('cudaStreamCreateWithPriority', 0),
  ('cuModuleLoad', 0), ('cuModuleLoadData', 0), ('cuModuleLoadDataEx', 0),
  ('cuModuleGetFunction', 0), ('cuLibraryLoadData', 0),
  ('hipEventCreate', 0), ('hipEventCreateWithFlags', 0), ('hipStreamCreate', 0),
  ('hipStreamCreateWithFlags', 0), ('hipStreamCreateWithPriority', 0),
  ('hipModuleLoad', 0), ('hipModuleLoadData', 0), ('hipModuleLoadDataEx', 0),
  ('hipModuleGetFunction', 0);

-- The synchronous copy calls whose copy ran device to device: they do not
-- block the host (above), so report_marker does not count them as syncs.
--   launch_id  the runtime call's event id
CREATE TEMP TABLE report_sync_dtod(launch_id INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO report_sync_dtod
SELECT l.launch_id FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _string n ON n.id = g.name_id
WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'memcpy') AND l.launch_id IS NOT NULL
  AND (n.value LIKE '%DtoD%' OR n.value LIKE '%DeviceToDevice%')
  AND (SELECT r.name_id FROM _slice r WHERE r.id = l.launch_id)
      IN (SELECT x.id FROM _string x JOIN report_sync_name y ON y.name = x.value WHERE y.is_copy);

-- The async copy calls (report_sync_name.is_copy 2) whose copy ran
-- between device and pageable host memory: they block the host (above),
-- so report_marker counts them as syncs.
--   launch_id  the runtime call's event id
CREATE TEMP TABLE report_sync_pageable(launch_id INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO report_sync_pageable
SELECT l.launch_id FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _string n ON n.id = g.name_id
WHERE g.kind = (SELECT kind FROM _kind WHERE name = 'memcpy') AND l.launch_id IS NOT NULL
  AND n.value LIKE '%Pageable%'
  AND (SELECT r.name_id FROM _slice r WHERE r.id = l.launch_id)
      IN (SELECT x.id FROM _string x JOIN report_sync_name y ON y.name = x.value
          WHERE y.is_copy = 2);

-- Name ids the CPU sections look for besides operators: sync calls,
-- checkpoint/recompute frames, phase markers, DataLoader ranges, steps.
--   setup: 1 for an allocator or set-up call (report_setup_name)
CREATE TEMP TABLE report_marker_name(name_id INTEGER PRIMARY KEY, name TEXT, sync INTEGER,
  recompute INTEGER, backward INTEGER, optimizer INTEGER, dataloader INTEGER, step INTEGER,
  setup INTEGER);
-- (length() reads no text: a name over 64 KiB is no marker and is never
-- copied here.)
INSERT INTO report_marker_name
SELECT id, value, value IN (SELECT name FROM report_sync_name),
  value LIKE '%checkpoint%' OR value LIKE '%recompute%',
  value LIKE 'autograd::engine::evaluate_function%' OR value GLOB '*Backward[0-9]*',
  value LIKE 'Optimizer.step#%', value LIKE 'enumerate(DataLoader)%',
  value GLOB 'ProfilerStep#*', value IN (SELECT name FROM report_setup_name)
FROM _string
WHERE length(value) <= 65536
  AND (value IN (SELECT name FROM report_sync_name) OR value IN (SELECT name FROM report_setup_name)
       OR value LIKE '%checkpoint%' OR value LIKE '%recompute%'
       OR value LIKE 'autograd::engine::evaluate_function%' OR value GLOB '*Backward[0-9]*'
       OR value LIKE 'Optimizer.step#%' OR value LIKE 'enumerate(DataLoader)%'
       OR value GLOB 'ProfilerStep#*');

-- Operators of the analysed steps, per thread and name (op_stats, summed
-- while loading; ProfilerStep#N is not an operator).
--   calls, total_dur, self_dur, max_dur: count and times (ns)
--   shaped: calls that recorded Input Dims
CREATE TEMP TABLE report_op_thread AS
SELECT o.trace_id, o.pid, o.tid, o.name_id, sum(o.calls) AS calls,
  sum(o.total_dur) AS total_dur, sum(o.self_dur) AS self_dur, max(o.max_dur) AS max_dur,
  sum(o.shaped) AS shaped
FROM _op_stats o
WHERE EXISTS (SELECT 1 FROM report_scope k
              WHERE k.trace_id = o.trace_id AND k.step = coalesce(o.step, -1))
GROUP BY o.trace_id, o.pid, o.tid, o.name_id;

-- Per operator name: the figures of the operator tables.
CREATE TEMP TABLE report_op_stats AS
SELECT a.name_id, n.name, a.calls, a.total_dur, a.self_dur, a.max_dur, a.shaped
FROM (SELECT name_id, sum(calls) AS calls, sum(total_dur) AS total_dur,
        sum(self_dur) AS self_dur, max(max_dur) AS max_dur, sum(shaped) AS shaped
      FROM report_op_thread GROUP BY name_id) a
JOIN report_name n USING (name_id);

-- The analysed CPU slices with marker names (sync calls, checkpoint
-- frames, phase markers, DataLoader ranges), with the marker flags.  The
-- load listed the slices of these names in _attr_marker (its patterns are
-- those of report_marker_name above: keep them in step).
--   kind: 'cpu_op', 'user_annotation', 'python_function' or 'runtime'
CREATE TEMP TABLE report_marker AS
SELECT s.id AS event_id, s.trace_id,
  (SELECT name FROM _kind WHERE _kind.kind = s.kind) AS kind,
  s.name_id, s.pid, s.tid, s.ts, s.dur, t.step, m.name,
  m.sync AND s.id NOT IN (SELECT launch_id FROM report_sync_dtod) AS sync, m.recompute, m.backward,
  m.optimizer, m.dataloader, m.setup
FROM _attr_marker a CROSS JOIN _slice s CROSS JOIN report_marker_name m CROSS JOIN _slice_tree t
WHERE s.id = a.id AND m.name_id = s.name_id AND t.id = s.id AND NOT m.step
  -- Python frames (millions with with_stack=True) only when some frame
  -- name is a checkpoint marker
  AND (s.kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation', 'runtime'))
       OR (s.kind = (SELECT kind FROM _kind WHERE name = 'python_function')
           AND EXISTS (SELECT 1 FROM report_marker_name WHERE recompute)))
  AND s.ts IS NOT NULL AND s.dur IS NOT NULL
  AND EXISTS (SELECT 1 FROM report_scope k
              WHERE k.trace_id = s.trace_id AND k.step = coalesce(t.step, -1));

-- The async copy calls to or from pageable memory (report_sync_pageable):
-- the load does not list them in _attr_marker, so they are added here.
INSERT INTO report_marker
SELECT s.id, s.trace_id, (SELECT name FROM _kind WHERE _kind.kind = s.kind), s.name_id, s.pid,
  s.tid, s.ts, s.dur, t.step, m.name, 1, 0, 0, 0, 0, 0
FROM report_sync_pageable p CROSS JOIN _slice s CROSS JOIN report_marker_name m
  CROSS JOIN _slice_tree t
WHERE s.id = p.launch_id AND m.name_id = s.name_id AND t.id = s.id
  AND s.ts IS NOT NULL AND s.dur IS NOT NULL
  AND EXISTS (SELECT 1 FROM report_scope k
              WHERE k.trace_id = s.trace_id AND k.step = coalesce(t.step, -1));

-- The analysed CPU intervals spent in sync calls, nested ones included.
CREATE TEMP VIEW report_sync AS SELECT * FROM report_marker WHERE sync;
-- The analysed allocator and set-up calls (report_setup_name).
CREATE TEMP VIEW report_setup AS SELECT * FROM report_marker WHERE setup;

-- The backward passes: the time covered by the analysed autograd-engine
-- events (evaluate_function, *Backward0 nodes), merged per trace, in any
-- scope.  GPU work launched inside them is the backward pass's: a gradient
-- all-reduce can run beside it, not beside the forward (the optimizer
-- step waits for the all-reduces, the next forward for the optimizer:
-- lib/findings/comm.sql).
--   trace_id, a, b   one merged stretch [a, b) (ns)
CREATE TEMP TABLE report_backward AS
WITH m AS (
  SELECT trace_id, ts AS a, ts + dur AS b FROM report_marker WHERE backward AND dur > 0
), o AS (
  SELECT *, max(b) OVER (PARTITION BY trace_id ORDER BY a, b
                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
  FROM m
), g AS (
  SELECT *, sum(before IS NULL OR a > before) OVER (PARTITION BY trace_id ORDER BY a, b
                                                    ROWS UNBOUNDED PRECEDING) AS run
  FROM o
)
SELECT trace_id, min(a) AS a, max(b) AS b FROM g GROUP BY trace_id, run;
CREATE INDEX temp.report_backward_by_start ON report_backward(trace_id, a);

-- The time ranges the per-step sections use, numbered k in time order:
-- the analysed steps' spans, or one pseudo-step (NULL) covering the whole
-- trace when it has none.  Spans never overlap, so an interval overlaps
-- exactly the spans k0..k1 (see lib/15_timeline.sql).
CREATE TEMP TABLE report_span(
  k INTEGER PRIMARY KEY, trace_id INTEGER, step INTEGER, ts INTEGER, end_ts INTEGER);
INSERT INTO report_span(trace_id, step, ts, end_ts)
SELECT trace_id, step, ts, end_ts FROM (
  SELECT trace_id, step, span_ts AS ts, span_end AS end_ts FROM report_step
  UNION ALL
  SELECT w.trace_id, NULL, w.ts, w.end_ts FROM report_window w WHERE w.whole)
ORDER BY trace_id, ts;
CREATE INDEX temp.report_span_by_ts ON report_span(trace_id, ts);
CREATE INDEX temp.report_span_by_end ON report_span(trace_id, end_ts);
