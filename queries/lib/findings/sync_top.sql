-- Measure: the host-blocking call that leaves the GPU idle longest (one row or none).
-- The host-blocking call that leaves the GPU idle longest (per rank
-- step), and whether it is a blocking copy (report_sync_name.is_copy: 2
-- for an async copy to or from pageable memory):
-- the synchronization finding's advice names it.
-- Builds: measure_sync_top
-- Reads: measure_time, report_clip_sync, report_setup_name, report_sync, report_sync_idle,
--   report_sync_name
CREATE TEMP TABLE measure_sync_top (
  name    TEXT,     -- call name
  is_copy INTEGER,  -- report_sync_name.is_copy: 1 a blocking copy, 2 an async copy to or from
                    --   pageable memory
  idle    REAL,     -- GPU idle time during it per rank step, ns
  calls   REAL,     -- its calls per rank
  max_dur INTEGER   -- its longest call, ns
) STRICT;
INSERT INTO measure_sync_top
  SELECT i.name, y.is_copy, sum(i.blocked_gpu_idle_ns) / t.n AS idle,
    (SELECT count(DISTINCT event_id) FROM report_clip_sync c WHERE c.name = i.name) / t.ranks AS
      calls,
    (SELECT max(dur) FROM report_sync r WHERE r.name = i.name) AS max_dur
  FROM report_sync_idle i JOIN report_sync_name y ON y.name = i.name,
    (SELECT 1.0 * max(rank_steps, 1) AS n, 1.0 * ranks AS ranks FROM measure_time) t
  WHERE i.name NOT IN (SELECT name FROM report_setup_name)
  GROUP BY i.name ORDER BY idle DESC, i.name LIMIT 1;
