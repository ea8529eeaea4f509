-- trace_finish.sql — the trace's own columns, devices, processes and
-- threads, from its metadata; run after the events of one trace are stored
-- (trace.c), ?1 = the trace id.  Metadata values are JSON text;
-- json_extract(v, '$') turns them into SQL values.  Where a key appears
-- twice the later one wins.

-- Known top-level keys.
UPDATE trace SET
  schema_version = (SELECT json_extract(value, '$') FROM trace_metadata
   WHERE trace_id = ?1 AND key = 'schemaVersion' ORDER BY position DESC LIMIT 1),
  base_time_ns = (SELECT json_extract(value, '$') FROM trace_metadata
   WHERE trace_id = ?1 AND key = 'baseTimeNanoseconds' ORDER BY position DESC LIMIT 1),
  display_time_unit = (SELECT json_extract(value, '$') FROM trace_metadata
   WHERE trace_id = ?1 AND key = 'displayTimeUnit' ORDER BY position DESC LIMIT 1),
  trace_name = (SELECT json_extract(value, '$') FROM trace_metadata
   WHERE trace_id = ?1 AND key = 'traceName' ORDER BY position DESC LIMIT 1)
WHERE trace_id = ?1;
-- distributedInfo (may appear before and after traceEvents): each field
-- from the last occurrence that has it.  Its rank comes first; without
-- one, the rank the load gave the row stays (--rank, the file or folder
-- name, else 0: load.c, rank.c).
UPDATE trace SET (rank, rank_source) = (
  SELECT coalesce(d.rank, trace.rank),
         CASE WHEN d.rank IS NULL THEN trace.rank_source ELSE 'distributedInfo' END
  FROM (SELECT (SELECT json_extract(value, '$.rank') FROM trace_metadata
   WHERE trace_id = ?1 AND key = 'distributedInfo' AND json_valid(value)
   AND json_type(value, '$.rank') = 'integer' ORDER BY position DESC LIMIT 1) AS rank) d)
WHERE trace_id = ?1;
UPDATE trace SET
  world_size = (SELECT json_extract(value, '$.world_size') FROM trace_metadata
   WHERE trace_id = ?1 AND key = 'distributedInfo' AND json_valid(value)
   AND json_type(value, '$.world_size') = 'integer' ORDER BY position DESC LIMIT 1),
  backend = (SELECT json_extract(value, '$.backend') FROM trace_metadata
   WHERE trace_id = ?1 AND key = 'distributedInfo' AND json_valid(value)
   AND json_type(value, '$.backend') = 'text' ORDER BY position DESC LIMIT 1)
WHERE trace_id = ?1;

-- deviceProperties (computeProperties in a 2021 file).
INSERT OR REPLACE INTO device(trace_id, device_id, name, total_memory_bytes,
  compute_major, compute_minor, num_sms, properties)
SELECT ?1, json_extract(d.value, '$.id'), json_extract(d.value, '$.name'),
  json_extract(d.value, '$.totalGlobalMem'),
  json_extract(d.value, '$.computeMajor'),
  json_extract(d.value, '$.computeMinor'), json_extract(d.value, '$.numSms'),
  d.value
FROM trace_metadata m, json_each(m.value) d
WHERE m.trace_id = ?1 AND m.key IN ('deviceProperties', 'computeProperties')
  AND json_valid(m.value) AND json_type(m.value) = 'array'
  AND d.type = 'object' AND json_type(d.value, '$.id') = 'integer'
ORDER BY m.position, d.id;

-- Names from M events, last one wins (bare column of max()).
INSERT INTO process(trace_id, pid, name)
SELECT ?1, pid, v FROM (SELECT m.pid AS pid,
  json_extract(m.args, '$.name') AS v, max(m.id)
  FROM _meta m JOIN _string s ON s.id = m.name_id
  WHERE m.trace_id = ?1 AND s.value = 'process_name' AND m.pid IS NOT NULL
  AND json_valid(m.args) GROUP BY m.pid) WHERE true
ON CONFLICT(trace_id, pid) DO UPDATE SET name = excluded.name;
INSERT INTO process(trace_id, pid, labels)
SELECT ?1, pid, v FROM (SELECT m.pid AS pid,
  json_extract(m.args, '$.labels') AS v, max(m.id)
  FROM _meta m JOIN _string s ON s.id = m.name_id
  WHERE m.trace_id = ?1 AND s.value = 'process_labels' AND m.pid IS NOT NULL
  AND json_valid(m.args) GROUP BY m.pid) WHERE true
ON CONFLICT(trace_id, pid) DO UPDATE SET labels = excluded.labels;
INSERT INTO process(trace_id, pid, sort_index)
SELECT ?1, pid, v FROM (SELECT m.pid AS pid,
  json_extract(m.args, '$.sort_index') AS v, max(m.id)
  FROM _meta m JOIN _string s ON s.id = m.name_id
  WHERE m.trace_id = ?1 AND s.value = 'process_sort_index' AND m.pid IS NOT NULL
  AND json_valid(m.args) GROUP BY m.pid) WHERE true
ON CONFLICT(trace_id, pid) DO UPDATE SET sort_index = excluded.sort_index;
INSERT INTO thread(trace_id, pid, tid, name)
SELECT ?1, pid, tid, v FROM (SELECT m.pid AS pid, m.tid AS tid,
  json_extract(m.args, '$.name') AS v, max(m.id)
  FROM _meta m JOIN _string s ON s.id = m.name_id
  WHERE m.trace_id = ?1 AND s.value = 'thread_name' AND m.pid IS NOT NULL
  AND m.tid IS NOT NULL AND json_valid(m.args) GROUP BY m.pid, m.tid) WHERE true
ON CONFLICT(trace_id, pid, tid) DO UPDATE SET name = excluded.name;
INSERT INTO thread(trace_id, pid, tid, sort_index)
SELECT ?1, pid, tid, v FROM (SELECT m.pid AS pid, m.tid AS tid,
  json_extract(m.args, '$.sort_index') AS v, max(m.id)
  FROM _meta m JOIN _string s ON s.id = m.name_id
  WHERE m.trace_id = ?1 AND s.value = 'thread_sort_index' AND m.pid IS NOT NULL
  AND m.tid IS NOT NULL AND json_valid(m.args) GROUP BY m.pid, m.tid) WHERE true
ON CONFLICT(trace_id, pid, tid) DO UPDATE SET sort_index = excluded.sort_index;
