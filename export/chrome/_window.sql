-- Chrome export: the window of each selected trace, and the output pids.
-- Parameters: :step (NULL: no --step), :from, :to (ns, NULL when not
-- given), :from_rel, :to_rel (1: relative to the selection's first event).
-- --step N keeps the traces that have step N, with the step's span
-- (step.span_ts, span_dur: the CPU range and the GPU work it launched) as
-- the window; --from/--to narrow it.
-- Output: none (updates _cx_trace).
DELETE FROM _cx_trace WHERE :step IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM step s WHERE s.trace_id = _cx_trace.trace_id AND s.step = :step);
UPDATE _cx_trace SET
  lo = (SELECT coalesce(s.span_ts, s.ts) FROM step s
        WHERE s.trace_id = _cx_trace.trace_id AND s.step = :step),
  hi = (SELECT coalesce(s.span_ts + s.span_dur, s.ts + s.dur) FROM step s
        WHERE s.trace_id = _cx_trace.trace_id AND s.step = :step)
WHERE :step IS NOT NULL;
UPDATE _cx_trace SET
  lo = max(lo, :from + CASE WHEN :from_rel THEN (
         SELECT min(t.start_ts) FROM trace t JOIN _cx_trace c USING (trace_id))
       ELSE 0 END)
WHERE :from IS NOT NULL;
UPDATE _cx_trace SET
  hi = min(hi, :to + CASE WHEN :to_rel THEN (
         SELECT min(t.start_ts) FROM trace t JOIN _cx_trace c USING (trace_id))
       ELSE 0 END)
WHERE :to IS NOT NULL;
UPDATE _cx_trace SET sort = o.n - 1,
  pid = CASE WHEN o.distinct_ranks THEN _cx_trace.rank ELSE o.n - 1 END
FROM (SELECT trace_id, row_number() OVER (ORDER BY run, rank, trace_id) AS n,
        (SELECT count(DISTINCT rank) = count(*) FROM _cx_trace) AS distinct_ranks
      FROM _cx_trace) o
WHERE o.trace_id = _cx_trace.trace_id;
INSERT INTO _cx_thread(trace_id, pid, tid, ntid, name)
SELECT trace_id, pid, tid,
  row_number() OVER (PARTITION BY trace_id ORDER BY gpu, sort_index IS NULL, sort_index,
                     pid, tid),
  'rank ' || rank || ' - ' || CASE
    WHEN gpu THEN 'GPU ' || pid || ' stream ' || tid
    WHEN name <> '' THEN name
    -- Kineto's text pids ('Spans', 'Traces'): pid and tid name the row
    WHEN typeof(pid) = 'text' AND trim(pid || ' ' || tid) <> ''
      THEN trim(pid || ' ' || tid)
    WHEN tid <> '' THEN 'thread ' || tid
    ELSE '(no thread)' END
FROM (
  SELECT th.trace_id, th.pid, th.tid, th.name, th.sort_index, c.rank,
    th.pid IN (SELECT d.device_id FROM device d WHERE d.trace_id = th.trace_id)
    OR EXISTS (SELECT 1 FROM process p
               WHERE p.trace_id = th.trace_id AND p.pid = th.pid
                 AND (p.labels LIKE 'GPU%' OR p.name LIKE 'GPU%')) AS gpu
  FROM thread th JOIN _cx_trace c USING (trace_id));
