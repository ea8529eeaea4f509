-- Export table trace: one row per rank's trace file (its facts, without
-- the load's own: path as given, load time).
-- Parameters: :trace_id, :run, :rank, :rank_source.
-- Output:
--   run             STRING  run (also the run=<run> folder)
--   rank            INT64   rank (also the rank=<rank> folder)
--   rank_source     STRING  where its load found the rank (trace.rank_source): 'distributedInfo', 'option' (--rank), 'file name', 'folder name', 'default' (none: 0)
--   label           STRING  file name without .json / .json.gz
--   world_size      INT64   distributedInfo.world_size, NULL when absent
--   backend         STRING  distributedInfo.backend, NULL when absent
--   status          STRING  'ok', or 'truncated' (complete events kept)
--   truncated_at    INT64   decompressed byte offset where a truncated file ended
--   schema_version  INT64   the trace's schemaVersion
--   base_time_ns    INT64   baseTimeNanoseconds: epoch ns that ts is relative to (NULL when absent)
--   start_ts        INT64   first ns covered by complete events (the trace's own clock)
--   end_ts          INT64   last ns covered by complete events
--   events          INT64   events in the file
--   json_bytes      INT64   decompressed JSON bytes
--   content_hash    STRING  XXH64 of the decompressed bytes (hex)
SELECT :run AS run, :rank AS rank, :rank_source AS rank_source, label, world_size,
  backend, status, truncated_at, schema_version, base_time_ns, start_ts, end_ts, events,
  json_bytes, content_hash
FROM trace WHERE trace_id = :trace_id;
