-- profdb database schema, part 2 continued (after views_trace_gpu.sql):
-- public views over the events without a duration: memory instants, other
-- instants and events of other phases, flow events and paired flows,
-- metadata events; and every event's args without a typed column.

-- profile_memory instants: '[memory]' allocations/frees and
-- '[OutOfMemory]' (no cat in 2021 traces, cpu_instant_event later).
CREATE VIEW IF NOT EXISTS memory_event(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- '[memory]' or '[OutOfMemory]'
  name,
  -- process and thread
  pid, tid,
  -- time (ns)
  ts,
  -- args Addr (pointer as integer), NULL for [OutOfMemory]
  addr,
  -- args Bytes: positive on allocation, negative on free
  bytes,
  -- args "Total Allocated" and "Total Reserved" after the event (bytes)
  total_allocated, total_reserved,
  -- args "Device Type" (0 CPU, 1 CUDA) and "Device Id" (-1 for CPU)
  device_type, device_id,
  -- remaining args as JSON
  args
) AS
SELECT i.id, i.trace_id,
  (SELECT value FROM _string WHERE _string.id = i.name_id),
  i.pid, i.tid, i.ts, i.addr, i.bytes, i.total_allocated, i.total_reserved,
  i.device_type, i.device_id, i.args
FROM _instant i WHERE i.kind IN (SELECT kind FROM _kind WHERE name IN ('memory', 'out_of_memory'));

-- Instants and events of other phases that are not [memory] events.
CREATE VIEW IF NOT EXISTS instant(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- phase as written, NULL when the event had none
  ph,
  -- normalized category and category as written
  cat, raw_cat,
  -- name
  name,
  -- process and thread
  pid, tid,
  -- time and duration (ns; dur only for phases that have one)
  ts, dur,
  -- scope "s"
  scope,
  -- remaining args and extra keys as JSON
  args, extra
) AS
SELECT i.id, i.trace_id, i.ph,
  (SELECT value FROM _string WHERE _string.id = i.cat_id),
  (SELECT value FROM _string WHERE _string.id = i.raw_cat_id),
  (SELECT value FROM _string WHERE _string.id = i.name_id),
  i.pid, i.tid, i.ts, i.dur, i.scope, i.args, i.extra
FROM _instant i
WHERE i.kind NOT IN (SELECT kind FROM _kind WHERE name IN ('memory', 'out_of_memory'));

-- Flow events as written (ph s, t, f).
CREATE VIEW IF NOT EXISTS flow_event(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- 's' start, 't' step, 'f' finish
  ph,
  -- normalized category ('ac2g', 'fwdbwd', ...) and category as written
  cat, raw_cat,
  -- name
  name,
  -- process and thread
  pid, tid,
  -- time (ns)
  ts,
  -- flow id (per category)
  flow_id,
  -- binding point ('e' = enclosing slice)
  bp,
  -- remaining args as JSON
  args
) AS
SELECT f.id, f.trace_id, f.ph,
  (SELECT value FROM _string WHERE _string.id = f.cat_id),
  (SELECT value FROM _string WHERE _string.id = f.raw_cat_id),
  (SELECT value FROM _string WHERE _string.id = f.name_id),
  f.pid, f.tid, f.ts, f.flow_id, f.bp, f.args
FROM _flow f;

-- Flows paired by (trace, category, id): one row per flow id, with its
-- start and finish.  Either side is NULL for orphan flows, which are
-- routine (every runtime call emits an 'f' bound to itself).
CREATE VIEW IF NOT EXISTS flow(
  -- trace
  trace_id,
  -- normalized category
  cat,
  -- flow id
  flow_id,
  -- the 's' event: event_id, pid, tid, ts (NULL when there is none)
  start_event_id, start_pid, start_tid, start_ts,
  -- the 'f' event: event_id, pid, tid, ts (NULL when there is none)
  end_event_id, end_pid, end_tid, end_ts,
  -- number of 's', 't' and 'f' events with this id
  events
) AS
SELECT f.trace_id,
  (SELECT value FROM _string WHERE _string.id = f.cat_id),
  f.flow_id,
  min(f.id) FILTER (WHERE f.ph = 's'),
  min(f.pid) FILTER (WHERE f.ph = 's'),
  min(f.tid) FILTER (WHERE f.ph = 's'),
  min(f.ts) FILTER (WHERE f.ph = 's'),
  min(f.id) FILTER (WHERE f.ph = 'f'),
  min(f.pid) FILTER (WHERE f.ph = 'f'),
  min(f.tid) FILTER (WHERE f.ph = 'f'),
  min(f.ts) FILTER (WHERE f.ph = 'f'),
  count(*)
FROM _flow f GROUP BY f.trace_id, f.cat_id, f.flow_id;

-- Metadata events (ph M) as written.
CREATE VIEW IF NOT EXISTS metadata_event(
  -- event id
  event_id,
  -- trace
  trace_id,
  -- 'process_name', 'thread_name', 'process_labels', ...
  name,
  -- process and thread
  pid, tid,
  -- time (ns)
  ts,
  -- args as JSON
  args
) AS
SELECT m.id, m.trace_id,
  (SELECT value FROM _string WHERE _string.id = m.name_id),
  m.pid, m.tid, m.ts, m.args
FROM _meta m;

-- Every arg without a typed column, one row per (event, key): the JSON
-- objects of the storage tables' args columns, expanded.
CREATE VIEW IF NOT EXISTS args(
  -- event id
  event_id,
  -- arg key as written, e.g. 'Concrete Inputs', 'context'
  key,
  -- value: integer, real, text, or JSON text for arrays and objects;
  -- integers beyond 64 bits are kept as text
  value,
  -- JSON type: 'integer', 'real', 'text', 'array', 'object', 'true',
  -- 'false', 'null'
  type
) AS
SELECT s.id, j.key, j.value, j.type FROM _slice s, json_each(s.args) j
WHERE s.args IS NOT NULL
UNION ALL
SELECT g.id, j.key, j.value, j.type FROM _gpu g, json_each(g.args) j
WHERE g.args IS NOT NULL
UNION ALL
SELECT i.id, j.key, j.value, j.type FROM _instant i, json_each(i.args) j
WHERE i.args IS NOT NULL
UNION ALL
SELECT f.id, j.key, j.value, j.type FROM _flow f, json_each(f.args) j
WHERE f.args IS NOT NULL
UNION ALL
SELECT m.id, j.key, j.value, j.type FROM _meta m, json_each(m.args) j
WHERE m.args IS NOT NULL;
