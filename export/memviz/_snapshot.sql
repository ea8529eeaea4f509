-- memory_viz export: which snapshot and device the window is cut from.
-- Parameters: :snapshot (a snapshot id or label; NULL: the database must
-- hold exactly one), :device (NULL: the device with the most allocator
-- events, the lowest ordinal on ties).
-- Output (one row per matching snapshot; the C code refuses 0 or > 1):
--   snapshot_id  the snapshot
--   label        its label
--   device       the device ordinal (NULL when the snapshot has no device)
--   max_device   the highest device ordinal of its events and segments
--                (device_traces is written with one list per ordinal up to it)
--   snapshots    how many snapshots the database holds
SELECT s.snapshot_id, s.label,
  coalesce(:device,
    (SELECT device FROM alloc_event e WHERE e.snapshot_id = s.snapshot_id
     GROUP BY device ORDER BY count(*) DESC, device LIMIT 1),
    (SELECT min(device) FROM _segment g WHERE g.snapshot_id = s.snapshot_id)) AS device,
  max(coalesce(:device, 0),
    coalesce((SELECT max(device) FROM _alloc_event e WHERE e.snapshot_id = s.snapshot_id), 0),
    coalesce((SELECT max(device) FROM _segment g WHERE g.snapshot_id = s.snapshot_id), 0))
    AS max_device,
  (SELECT count(*) FROM snapshot) AS snapshots
FROM snapshot s
WHERE :snapshot IS NULL OR CAST(s.snapshot_id AS TEXT) = :snapshot OR s.label = :snapshot
ORDER BY s.snapshot_id;
