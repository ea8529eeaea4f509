-- Title: The memory peak on the trace's timeline
-- Question: When a memory snapshot and a trace come from the same run, at
--   which step, in which operator and module was the memory peak, what was
--   allocated at each step boundary, and what was each step's peak?  The
--   allocator's time_us and the trace's base_time_ns + ts are both epoch
--   times; lib/45_trace_snapshot_clock.sql says when a pair cannot be
--   aligned (relative timestamps, no overlap, another device) and this
--   section then says why instead of guessing.
-- Requires: report_clock_pair
-- Parameters: :top
-- Empty: this needs a memory snapshot and a trace loaded together
--   (torch.cuda.memory._record_memory_history() during the profiled steps,
--   then _dump_snapshot() and the profiler's trace)
-- Columns:
--   snapshot          -      snapshot label
--   device            -      device ordinal
--   trace             -      trace label
--   row               -      'peak': the replayed peak; 'step': one step; 'unaligned': the clocks cannot be joined (see note)
--   step              -      ProfilerStep number (CPU range containing the moment); NULL outside steps
--   at_ns             ns     the moment (peak, or the step's own peak) from the trace's start; microsecond resolution
--   allocated_bytes   bytes  allocated at that moment (requested bytes, as the memory viewer plots)
--   step_start_bytes  bytes  allocated when the step's CPU range began (the replay's baseline before the first event)
--   operator          symbol innermost CPU operator running at that moment (any thread: the snapshot does not record the allocating thread)
--   module            -      innermost nn.Module range running at that moment (NULL without with_stack/with_modules)
--   thread            -      thread of that operator
--   note              -      why the row is unaligned, or what is unknown
WITH aligned AS (
  SELECT p.*, s.label AS snapshot, t.label AS trace, t.start_ts
  FROM report_clock_pair p JOIN snapshot s USING (snapshot_id) JOIN trace t USING (trace_id)
  WHERE p.aligned
), moment AS (
  -- the peak of each aligned pair, and each step's own peak
  SELECT a.snapshot_id, a.device, a.trace_id, 'peak' AS row, NULL AS step_no,
    (SELECT c.ts FROM report_clock_timeline c WHERE c.snapshot_id = a.snapshot_id
       AND c.device = a.device AND c.trace_id = a.trace_id AND c.seq = k.peak_seq) AS ts,
    k.peak_allocated AS allocated
  FROM aligned a JOIN report_mem_peak k USING (snapshot_id, device)
  UNION ALL
  SELECT a.snapshot_id, a.device, a.trace_id, 'step', s.step,
    (SELECT c.ts FROM report_clock_timeline c WHERE c.snapshot_id = a.snapshot_id
       AND c.device = a.device AND c.trace_id = a.trace_id AND c.ts >= s.ts AND c.ts < s.ts + s.dur
     ORDER BY c.allocated DESC, c.ts LIMIT 1),
    (SELECT max(c.allocated) FROM report_clock_timeline c WHERE c.snapshot_id = a.snapshot_id
       AND c.device = a.device AND c.trace_id = a.trace_id AND c.ts >= s.ts AND c.ts < s.ts + s.dur)
  FROM aligned a JOIN step s USING (trace_id)
), placed AS (
  SELECT m.*,
    coalesce(m.step_no, (SELECT s.step FROM step s WHERE s.trace_id = m.trace_id
                         AND s.ts <= m.ts AND s.ts + s.dur > m.ts)) AS step,
    (SELECT s.id FROM _slice s JOIN _slice_tree t ON t.id = s.id
     WHERE s.trace_id = m.trace_id AND s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op') AND s.ts <= m.ts AND s.ts + s.dur > m.ts
     ORDER BY t.depth DESC, s.ts DESC LIMIT 1) AS op_id,
    (SELECT s.id FROM _slice s JOIN _slice_tree t ON t.id = s.id JOIN _string n ON n.id = s.name_id
     WHERE s.trace_id = m.trace_id AND s.kind = (SELECT kind FROM _kind WHERE name = 'python_function') AND n.value LIKE 'nn.Module: %'
       AND s.ts <= m.ts AND s.ts + s.dur > m.ts
     ORDER BY t.depth DESC, s.ts DESC LIMIT 1) AS module_id
  FROM moment m
)
SELECT * FROM (
SELECT a.snapshot, a.device, a.trace, p.row, p.step, p.ts - a.start_ts AS at_ns, p.allocated AS allocated_bytes,
  CASE WHEN p.step IS NOT NULL THEN coalesce(
    (SELECT c.allocated FROM report_clock_timeline c, step s
     WHERE s.trace_id = p.trace_id AND s.step = p.step AND c.snapshot_id = p.snapshot_id
       AND c.device = p.device AND c.trace_id = p.trace_id AND c.ts <= s.ts
     ORDER BY c.ts DESC, c.seq DESC LIMIT 1),
    -- no event before the step: what was allocated before the first event
    (SELECT k.baseline FROM report_mem_peak k WHERE k.snapshot_id = p.snapshot_id
       AND k.device = p.device)) END AS step_start_bytes,
  (SELECT profdb_display_name(n.value) FROM _slice s JOIN _string n ON n.id = s.name_id WHERE s.id = p.op_id) AS operator,
  coalesce((SELECT a.path FROM _slice_tree t JOIN _attr_path a ON a.id = t.path_id
            WHERE t.id = p.module_id AND a.tree = 'module'),
           (SELECT profdb_display_name(substr(n.value, 12)) FROM _slice s JOIN _string n ON n.id = s.name_id
            WHERE s.id = p.module_id)) AS module,
  (SELECT CAST(s.tid AS TEXT) FROM _slice s WHERE s.id = p.op_id) AS thread,
  CASE WHEN p.ts IS NULL AND p.row = 'peak' THEN 'the peak is the memory allocated before the first recorded event'
       WHEN p.ts IS NULL THEN 'no allocator event during this step'
       WHEN p.step IS NULL THEN 'outside every ProfilerStep range' END AS note
FROM placed p JOIN aligned a USING (snapshot_id, device, trace_id)
UNION ALL
SELECT s.label, p.device, t.label, 'unaligned', NULL, NULL, NULL, NULL, NULL, NULL, NULL, p.reason
FROM report_clock_pair p JOIN snapshot s USING (snapshot_id) JOIN trace t USING (trace_id)
WHERE NOT p.aligned AND NOT EXISTS (SELECT 1 FROM report_clock_pair q WHERE q.aligned
  AND q.snapshot_id = p.snapshot_id AND q.device = p.device))
ORDER BY snapshot, device, trace, row = 'step', step LIMIT 4 * :top;
