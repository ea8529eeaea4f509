-- Export table snapshot: one row per rank's memory snapshot file.
-- Parameters: :snapshot_id, :run, :rank, :rank_source.
-- Output:
--   run            STRING  run
--   rank           INT64   rank
--   rank_source    STRING  snapshot.rank_source: 'option' (--rank), 'file name', 'folder name' or 'default' (0)
--   label          STRING  file name without .json / .json.gz
--   status         STRING  'ok' or 'truncated'
--   truncated_at   INT64   decompressed byte offset where a truncated file ended
--   segments       INT64   segments read
--   blocks         INT64   blocks read
--   trace_entries  INT64   device_traces entries read
--   json_bytes     INT64   decompressed JSON bytes
--   content_hash   STRING  XXH64 of the decompressed bytes (hex)
SELECT :run AS run, :rank AS rank, :rank_source AS rank_source, label, status, truncated_at,
  segments, blocks, trace_entries, json_bytes, content_hash
FROM snapshot WHERE snapshot_id = :snapshot_id;
