-- profdb database schema, part 1: common tables and profiler traces (the
-- storage of their events: schema_trace_events.sql).
--
-- Conventions (see docs/schema.md):
--   * Tables and views without a leading underscore are the public API.
--     Tables starting with "_" are storage; query the views instead.
--   * ts and dur are INTEGER nanoseconds, converted exactly from the
--     trace's microsecond text.  ts is on the trace's own clock, as written
--     in the file: for traces with baseTimeNanoseconds (PyTorch >= 2.4) the
--     absolute epoch time is trace.base_time_ns + ts.
--   * Every event of every kind has an event_id unique in the database.
--   * Args that have typed columns are not repeated in args; every other
--     arg is kept in the args JSON column and in the args view.

-- Key/value facts about the database itself.
CREATE TABLE IF NOT EXISTS _profdb(
  -- setting name: 'schema_version', 'created_by'; 'built_from' = 'dataset
  -- summaries' in the job database profdb report DIR merges
  key TEXT PRIMARY KEY,
  -- its value
  value
);

-- Interned strings (names, categories): one row per distinct string.
CREATE TABLE IF NOT EXISTS _string(
  -- string id referenced by *_id columns of the storage tables
  id INTEGER PRIMARY KEY,
  -- the string
  value TEXT NOT NULL
);

-- Event kinds: the normalized classification of an event's category.  The
-- rows come from the one list in include/profdb/codes.h (loader/codes.c);
-- SQL names a kind, (SELECT kind FROM _kind WHERE name = 'kernel').
CREATE TABLE IF NOT EXISTS _kind(
  -- kind code stored in the kind column of _slice/_gpu/_instant
  kind INTEGER PRIMARY KEY,
  -- kind name, e.g. 'cpu_op', 'kernel'
  name TEXT NOT NULL,
  -- which storage table holds events of this kind
  storage TEXT NOT NULL
);

-- Copy directions: how the memcpy view (and profdb diff) read a copy's
-- direction from its name.  The first pattern by priority that the name
-- is LIKE gives the direction; a name matching none is its own.
CREATE TABLE IF NOT EXISTS _copy_kind(
  -- order in which the patterns are tried
  priority INTEGER PRIMARY KEY,
  -- LIKE pattern over the copy's name
  pattern TEXT NOT NULL,
  -- direction: 'HtoD', 'DtoH', 'DtoD', 'HtoH' or 'PtoP'
  copy_kind TEXT NOT NULL
);
INSERT OR IGNORE INTO _copy_kind(priority, pattern, copy_kind) VALUES
  (1, '%HtoD%', 'HtoD'), (2, '%DtoH%', 'DtoH'), (3, '%DtoD%', 'DtoD'),
  (4, '%HtoH%', 'HtoH'), (5, '%PtoP%', 'PtoP'), (6, '%HostToDevice%', 'HtoD'),
  (7, '%DeviceToHost%', 'DtoH'), (8, '%DeviceToDevice%', 'DtoD');

