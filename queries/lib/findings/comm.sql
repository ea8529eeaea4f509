-- Measure: collectives per rank step (lib/50_collectives.sql), ns (one row).
-- Collectives per rank step (lib/50_collectives.sql), on the analysed
-- spans' timeline (clipped to them, as time_m): waiting for the
-- last peer is split from transfer; only transfer can be hidden by
-- overlap, so only its exposed part is promised here (the waiting is the
-- straggler rule's), and overlap can hide no more of it than the compute
-- not already running beside transfer (hideable: per trace and device,
-- min(exposed, compute - overlapped)).  peers_missing: the most ranks of
-- one run's world size that are not loaded (their waiting cannot be told
-- from transfer).  A collective whose run has ranks not loaded counts as
-- transfer only its bytes at its group's reference bus bandwidth
-- (measure_coll_ref), nothing when its size is not recorded: the rest of
-- its time may be waiting for the peers the trace does not hold (on the
-- public DLRM ranks 96-99% of it was, issue 44's audit).
-- Builds: measure_comm
-- Reads: measure_coll_ref, measure_time, report_coll_call, report_comm, report_comm_kernel,
--   report_gpu, report_name, report_run, report_trace
CREATE TEMP TABLE measure_comm (
  comm          REAL,     -- collective time
  wait          REAL,     -- waiting for the last peer
  transfer      REAL,     -- transfer after it
  unmatched     REAL,     -- in collectives whose peers are not loaded
  overlap       REAL,     -- transfer overlapped with compute
  exposed       REAL,     -- transfer not overlapped
  compute       REAL,     -- compute kernels
  unmatched_exposed REAL, -- exposed in collectives whose peers are not loaded (run with ranks
                          --   missing)
  unmatched_sized REAL,   -- the part of it promised: those collectives' bytes at the reference
                          --   busbw, at most their exposed time
  hideable      REAL,     -- what overlap can hide: min(exposed less what is not promised of
                          --   unmatched_exposed, compute not beside transfer) per trace and
                          --   device
  peers_missing INTEGER,  -- the most ranks of one run's world size not loaded
  world_size    INTEGER,  -- the largest world size
  top_name      TEXT      -- the collective kernel with the most time
) STRICT;
INSERT INTO measure_comm
WITH runs AS (  -- per run of a job: its world size and the ranks loaded (ws - n missing,
                --   whose waiting cannot be told from transfer)
  SELECT r.run, max(x.world_size) AS ws, count(DISTINCT x.rank) AS n
  FROM report_trace x JOIN report_run r USING (trace_id)
  WHERE x.world_size > 1 GROUP BY r.run
), sized AS (  -- per trace and device: the unmatched collectives' bytes at the reference busbw
  SELECT k.trace_id, k.device,
    sum(min(k.b - k.a, coalesce(1.0 * c.bytes * c.factor / f.gbps, 0))) AS ns
  FROM report_comm_kernel k JOIN report_coll_call c ON c.event_id = k.event_id
  LEFT JOIN measure_coll_ref f ON f.run = c.run AND f."group" = c."group"
  WHERE NOT k.matched GROUP BY k.trace_id, k.device
), td AS (
  SELECT c.*, CASE WHEN m.run IS NOT NULL THEN c.unmatched_exposed_ns ELSE 0 END AS ux,
    CASE WHEN m.run IS NOT NULL THEN min(c.unmatched_exposed_ns, coalesce(z.ns, 0)) ELSE 0 END
      AS uk
  FROM report_comm c LEFT JOIN report_run r USING (trace_id)
  LEFT JOIN runs m ON m.run = r.run AND m.ws > m.n  -- a run with ranks not loaded
  LEFT JOIN sized z ON z.trace_id = c.trace_id AND z.device = c.device
)
  SELECT coalesce(sum(comm_ns), 0) / t.n AS comm, coalesce(sum(wait_ns), 0) / t.n AS wait,
    coalesce(sum(transfer_ns), 0) / t.n AS transfer,
    coalesce(sum(unmatched_ns), 0) / t.n AS unmatched,
    coalesce(sum(overlapped_ns), 0) / t.n AS overlap,
    coalesce(sum(exposed_ns), 0) / t.n AS exposed,
    coalesce(sum(compute_ns), 0) / t.n AS compute,
    coalesce(sum(ux), 0) / t.n AS unmatched_exposed, coalesce(sum(uk), 0) / t.n AS unmatched_sized,
    coalesce(sum(min(max(exposed_ns - ux + uk, 0), max(compute_ns - overlapped_ns, 0))), 0) / t.n
      AS hideable,
    (SELECT max(ws - n) FROM runs) AS peers_missing,
    (SELECT max(x.world_size) FROM report_trace x) AS world_size,
    (SELECT n.name FROM report_gpu g JOIN report_name n USING (name_id)
     WHERE g.category = 'NCCL/communication' GROUP BY n.name ORDER BY sum(g.dur) DESC, n.name
     LIMIT 1) AS top_name
  FROM td, (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t;
