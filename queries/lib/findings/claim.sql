-- Measure: who owns the GPU idle time (lib/38_claim.sql), per rank step, ns (one row).
-- Who owns the GPU idle time (lib/38_claim.sql), per rank step: each
-- instant of GPU idle time is claimed by one finding only.  claimed: the
-- sum of all but gpu_idle's and launch_bound's parts (launch_claim); by_others:
-- the part of it that other findings promise (not the queued gaps, the
-- trace edges, graph launch calls and the first iteration: no finding's).
-- Builds: measure_claim
-- Reads: measure_time, report_idle_claim
CREATE TEMP TABLE measure_claim (
  cold       REAL,     -- cold-start launch calls (cold_start)
  startup    REAL,     -- one-time set-up calls (startup_calls)
  alloc      REAL,     -- repeated allocator calls (allocator_calls)
  outside    REAL,     -- waits on work outside the trace (wait_outside_trace)
  queued     REAL,     -- gaps that began with GPU work queued (no host-side finding's)
  explicit   REAL,     -- explicit synchronize calls (explicit_sync)
  op_sync    REAL,     -- host syncs operators make (synchronization)
  dataloader REAL,     -- data loading (data_loading)
  edges      REAL,     -- before the first and after the last GPU work of a trace without
                       --   ProfilerStep ranges (no finding's: the profile's start and end)
  graph      REAL,     -- CUDA/HIP graph launch calls (no finding's: the one call a replay costs)
  warm       REAL,     -- the first iteration of a trace without ProfilerStep ranges whose
                       --   Optimizer.step ranges mark 3 or more (no finding's: warm-up)
  claimed    REAL,     -- the sum of the above
  by_others  REAL      -- the part other findings own and promise: claimed less queued, edges,
                       --   graph and warm
) STRICT;
INSERT INTO measure_claim
SELECT *, claimed - queued - edges - graph - warm AS by_others FROM (
  SELECT coalesce(sum(c.cold_ns), 0) / t.n AS cold, coalesce(sum(c.startup_ns), 0) / t.n AS startup,
    coalesce(sum(c.alloc_ns), 0) / t.n AS alloc, coalesce(sum(c.outside_ns), 0) / t.n AS outside,
    coalesce(sum(c.queued_ns), 0) / t.n AS queued,
    coalesce(sum(c.explicit_ns), 0) / t.n AS explicit, coalesce(sum(c.op_sync_ns),
      0) / t.n AS op_sync,
    coalesce(sum(c.dataloader_ns), 0) / t.n AS dataloader,
    coalesce(sum(c.edge_ns), 0) / t.n AS edges, coalesce(sum(c.graph_ns), 0) / t.n AS graph,
    coalesce(sum(c.warm_ns), 0) / t.n AS warm,
    coalesce(sum(c.cold_ns + c.startup_ns + c.alloc_ns + c.outside_ns + c.queued_ns + c.explicit_ns
                  + c.op_sync_ns + c.dataloader_ns + c.edge_ns + c.graph_ns + c.warm_ns), 0) / t.n
      AS claimed
  FROM (SELECT 1.0 * max(rank_steps,
    1) AS n FROM measure_time) t LEFT JOIN report_idle_claim c ON 1);
