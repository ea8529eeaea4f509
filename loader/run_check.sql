-- Runs: the checks profdb load makes on the traces it has just loaded
-- (trace_id >= ?1).  A run is the traces of one job: the ranks of one
-- world size, distinct ranks, overlapping time windows, one device model.
-- Traces loaded with --run NAME carry trace_metadata key 'profdb.run'
-- (position -1) and form the run NAME; the others are grouped by the
-- report (queries/lib/12_runs.sql).  Each row is one warning: the path of
-- the first new trace and what does not fit (with how many more traces
-- share the problem).  A rank matters where it is compared: a trace
-- whose rank is the default 0 (trace.rank_source 'default') is warned
-- about, once, where it shares a run with others or its world size says
-- it is one rank of several (docs/definitions.md#ranks).
WITH named AS (
  SELECT t.trace_id, t.path, t.rank, t.rank_source, t.world_size, t.start_ts, t.end_ts,
    (SELECT json_extract(m.value, '$') FROM trace_metadata m
     WHERE m.trace_id = t.trace_id AND m.key = 'profdb.run') AS run,
    (SELECT group_concat(DISTINCT d.name) FROM device d WHERE d.trace_id = t.trace_id) AS devices
  FROM trace t
), peers AS (
  -- the earlier traces a new trace is compared with: its named run, or,
  -- without a name, the unnamed traces of its world size whose time
  -- windows overlap its own (the run the report will put it in)
  SELECT n.trace_id, n.path, n.rank, n.rank_source, n.world_size, n.start_ts, n.end_ts,
    n.devices, n.run, p.trace_id AS peer, p.rank AS peer_rank, p.world_size AS peer_ws,
    p.start_ts AS peer_start, p.end_ts AS peer_end, p.devices AS peer_devices
  FROM named n JOIN named p ON p.trace_id < n.trace_id
    AND (p.run = n.run OR (n.run IS NULL AND p.run IS NULL AND p.world_size IS n.world_size
                           AND p.start_ts <= n.end_ts AND n.start_ts <= p.end_ts))
  WHERE n.trace_id >= ?1 AND n.rank IS NOT NULL
)
-- One warning per kind of problem, however many traces share it (a job
-- of 1024 ranks on the wrong GPU warns once, naming the first trace and
-- the count): issue 23.
, no_rank(x) AS (
  SELECT 'no rank: no distributedInfo.rank, no --rank, no rank or worker number in its'
         || ' file or folder name: rank 0'
)
, problems(kind, trace_id, path, message) AS (
SELECT 'rank' AS kind, trace_id, path, printf('rank %d is already in %s (trace %d): two runs mixed?'
                    || CASE WHEN run IS NULL THEN ' Name them with --run NAME' ELSE '' END
                    || CASE WHEN rank_source = 'default' THEN ' (' || (SELECT x FROM no_rank) || ')'
                            ELSE '' END,
                    rank, coalesce('run ' || run, 'the overlapping traces of world size ' || world_size,
                                   'the overlapping traces without a world size'),
                    min(peer))
FROM peers WHERE peer_rank = rank GROUP BY trace_id
UNION ALL
SELECT 'no_rank' AS kind, trace_id, path,
  printf('one rank of world size %d, but %s', world_size, (SELECT x FROM no_rank))
FROM named WHERE trace_id >= ?1 AND rank_source = 'default' AND world_size > 1
UNION ALL
SELECT 'world_size' AS kind, trace_id, path, printf('world size %d does not match run %s (world size %d)', world_size, run, min(peer_ws))
FROM peers WHERE run IS NOT NULL AND peer_ws IS NOT world_size GROUP BY trace_id
UNION ALL
SELECT 'window' AS kind, trace_id, path, printf('its time window overlaps no trace of run %s: not the same job?', run)
FROM peers WHERE run IS NOT NULL GROUP BY trace_id
HAVING max(start_ts <= peer_end AND peer_start <= end_ts) = 0
UNION ALL
SELECT 'device' AS kind, trace_id, path, printf('device %s differs from %s in trace %d of the same run', devices, min(peer_devices), min(peer))
FROM peers WHERE devices IS NOT NULL AND peer_devices IS NOT NULL AND devices <> peer_devices
GROUP BY trace_id
)
SELECT min(path) || CASE WHEN count(*) > 1 THEN printf(' and %d more trace(s)', count(*) - 1)
                         ELSE '' END,
  (SELECT p.message FROM problems p WHERE p.kind = x.kind ORDER BY p.trace_id LIMIT 1)
FROM problems x GROUP BY kind ORDER BY min(trace_id);
