-- Measure: collectives per rank step (lib/50_collectives.sql), ns (one row).
-- Collectives per rank step (lib/50_collectives.sql), on the analysed
-- spans' timeline (clipped to them, as time_m): waiting for the
-- last peer is split from transfer; only transfer can be hidden by
-- overlap, so only its exposed part is promised here (the waiting is the
-- straggler rule's), and overlap can hide no more of it than the compute
-- not already running beside transfer (hideable: per trace and device,
-- min(exposed, compute - overlapped)).  An all-reduce launched inside a
-- backward pass (report_backward) syncs gradients: only the backward
-- pass's compute can run beside it (the optimizer step waits for it and
-- the next forward for the optimizer), so that part of the exposed
-- transfer is hideable only up to the compute launched in a backward pass
-- not beside transfer, the rest up to the compute left after it.  peers_missing: the most ranks of
-- one run's world size that are not loaded (their waiting cannot be told
-- from transfer).  A collective whose run has ranks not loaded counts as
-- transfer only its bytes at its group's reference bus bandwidth
-- (measure_coll_ref), nothing when its size is not recorded: the rest of
-- its time may be waiting for the peers the trace does not hold (on the
-- public DLRM ranks 96-99% of it was, issue 44's audit).  A trace whose
-- operators are recorded (report_op_thread: without them forward and
-- backward cannot be told apart) with no backward pass and no FSDP names
-- carries activations in its
-- collectives (tensor, sequence or pipeline parallel inference): each
-- feeds the next layer or is fed by the last, so no setting overlaps them
-- with compute; its exposed transfer is activation_exposed, not hideable
-- (issue 44's audit of unseen traces: a 2-rank tensor-parallel Llama's
-- 503 ms of reduce-scatters and all-gathers, 441 ms of it the final
-- logits' all-gather, were told to use FSDP prefetch).
-- Builds: measure_comm
-- Reads: _string, measure_coll_ref, measure_time, report_clip_gpu, report_coll_call,
--   report_comm, report_comm_kernel, report_backward, report_gpu, report_name,
--   report_op_thread, report_run, report_trace
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
                          --   device; its all-reduce part (traces with a backward pass) only
                          --   up to backward_free
  allreduce_exposed REAL, -- of the promised exposed transfer, the all-reduces' launched in a
                          --   backward pass (gradient syncs)
  backward_free REAL,     -- compute launched in those traces' backward passes not beside
                          --   transfer: all a gradient all-reduce can hide behind
  activation_exposed REAL, -- the promised exposed transfer of traces whose collectives carry
                          --   activations (no backward pass, no FSDP names): not hideable
  peers_missing INTEGER,  -- the most ranks of one run's world size not loaded
  world_size    INTEGER,  -- the largest world size
  top_name      TEXT,     -- the collective kernel with the most time
  advice        TEXT      -- the collective the advice follows, by the kind with the most time
                          --   (report_coll_call.kind: 'Collective name', so NCCL's generic
                          --   kernels too), else top_name: 'exchange' (all-to-all, send/recv),
                          --   'shard' (all-gather, reduce-scatter) or 'reduce' (the rest)
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
), backward_launched AS (  -- GPU work launched inside a backward pass (report_backward)
  SELECT g.event_id FROM report_gpu g
  WHERE (SELECT w.b FROM report_backward w WHERE w.trace_id = g.trace_id AND w.a <= g.launch_ts
         ORDER BY w.a DESC LIMIT 1) > g.launch_ts
), phased_iv AS (  -- traces with a backward pass: transfer (part 2 an all-reduce launched in
                   --   it: a gradient sync, 3 other) and compute (0 launched in it, 1 not),
                   --   as report_comm takes them (lib/50_collectives.sql)
  SELECT k.trace_id, k.device, k.wait_end AS a, k.b,
    CASE WHEN c.kind = 'all_reduce' AND k.event_id IN backward_launched THEN 2 ELSE 3 END AS part
  FROM report_comm_kernel k LEFT JOIN report_coll_call c ON c.event_id = k.event_id
  WHERE k.b > k.wait_end AND k.trace_id IN (SELECT trace_id FROM report_backward)
  UNION ALL
  SELECT g.trace_id, g.device, g.a, g.b, CASE WHEN g.event_id IN backward_launched THEN 0 ELSE 1 END
  FROM (SELECT trace_id, device, event_id, a, b FROM report_clip_gpu
        WHERE kind = 'kernel' AND NOT is_comm AND b > a AND NOT coalesce(:scope_hta, 0)
        UNION ALL
        SELECT trace_id, device, event_id, ts, ts + dur FROM report_gpu
        WHERE kind = 'kernel' AND category <> 'NCCL/communication'
          AND coalesce(:scope_hta, 0)) g
  WHERE g.trace_id IN (SELECT trace_id FROM report_backward)
    AND (g.trace_id, g.device) IN (SELECT trace_id, device FROM report_comm_kernel)
), phased AS (  -- per such trace and device: the all-reduces' transfer no compute overlaps,
                --   and the backward pass's compute no transfer overlaps
  SELECT trace_id, device,
    coalesce(interval_union(a, b) FILTER (WHERE part = 2), 0)
      - coalesce(interval_overlap(a, b, part = 2) FILTER (WHERE part IN (0, 1, 2)), 0)
      AS allreduce_exposed_ns,
    coalesce(interval_union(a, b) FILTER (WHERE part = 0), 0)
      - coalesce(interval_overlap(a, b, part = 0) FILTER (WHERE part IN (0, 2, 3)), 0)
      AS backward_free_ns
  FROM phased_iv GROUP BY trace_id, device
), td0 AS (
  SELECT c.*, h.trace_id IS NOT NULL AS phased,
    c.trace_id IN (SELECT trace_id FROM report_op_thread)
      AND c.trace_id NOT IN (SELECT trace_id FROM report_backward) AND NOT EXISTS (
      SELECT 1 FROM _string WHERE value GLOB '*[Ff][Ss][Dd][Pp]*') AS activations,
    coalesce(h.allreduce_exposed_ns, 0)
      AS allreduce_exposed_ns, coalesce(h.backward_free_ns, 0) AS backward_free_ns,
    CASE WHEN m.run IS NOT NULL THEN c.unmatched_exposed_ns ELSE 0 END AS ux,
    CASE WHEN m.run IS NOT NULL THEN min(c.unmatched_exposed_ns, coalesce(z.ns, 0)) ELSE 0 END
      AS uk
  FROM report_comm c LEFT JOIN report_run r USING (trace_id)
  LEFT JOIN runs m ON m.run = r.run AND m.ws > m.n  -- a run with ranks not loaded
  LEFT JOIN sized z ON z.trace_id = c.trace_id AND z.device = c.device
  LEFT JOIN phased h ON h.trace_id = c.trace_id AND h.device = c.device
), td1 AS (  -- promised: the exposed transfer promised; ar: its all-reduce part when phased
  SELECT *, max(exposed_ns - ux + uk, 0) AS promised, max(compute_ns - overlapped_ns, 0) AS free,
    CASE WHEN phased THEN min(allreduce_exposed_ns, max(exposed_ns - ux + uk, 0)) ELSE 0 END
      AS ar
  FROM td0
), td AS (
  SELECT *, CASE WHEN activations THEN 0
                 WHEN phased THEN min(ar, backward_free_ns)
                   + min(promised - ar, max(free - min(ar, backward_free_ns), 0))
                 ELSE min(promised, free) END AS hide
  FROM td1
)
  SELECT coalesce(sum(comm_ns), 0) / t.n AS comm, coalesce(sum(wait_ns), 0) / t.n AS wait,
    coalesce(sum(transfer_ns), 0) / t.n AS transfer,
    coalesce(sum(unmatched_ns), 0) / t.n AS unmatched,
    coalesce(sum(overlapped_ns), 0) / t.n AS overlap,
    coalesce(sum(exposed_ns), 0) / t.n AS exposed,
    coalesce(sum(compute_ns), 0) / t.n AS compute,
    coalesce(sum(ux), 0) / t.n AS unmatched_exposed, coalesce(sum(uk), 0) / t.n AS unmatched_sized,
    coalesce(sum(hide), 0) / t.n AS hideable, coalesce(sum(ar), 0) / t.n AS allreduce_exposed,
    coalesce(sum(CASE WHEN phased THEN backward_free_ns ELSE 0 END), 0) / t.n AS backward_free,
    coalesce(sum(CASE WHEN activations THEN promised ELSE 0 END), 0) / t.n AS activation_exposed,
    (SELECT max(ws - n) FROM runs) AS peers_missing,
    (SELECT max(x.world_size) FROM report_trace x) AS world_size,
    (SELECT n.name FROM report_gpu g JOIN report_name n USING (name_id)
     WHERE g.category = 'NCCL/communication' GROUP BY n.name ORDER BY sum(g.dur) DESC, n.name
     LIMIT 1) AS top_name,
    NULL AS advice
  FROM td, (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t;
UPDATE measure_comm SET advice = (
  WITH k AS (SELECT coalesce((SELECT kind FROM report_coll_call WHERE kind <> 'other'
                              GROUP BY kind ORDER BY sum(dur) DESC, kind LIMIT 1),
                             lower(top_name)) AS k)
  SELECT CASE WHEN k IN ('all_to_all', 'send_recv') OR k GLOB '*alltoall*'
                OR k GLOB '*all_to_all*' OR k GLOB '*sendrecv*' THEN 'exchange'
              WHEN k IN ('all_gather', 'reduce_scatter') OR k GLOB '*allgather*'
                OR k GLOB '*reducescatter*' THEN 'shard'
              ELSE 'reduce' END FROM k);
