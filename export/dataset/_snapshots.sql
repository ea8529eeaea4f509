-- Export: the memory snapshots of the database, each with its run and the
-- bases that make its segment and block ids local (profdb export).
--
-- Runs: --run NAME (:run) when given; else the snapshot's 'profdb.run'
-- (profdb load --run NAME); else 'snapshot' (a snapshot has no clock or
-- world size to group it by).  Its rank is snapshot.rank, decided at load
-- (docs/definitions.md#ranks).
-- Output:
--   snapshot_id  INT64   the snapshot in this database
--   label        STRING  its label (file name without .json[.gz])
--   run          STRING  the run
--   seg_base     INT64   the snapshot's smallest segment id minus 1
--   block_base   INT64   its smallest block id minus 1
--   rank         INT64   snapshot.rank
--   rank_source  STRING  snapshot.rank_source: where its load found the rank
SELECT s.snapshot_id, s.label,
  coalesce(:run, (SELECT json_extract(m.value, '$') FROM snapshot_metadata m
                  WHERE m.snapshot_id = s.snapshot_id AND m.key = 'profdb.run'),
           'snapshot') AS run,
  coalesce((SELECT min(id) FROM _segment g WHERE g.snapshot_id = s.snapshot_id), 1) - 1,
  coalesce((SELECT min(id) FROM _block b WHERE b.snapshot_id = s.snapshot_id), 1) - 1,
  s.rank, s.rank_source
FROM snapshot s
ORDER BY s.snapshot_id;
