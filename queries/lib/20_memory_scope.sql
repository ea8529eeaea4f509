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

-- Device capacity in bytes: --gpu-gb, else the largest device of the
-- traces in the database (a snapshot does not record it).
CREATE TEMP TABLE report_capacity AS
SELECT coalesce(:gpu_bytes, (SELECT max(total_memory_bytes) FROM device)) AS bytes;

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
