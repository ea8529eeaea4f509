-- One clock for the trace and the snapshot: which (snapshot, device) can be
-- placed on which trace's timeline, or why not.  The allocator's time_us
-- and a trace's base_time_ns + ts are both epoch-based (PyTorch 2.x), so
-- a snapshot and a trace of the same run line up without any offset.
--
-- The "same run" check used here (until the run grouping of the findings
-- issue is available to call): the trace and the snapshot device must
--   1. both be on the epoch clock: the trace has baseTimeNanoseconds, or
--      its timestamps are themselves epoch times (>= 10^18 ns, after
--      2001-09-09, as pre-2.4 Kineto wrote them); the snapshot's time_us
--      are >= 10^15 (epoch microseconds);
--   2. overlap in time: the snapshot's first to last allocator event and
--      the trace's first to last event share at least one instant;
--   3. agree on the device: the trace ran GPU work on that device ordinal
--      (a trace without GPU work accepts any device).
-- A pair that fails is reported with the first rule it fails; nothing is
-- guessed.

-- Each snapshot device against each trace.
--   snapshot_id, device, trace_id  the pair
--   aligned        1 when the rules above hold
--   reason         why not (NULL when aligned)
--   epoch_offset   ns to add to the trace's ts to get epoch ns (NULL when unknown)
CREATE TEMP TABLE report_clock_pair AS
WITH snap AS (
  SELECT e.snapshot_id, e.device, min(e.time_us) AS first_us, max(e.time_us) AS last_us
  FROM alloc_event e JOIN report_mem_device d USING (snapshot_id, device)
  WHERE e.time_us IS NOT NULL
  GROUP BY e.snapshot_id, e.device
), tr AS (
  SELECT t.trace_id, t.label, t.start_ts, t.end_ts,
    CASE WHEN t.base_time_ns IS NOT NULL THEN t.base_time_ns
         WHEN t.start_ts >= 1000000000000000000 THEN 0 END AS epoch_offset
  FROM trace t JOIN report_trace r USING (trace_id)
), pair AS (
  SELECT d.snapshot_id, d.device, tr.trace_id, tr.epoch_offset,
    s.first_us, s.last_us, tr.start_ts + tr.epoch_offset AS t0, tr.end_ts + tr.epoch_offset AS t1,
    EXISTS (SELECT 1 FROM _gpu g WHERE g.trace_id = tr.trace_id AND g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))) AS has_gpu,
    EXISTS (SELECT 1 FROM _gpu g WHERE g.trace_id = tr.trace_id AND g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
            AND g.device = d.device) AS on_device
  FROM report_mem_device d CROSS JOIN tr LEFT JOIN snap s USING (snapshot_id, device)
)
SELECT snapshot_id, device, trace_id,
  CASE WHEN reason IS NULL THEN 1 ELSE 0 END AS aligned, reason, epoch_offset
FROM (
  SELECT *, CASE
    WHEN first_us IS NULL THEN 'the snapshot has no timed allocator events (no device_traces with time_us)'
    WHEN epoch_offset IS NULL THEN 'the trace has relative timestamps (no baseTimeNanoseconds): its clock cannot be placed on the epoch'
    WHEN first_us < 1000000000000000 THEN 'the snapshot''s time_us are not epoch times'
    WHEN last_us * 1000 < t0 OR first_us * 1000 > t1 THEN
      'no overlap: the snapshot''s events (' || (first_us / 1000000) || ' to ' || (last_us / 1000000)
      || ' s since the epoch) and the trace (' || (t0 / 1000000000) || ' to ' || (t1 / 1000000000)
      || ' s) are from different times'
    WHEN has_gpu AND NOT on_device THEN 'the trace ran no GPU work on device ' || device
    END AS reason
  FROM pair);

-- The analysed memory timeline of each aligned pair on the trace's clock:
-- allocated bytes after each allocator event.
--   ts         the event's time on the trace's clock (ns; microsecond resolution)
--   allocated  bytes allocated after it (mem_timeline)
CREATE TEMP TABLE report_clock_timeline AS
SELECT p.snapshot_id, p.device, p.trace_id, m.seq, m.time_us * 1000 - p.epoch_offset AS ts, m.allocated
FROM report_clock_pair p, mem_timeline(p.snapshot_id, p.device) m
WHERE p.aligned AND m.time_us IS NOT NULL;
CREATE INDEX temp.report_clock_timeline_by_ts ON report_clock_timeline(snapshot_id, device, trace_id, ts);

-- The first allocator event of each step of an aligned pair (the memory
-- timeline chart marks the steps there).
--   step       ProfilerStep number (its CPU range)
--   first_seq  seq of the first allocator event in the step's CPU range
CREATE TEMP TABLE report_clock_step AS
SELECT c.snapshot_id, c.device, c.trace_id, s.step, min(c.seq) AS first_seq
FROM report_clock_timeline c JOIN step s ON s.trace_id = c.trace_id
  AND c.ts >= s.ts AND c.ts < s.ts + s.dur
GROUP BY c.snapshot_id, c.device, c.trace_id, s.step;
