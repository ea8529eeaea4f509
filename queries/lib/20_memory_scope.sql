-- Report scope for memory snapshots.  Run by profdb report before the
-- sections; every table here is TEMP.
--
-- Parameters: :snapshot_id (NULL = every snapshot), :gpu_bytes (device
-- capacity given with --gpu-gb; NULL = take it from a trace's device table)

-- (snapshot, device) pairs with segments or allocator events.
CREATE TEMP TABLE report_mem_device AS
SELECT DISTINCT snapshot_id, device FROM (
  SELECT snapshot_id, device FROM segment
  UNION ALL SELECT snapshot_id, device FROM alloc_event)
WHERE :snapshot_id IS NULL OR snapshot_id = :snapshot_id;

-- Device capacity in bytes: --gpu-gb, else (a snapshot does not record
-- it) the largest device of the snapshots' ordinals in the traces of the
-- snapshots' run: the run they were loaded into with --run NAME, or, when
-- no snapshot is named, the only run of the reported traces.  A trace
-- whose window and the snapshots' allocator times are both wall-clock
-- (epoch) times and do not overlap is another job.  NULL when no trace
-- qualifies: the OOM risk then needs --gpu-gb.
CREATE TEMP TABLE report_capacity AS
WITH snap AS (
  SELECT (SELECT group_concat(DISTINCT json_extract(m.value, '$')) FROM snapshot_metadata m
          WHERE m.key = 'profdb.run'
            AND m.snapshot_id IN (SELECT snapshot_id FROM report_mem_device)) AS named,
    (SELECT count(DISTINCT run) FROM report_run) AS runs,
    (SELECT min(time_us) * 1000 FROM alloc_event
     WHERE snapshot_id IN (SELECT snapshot_id FROM report_mem_device)) AS first_ns,
    (SELECT max(time_us) * 1000 FROM alloc_event
     WHERE snapshot_id IN (SELECT snapshot_id FROM report_mem_device)) AS last_ns
)
SELECT coalesce(:gpu_bytes, (
  SELECT max(d.total_memory_bytes) FROM device d JOIN report_run r USING (trace_id)
  JOIN report_trace t USING (trace_id), snap
  WHERE d.device_id IN (SELECT device FROM report_mem_device)
    AND (r.run = snap.named OR (snap.named IS NULL AND snap.runs = 1))
    AND NOT (t.start_ts > 1000000000000000000 AND snap.first_ns > 1000000000000000000
             AND (t.end_ts < snap.first_ns OR t.start_ts > snap.last_ns)))) AS bytes;

-- The first frame of each stack that is user code (the frame that explains
-- why memory was allocated): the innermost frame of the lowest
-- frame_rank(): user .py files, else installed packages (e.g.
-- transformers), else PyTorch's Python, else the first frame.
--   source: 'file:line function', how the sections show it
CREATE TEMP TABLE report_user_frame AS
SELECT stack_id, filename, line, name,
  coalesce(filename, '?') || ':' || coalesce(line, '?') || ' ' || coalesce(name, '?') AS source
FROM (
  SELECT stack_id, filename, line, name,
    row_number() OVER (PARTITION BY stack_id ORDER BY frame_rank(filename), depth) AS pick
  FROM stack_frame)
WHERE pick = 1;
CREATE INDEX temp.report_user_frame_by_stack ON report_user_frame(stack_id);
