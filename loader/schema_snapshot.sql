-- profdb database schema, part 3: CUDA caching-allocator memory snapshots
-- (the dict of torch.cuda.memory._snapshot() written with json.dump).
--
-- Sizes are exact integer bytes; addresses and stream handles are
-- integers (text only if one ever exceeds 64 bits).  Stacks are interned:
-- identical frame lists share one stack_id.

-- One row per loaded snapshot file.
CREATE TABLE IF NOT EXISTS snapshot(
  -- snapshot id
  snapshot_id INTEGER PRIMARY KEY,
  -- path as given to profdb load
  path TEXT NOT NULL,
  -- short name: the file name without .json/.json.gz, or --label
  label TEXT NOT NULL,
  -- rank of the process it was taken in, decided at load as a trace's
  -- (docs/definitions.md#ranks; a snapshot has no distributedInfo): load
  -- --rank N, else the number after 'rank' or 'worker' in the file name,
  -- else in its folder's name, else 0
  rank INTEGER NOT NULL DEFAULT 0,
  -- where rank came from: 'option', 'file name', 'folder name' or 'default'
  rank_source TEXT NOT NULL DEFAULT 'default',
  -- 'ok', or 'truncated' when the file ended early (complete entries kept)
  status TEXT NOT NULL,
  -- decompressed byte offset where a truncated file ended, else NULL
  truncated_at INTEGER,
  -- 'object' (the _snapshot() dict) or 'list' (a bare list of segments,
  -- as torch.cuda.memory_snapshot() returns)
  layout TEXT NOT NULL,
  -- segments, blocks and device_traces entries read
  segments INTEGER NOT NULL DEFAULT 0,
  blocks INTEGER NOT NULL DEFAULT 0,
  trace_entries INTEGER NOT NULL DEFAULT 0,
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

-- Top-level keys of a snapshot other than segments, device_traces,
-- allocator_settings and external_annotations (host_segments, ...), as JSON.
CREATE TABLE IF NOT EXISTS snapshot_metadata(
  -- snapshot the key belongs to
  snapshot_id INTEGER NOT NULL,
  -- position among the top-level keys (0-based); -1 for profdb's own
  -- key 'profdb.run' (profdb load --run NAME)
  position INTEGER NOT NULL,
  -- the key
  key TEXT NOT NULL,
  -- the value as compact JSON text
  value TEXT,
  PRIMARY KEY(snapshot_id, position)
);

-- allocator_settings: one row per key (PYTORCH_CUDA_ALLOC_CONF,
-- max_split_size, expandable_segments, roundup_power2_divisions, ...).
CREATE TABLE IF NOT EXISTS allocator_setting(
  -- snapshot
  snapshot_id INTEGER NOT NULL,
  -- setting name
  key TEXT NOT NULL,
  -- value: integer, real, text; JSON text for objects and lists;
  -- booleans as 0/1
  value,
  PRIMARY KEY(snapshot_id, key)
);

-- external_annotations: record_function ranges seen by the allocator.
CREATE TABLE IF NOT EXISTS annotation(
  -- snapshot
  snapshot_id INTEGER NOT NULL,
  -- position in the list (0-based)
  seq INTEGER NOT NULL,
  -- device ordinal, NULL when absent
  device INTEGER,
  -- 'START' or 'END'
  stage TEXT,
  -- annotation name, e.g. 'ProfilerStep#2'
  name TEXT,
  -- epoch microseconds (same clock as trace events), NULL when absent
  time_us INTEGER,
  -- other keys as a JSON object, NULL when none
  extra TEXT,
  PRIMARY KEY(snapshot_id, seq)
);

-- Storage: segments (cudaMalloc'd or mapped ranges) at snapshot time.
CREATE TABLE IF NOT EXISTS _segment(
  -- segment id
  id INTEGER PRIMARY KEY,
  -- snapshot
  snapshot_id INTEGER NOT NULL,
  -- device ordinal
  device INTEGER,
  -- base address
  address,
  -- bytes reserved (cudaMalloc'd or mapped)
  total_size INTEGER,
  -- bytes in active_allocated blocks
  allocated_size INTEGER,
  -- bytes in active blocks (allocated + pending free)
  active_size INTEGER,
  -- bytes requested by callers (before rounding)
  requested_size INTEGER,
  -- stream handle (0 = default stream)
  stream,
  -- 'large' or 'small' pool
  segment_type TEXT,
  -- segment_pool_id as JSON text, e.g. '[0,0]'
  pool_id TEXT,
  -- 1 for expandable segments
  is_expandable INTEGER,
  -- stack of the segment allocation, NULL when none
  stack_id INTEGER,
  -- unknown keys as a JSON object, NULL when none
  extra TEXT
);

-- Storage: blocks of each segment, in address order.
CREATE TABLE IF NOT EXISTS _block(
  -- block id
  id INTEGER PRIMARY KEY,
  -- segment
  segment_id INTEGER NOT NULL,
  -- snapshot
  snapshot_id INTEGER NOT NULL,
  -- position in the segment's block list (0-based)
  position INTEGER NOT NULL,
  -- address; computed from the segment address plus the sizes of the
  -- blocks before it when the file has none (PyTorch 2.0 layout)
  address,
  -- bytes (rounded allocation size)
  size INTEGER,
  -- bytes requested (requested_size, or history[0].real_size in 2.0)
  requested_size INTEGER,
  -- 'active_allocated', 'active_pending_free' (also written
  -- 'active_awaiting_free'; stored as written) or 'inactive'
  state TEXT,
  -- stack of the allocation (frames, or history[0].frames in 2.0)
  stack_id INTEGER,
  -- unknown keys as a JSON object, NULL when none
  extra TEXT
);

-- Storage: PyTorch 2.0 per-block history entries.
CREATE TABLE IF NOT EXISTS _block_history(
  -- block
  block_id INTEGER NOT NULL,
  -- position in history (0 = most recent)
  position INTEGER NOT NULL,
  -- address of the allocation
  addr,
  -- requested bytes
  real_size INTEGER,
  -- stack of the allocation
  stack_id INTEGER,
  -- unknown keys as JSON, NULL when none
  extra TEXT,
  PRIMARY KEY(block_id, position)
);

-- Storage: allocator trace entries (device_traces), oldest first.
CREATE TABLE IF NOT EXISTS _alloc_event(
  -- row id
  id INTEGER PRIMARY KEY,
  -- snapshot
  snapshot_id INTEGER NOT NULL,
  -- device ordinal: index of the list in device_traces
  device INTEGER NOT NULL,
  -- position in that device's list (0 = oldest)
  seq INTEGER NOT NULL,
  -- action code (_alloc_action)
  action INTEGER NOT NULL,
  -- address (NULL for oom entries)
  addr,
  -- bytes: requested size for alloc/free, segment size for segment_*,
  -- total active bytes for snapshot, requested size for oom
  size INTEGER,
  -- stream handle
  stream,
  -- epoch microseconds (PyTorch >= 2.2), NULL when absent
  time_us INTEGER,
  -- stack of the entry, NULL when it has no frames
  stack_id INTEGER,
  -- oom entries: bytes CUDA reported free
  device_free INTEGER,
  -- compile_context and user_metadata strings (recent PyTorch)
  compile_context TEXT,
  user_metadata TEXT,
  -- unknown keys (and the action text when it is not a known one) as JSON
  extra TEXT
);

-- Allocator actions.  The rows come from the one list in
-- include/profdb/codes.h (loader/codes.c).
CREATE TABLE IF NOT EXISTS _alloc_action(
  -- action code stored in _alloc_event.action
  code INTEGER PRIMARY KEY,
  -- action name as written by PyTorch
  name TEXT NOT NULL
);

-- Storage: interned stacks, one row per frame.
CREATE TABLE IF NOT EXISTS _stack_frame(
  -- stack id
  stack_id INTEGER NOT NULL,
  -- frame position, 0 = innermost (as in the snapshot)
  depth INTEGER NOT NULL,
  -- filename and function name string ids
  filename_id INTEGER, line INTEGER, name_id INTEGER,
  -- other frame keys (fx_node_op, ...) as JSON, NULL when none
  extra TEXT,
  PRIMARY KEY(stack_id, depth)
) WITHOUT ROWID;
