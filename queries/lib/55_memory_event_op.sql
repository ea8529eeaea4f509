-- The trace's own [memory] events (profile_memory=True) of the analysed
-- window, each with the operator running when it happened on its thread:
-- the innermost cpu_op whose closed interval [ts, ts + dur] contains it, as
-- PyTorch's profiler counts an operator's memory (torch.autograd.profiler
-- MemRecordsAcc.in_interval: start and end included), so an allocation in
-- an operator's last microsecond is its own, not its parent's.  Where one
-- operator ends as another starts, the later one.  (TensorBoard's memory
-- view takes [ts, ts + dur) instead.)  Computed for op_memory_sum.

-- The CPU slices of the threads that have [memory] events, for a fast
-- "last slice started before t" lookup; Python frames left out (no
-- operator: a frame starting as an operator ends would hide that
-- operator, whose closed interval still holds an event at that instant).
CREATE TEMP TABLE report_mem_thread_slice AS
WITH thread AS (
  SELECT DISTINCT trace_id, pid, tid FROM _instant
  WHERE kind = (SELECT kind FROM _kind WHERE name = 'memory') AND trace_id IN (SELECT trace_id FROM report_trace)
)
SELECT s.trace_id, s.pid, s.tid, s.ts, s.id, t.depth
-- (no index on threads: one scan of the slices, none at all when no
-- thread has [memory] events; CROSS JOIN fixes that loop order)
FROM (SELECT 1 FROM thread LIMIT 1) AS any_thread
CROSS JOIN _slice s
CROSS JOIN thread h ON s.trace_id = h.trace_id AND s.pid IS h.pid AND s.tid IS h.tid
JOIN _slice_tree t ON t.id = s.id
WHERE s.ts IS NOT NULL AND s.dur IS NOT NULL
  AND s.kind <> (SELECT kind FROM _kind WHERE name = 'python_function');
CREATE INDEX temp.report_mem_thread_slice_by_ts ON report_mem_thread_slice(trace_id, pid, tid, ts, depth);

-- Each [memory] event with its operator.
--   event_id, trace_id       the [memory] event
--   device_type, device_id   c10 DeviceType (0 CPU, 1 CUDA) and ordinal
--   bytes                    positive on allocation, negative on free
--   op_id                    the innermost cpu_op running at that instant on its thread (its
--                            start and end included), NULL when none
CREATE TEMP TABLE report_mem_event_op AS
WITH RECURSIVE ev AS (
  SELECT m.id AS event_id, m.trace_id, m.ts, m.device_type, m.device_id, m.bytes,
    (SELECT x.id FROM report_mem_thread_slice x
     WHERE x.trace_id = m.trace_id AND x.pid = m.pid AND x.tid = m.tid AND x.ts <= m.ts
     ORDER BY x.ts DESC, x.depth DESC LIMIT 1) AS last_started
  FROM _instant m JOIN report_window w ON w.trace_id = m.trace_id
  WHERE m.kind = (SELECT kind FROM _kind WHERE name = 'memory') AND m.bytes IS NOT NULL AND m.ts >= w.ts AND m.ts < w.end_ts
), up(event_id, slice_id) AS (
  -- from the last slice started before the event up to the root
  SELECT event_id, last_started FROM ev WHERE last_started IS NOT NULL
  UNION ALL
  SELECT up.event_id, t.parent_id FROM up JOIN _slice_tree t ON t.id = up.slice_id
  WHERE t.parent_id IS NOT NULL
), containing AS (
  SELECT up.event_id, s.id, t.depth
  FROM up JOIN ev USING (event_id) JOIN _slice s ON s.id = up.slice_id
  JOIN _slice_tree t ON t.id = s.id
  WHERE s.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op') AND s.ts <= ev.ts
    AND s.ts + s.dur >= ev.ts
)
SELECT ev.event_id, ev.trace_id, ev.device_type, ev.device_id, ev.bytes,
  (SELECT c.id FROM containing c WHERE c.event_id = ev.event_id ORDER BY c.depth DESC LIMIT 1) AS op_id
FROM ev;
