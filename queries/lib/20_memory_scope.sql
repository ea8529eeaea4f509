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
-- why memory was allocated): a .py file outside installed packages and
-- PyTorch itself; else the first frame of a third-party package (e.g.
-- transformers); else the first PyTorch Python frame; else the first frame.
--   source: 'file:line function', how the sections show it
CREATE TEMP TABLE report_user_frame AS
SELECT stack_id, filename, line, name,
  coalesce(filename, '?') || ':' || coalesce(line, '?') || ' ' || coalesce(name, '?') AS source
FROM (
  SELECT stack_id, filename, line, name,
    row_number() OVER (PARTITION BY stack_id ORDER BY
      CASE
        WHEN path NOT LIKE '%.py' THEN 3
        WHEN path LIKE '%/torch/%' OR path LIKE 'torch/%' THEN 2
        WHEN path LIKE '%/site-packages/%' OR path LIKE '%/dist-packages/%'
          OR path LIKE '%/lib/python3%' OR path LIKE '<%' THEN 1
        ELSE 0 END,
      depth) AS pick
  FROM (SELECT f.*, lower(replace(coalesce(f.filename, ''), '\', '/')) AS path
        FROM stack_frame f))
WHERE pick = 1;
CREATE INDEX temp.report_user_frame_by_stack ON report_user_frame(stack_id);
