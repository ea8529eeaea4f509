-- Export: the memory snapshots of the database, each with its run and the
-- bases that make its segment and block ids local (profdb export).
--
-- Runs: --run NAME (:run) when given; else the snapshot's 'profdb.run'
-- (profdb load --run NAME); else 'snapshot' (a snapshot has no clock or
-- world size to group it by).  Its rank comes from --rank or the file name
-- (profdb export), else 0.
-- Output:
--   snapshot_id  INT64   the snapshot in this database
--   label        STRING  its label (file name without .json[.gz])
--   run          STRING  the run
--   seg_base     INT64   the snapshot's smallest segment id minus 1
--   block_base   INT64   its smallest block id minus 1
--   path         STRING  its path as loaded (a rank in its folder)
SELECT s.snapshot_id, s.label,
  coalesce(:run, (SELECT json_extract(m.value, '$') FROM snapshot_metadata m
                  WHERE m.snapshot_id = s.snapshot_id AND m.key = 'profdb.run'),
           'snapshot') AS run,
  coalesce((SELECT min(id) FROM _segment g WHERE g.snapshot_id = s.snapshot_id), 1) - 1,
  coalesce((SELECT min(id) FROM _block b WHERE b.snapshot_id = s.snapshot_id), 1) - 1,
  s.path
FROM snapshot s
ORDER BY s.snapshot_id;