-- One row per loaded profiler trace file.
CREATE TABLE IF NOT EXISTS trace(
  -- trace id
  trace_id INTEGER PRIMARY KEY,
  -- path as given to profdb load
  path TEXT NOT NULL,
  -- short name: the file name without .json/.json.gz, or --label
  label TEXT NOT NULL,
  -- distributed rank, decided at load (docs/definitions.md#ranks):
  -- distributedInfo.rank, else load --rank N, else the number after
  -- 'rank' or 'worker' in the file name, else in its folder's name, else 0
  rank INTEGER NOT NULL DEFAULT 0,
  -- where rank came from: 'distributedInfo', 'option' (--rank), 'file
  -- name', 'folder name' or 'default' (none of them: 0)
  rank_source TEXT NOT NULL DEFAULT 'default',
  -- distributed world size (distributedInfo.world_size), NULL when absent
  world_size INTEGER,
  -- distributed backend (distributedInfo.backend), NULL when absent
  backend TEXT,
  -- 'ok', or 'truncated' when the file ended early (complete events kept)
  status TEXT NOT NULL,
  -- decompressed byte offset where a truncated file ended, else NULL
  truncated_at INTEGER,
  -- 'object' (traceEvents inside an object) or 'array' (bare array,
  -- legacy exporter and pre-2021 Kineto)
  layout TEXT NOT NULL,
  -- schemaVersion, NULL when absent
  schema_version INTEGER,
  -- baseTimeNanoseconds (epoch ns that ts is relative to), NULL when absent
  base_time_ns INTEGER,
  -- displayTimeUnit (a display hint only: ts is always microseconds)
  display_time_unit TEXT,
  -- traceName (the path the profiler wrote), NULL when absent
  trace_name TEXT,
  -- events read from the file (every element of traceEvents)
  events INTEGER NOT NULL DEFAULT 0,
  -- first and last nanosecond covered by X events (min ts, max ts+dur)
  start_ts INTEGER,
  end_ts INTEGER,
  -- 1 when the file is gzip-compressed
  gzip INTEGER NOT NULL,
  -- bytes on disk
  file_bytes INTEGER NOT NULL,
  -- decompressed JSON bytes
  json_bytes INTEGER NOT NULL,
  -- XXH64 of the decompressed bytes (hex), used to detect duplicate loads
  content_hash TEXT NOT NULL,
  -- seconds the load of this file took
  load_seconds REAL,
  -- profdb version that loaded it
  loaded_by TEXT NOT NULL
);

-- Every top-level key of a trace file other than traceEvents, in file
-- order, with its value as JSON text (deviceProperties, distributedInfo,
-- record_shapes, INFO log arrays, site-specific keys, ...).
CREATE TABLE IF NOT EXISTS trace_metadata(
  -- trace the key belongs to
  trace_id INTEGER NOT NULL,
  -- position among the top-level keys (0-based, traceEvents included);
  -- -1 for profdb's own key 'profdb.run' (profdb load --run NAME); -2 for
  -- 'profdb.cp_replay' in a dataset's summary (profdb export: the critical
  -- path's replays, queries/lib/63_critical_path_replay.sql)
  position INTEGER NOT NULL,
  -- the key
  key TEXT NOT NULL,
  -- the value as compact JSON text
  value TEXT,
  PRIMARY KEY(trace_id, position)
);

-- Devices from deviceProperties (or the older computeProperties).
CREATE TABLE IF NOT EXISTS device(
  -- trace the device belongs to
  trace_id INTEGER NOT NULL,
  -- device ordinal ("id"); GPU events use it as pid
  device_id INTEGER NOT NULL,
  -- device name, e.g. 'NVIDIA H100 80GB HBM3'
  name TEXT,
  -- total device memory in bytes (totalGlobalMem), NULL when absent
  total_memory_bytes INTEGER,
  -- compute capability major/minor (CUDA), NULL when absent
  compute_major INTEGER,
  compute_minor INTEGER,
  -- streaming multiprocessors (numSms), NULL when absent
  num_sms INTEGER,
  -- all properties as JSON text
  properties TEXT,
  PRIMARY KEY(trace_id, device_id)
);

-- Processes named by process_name/process_labels/process_sort_index
-- metadata events, plus every pid seen on an event.  Last name wins.
CREATE TABLE IF NOT EXISTS process(
  -- trace the process belongs to
  trace_id INTEGER NOT NULL,
  -- pid as in the file: an integer, or text for synthetic rows ('Spans')
  pid NOT NULL,
  -- process_name, NULL when none
  name TEXT,
  -- process_labels ('CPU', 'GPU 0'), NULL when none
  labels TEXT,
  -- process_sort_index, NULL when none
  sort_index INTEGER,
  PRIMARY KEY(trace_id, pid)
);

-- Threads (and GPU streams) named by thread_name/thread_sort_index, plus
-- every (pid, tid) seen on an event.  Last name wins.
CREATE TABLE IF NOT EXISTS thread(
  -- trace the thread belongs to
  trace_id INTEGER NOT NULL,
  -- pid as in the file
  pid NOT NULL,
  -- tid as in the file: integer, or text ('stream 7', 'PyTorch Profiler')
  tid NOT NULL,
  -- thread_name, NULL when none
  name TEXT,
  -- thread_sort_index, NULL when none
  sort_index INTEGER,
  PRIMARY KEY(trace_id, pid, tid)
);

-- Events of each kind per trace, counted while loading.
CREATE TABLE IF NOT EXISTS event_count(
  -- trace
  trace_id INTEGER NOT NULL,
  -- kind name: cpu_op, kernel, memcpy, ..., flow, metadata
  kind TEXT NOT NULL,
  -- number of events of that kind
  events INTEGER NOT NULL,
  PRIMARY KEY(trace_id, kind)
);

-- Profiler steps: one row per ProfilerStep#N range on the CPU.
CREATE TABLE IF NOT EXISTS step(
  -- trace the step belongs to
  trace_id INTEGER NOT NULL,
  -- step number N of ProfilerStep#N
  step INTEGER NOT NULL,
  -- event_id of the ProfilerStep#N slice
  event_id INTEGER NOT NULL,
  -- start (ns) and duration (ns) of the CPU range
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  -- start and duration (ns) of the matching ProfilerStep#N GPU annotation
  -- (the span its kernels ran in), NULL when the trace has none
  gpu_ts INTEGER,
  gpu_dur INTEGER,
  -- the step's span (ns), as the TensorBoard profiler defines it: from the
  -- earlier of the CPU start and the first GPU work the step launched, to
  -- the later of the CPU end and the end of the last GPU work it launched,
  -- starting no earlier than the previous step's span ends.  With the CPU
  -- running ahead of the GPU this is the time a step really takes.
  span_ts INTEGER,
  span_dur INTEGER,
  PRIMARY KEY(trace_id, step)
);

-- Diagnostics written while loading: one row per notable problem (the
-- first occurrences of each code per file; import_stats has the totals).
CREATE TABLE IF NOT EXISTS import_log(
  -- trace or snapshot id the row is about, NULL for file-level problems
  artifact_id INTEGER,
  -- file the problem was found in
  file TEXT NOT NULL,
  -- decompressed byte offset, NULL when not tied to a position
  offset INTEGER,
  -- 'info', 'warning' or 'error'
  severity TEXT NOT NULL,
  -- stable code, one of the names in import_stats
  code TEXT NOT NULL,
  -- human-readable message
  message TEXT NOT NULL
);

-- Counters of everything unusual the loader met, per loaded file, and how its
-- operator ids run (op_id_*: the report's test of a sampled trace).
CREATE TABLE IF NOT EXISTS import_stats(
  -- trace or snapshot id
  artifact_id INTEGER NOT NULL,
  -- 'trace' or 'snapshot'
  artifact TEXT NOT NULL,
  -- counter name (see include/profdb/stats.h)
  name TEXT NOT NULL,
  -- 'info', 'warning' or 'error'
  severity TEXT NOT NULL,
  -- how many times it happened
  value INTEGER NOT NULL,
  -- what the counter means
  description TEXT NOT NULL,
  PRIMARY KEY(artifact_id, artifact, name)
);
