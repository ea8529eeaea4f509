-- Measure: host-blocking calls per rank step (one row).
-- Per rank step; calls per rank.
-- Builds: measure_sync
-- Reads: measure_time, report_clip_sync, report_sync_idle, report_sync_source
CREATE TEMP TABLE measure_sync (
  sync      REAL,     -- time the host is blocked, ns
  idle      REAL,     -- the part with no GPU work of the process running, ns
  calls     REAL,     -- blocking calls per rank (nested ones included)
  top_calls TEXT      -- JSON array: the 3 sources, then the 3 calls, that leave the GPU idle
                      --   longest
) STRICT;
INSERT INTO measure_sync
  SELECT coalesce(sum(blocked_ns), 0) / t.n AS sync, coalesce(sum(blocked_gpu_idle_ns),
    0) / t.n AS idle,
    (SELECT count(DISTINCT event_id) FROM report_clip_sync) / t.ranks AS calls,
    (SELECT json_group_array(json(x)) FROM (
       SELECT json_object('source', source, 'gpu_idle_ns', ns) AS x, ns, 0 AS o, source AS k FROM (
         SELECT source, sum(blocked_gpu_idle_ns) AS ns FROM report_sync_source
         WHERE source <> '(no Python stack)' GROUP BY source ORDER BY ns DESC, source LIMIT 3)
       UNION ALL
       SELECT json_object('call', name, 'gpu_idle_ns', ns), ns, 1, name FROM (
         SELECT name, sum(blocked_gpu_idle_ns) AS ns FROM report_sync_idle WHERE name IS NOT NULL
         GROUP BY name ORDER BY ns DESC, name LIMIT 3)
       ORDER BY o, ns DESC, k)) AS top_calls
  FROM report_sync_idle, (SELECT 1.0 * max(rank_steps, 1) AS n,
    1.0 * ranks AS ranks FROM measure_time) t
  WHERE name IS NULL;
