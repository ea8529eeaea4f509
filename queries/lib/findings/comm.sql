-- Measure: collectives per rank step (lib/50_collectives.sql), ns (one row).
-- Collectives per rank step (lib/50_collectives.sql), on the analysed
-- spans' timeline (clipped to them, as time_m): waiting for the
-- last peer is split from transfer; only transfer can be hidden by
-- overlap, so only its exposed part is promised here (the waiting is the
-- straggler rule's), and overlap can hide no more of it than the compute
-- not already running beside transfer (hideable: per trace and device,
-- min(exposed, compute - overlapped)).  peers_missing: the most ranks of
-- one run's world size that are not loaded (their waiting cannot be told
-- from transfer).
-- Builds: measure_comm
-- Reads: measure_time, report_comm, report_gpu, report_name, report_run, report_trace
CREATE TEMP TABLE measure_comm (
  comm          REAL,     -- collective time
  wait          REAL,     -- waiting for the last peer
  transfer      REAL,     -- transfer after it
  unmatched     REAL,     -- in collectives whose peers are not loaded
  overlap       REAL,     -- transfer overlapped with compute
  exposed       REAL,     -- transfer not overlapped
  compute       REAL,     -- compute kernels
  hideable      REAL,     -- what overlap can hide: min(exposed, compute not beside transfer) per
                          --   trace and device
  peers_missing INTEGER,  -- the most ranks of one run's world size not loaded
  world_size    INTEGER,  -- the largest world size
  top_name      TEXT      -- the collective kernel with the most time
) STRICT;
INSERT INTO measure_comm
  SELECT coalesce(sum(comm_ns), 0) / t.n AS comm, coalesce(sum(wait_ns), 0) / t.n AS wait,
    coalesce(sum(transfer_ns), 0) / t.n AS transfer,
    coalesce(sum(unmatched_ns), 0) / t.n AS unmatched,
    coalesce(sum(overlapped_ns), 0) / t.n AS overlap,
    coalesce(sum(exposed_ns), 0) / t.n AS exposed,
    coalesce(sum(compute_ns), 0) / t.n AS compute,
    coalesce(sum(min(exposed_ns, max(compute_ns - overlapped_ns, 0))), 0) / t.n AS hideable,
    (SELECT max(ws - n) FROM (
       SELECT max(x.world_size) AS ws, count(DISTINCT x.rank) AS n
       FROM report_trace x JOIN report_run r USING (trace_id)
       WHERE x.world_size > 1 GROUP BY r.run)) AS peers_missing,
    (SELECT max(x.world_size) FROM report_trace x) AS world_size,
    (SELECT n.name FROM report_gpu g JOIN report_name n USING (name_id)
     WHERE g.category = 'NCCL/communication' GROUP BY n.name ORDER BY sum(g.dur) DESC, n.name
     LIMIT 1) AS top_name
  FROM report_comm, (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t;
