-- Title: Temporal breakdown of the GPU window (HTA)
-- Question: Between its first and last GPU activity, how long is each
--   rank's GPU idle, computing, or busy with anything else (communication,
--   copies, fills)?  HTA's get_temporal_breakdown, with its definitions:
--   the window runs from the first GPU activity's start to the last one's
--   end over all the rank's devices and streams; compute is the union of
--   kernels that are not collectives; idle is the window minus the union
--   of all GPU activity.  Use --scope hta for HTA's scope.  Beyond HTA,
--   the collectives' time is split into waiting for the last peer and
--   transfer (the two last columns).
-- Requires: report_trace
-- Empty: no GPU activity (kernels, copies, fills) in scope
-- Columns:
--   label             -      trace
--   rank              -      distributed rank
--   kernel_time_ns    ns     the GPU window: last GPU activity end - first start
--   idle_ns           ns     window time with no GPU activity
--   compute_ns        ns     time covered by kernels other than collectives
--   non_compute_ns    ns     kernel_time_ns - idle_ns - compute_ns: collectives, copies, fills only
--   idle_pct          %      idle_ns / kernel_time_ns
--   compute_pct       %      compute_ns / kernel_time_ns
--   non_compute_pct   %      non_compute_ns / kernel_time_ns
--   comm_wait_ns      ns     collective time before the last peer arrived (waiting: imbalance, stragglers; lib/50_collectives.sql)
--   comm_transfer_ns  ns     collective time after the last peer arrived, or whose peers are not loaded (transfer)
WITH comm AS (
  -- Per trace and device: union of the waiting parts, of the transfer
  -- parts.  Over the same GPU work as the window (the collective kernels
  -- the analysed steps launched, unclipped; summed over the rank's
  -- devices), unlike the communication section, which measures the
  -- analysed spans' timeline (lib/50_collectives.sql report_comm).
  SELECT trace_id, device,
    coalesce(interval_union(ts, ts + wait_ns) FILTER (WHERE wait_ns > 0), 0) AS wait_ns,
    coalesce(interval_union(ts + wait_ns, ts + dur) FILTER (WHERE dur > wait_ns), 0)
      AS transfer_ns
  FROM (SELECT g.trace_id, g.device, g.ts, g.dur, coalesce(a.wait_ns, 0) AS wait_ns
        FROM report_gpu g LEFT JOIN report_coll_arrival a USING (event_id)
        WHERE g.kind = 'kernel' AND g.category = 'NCCL/communication')
  GROUP BY trace_id, device
), per_rank AS (
  -- With --scope hta the figures are HTA's own: its events and its µs
  -- arithmetic, lib/11_hta.sql and docs/definitions.md; report_gpu may then
  -- be empty while HTA counts GPU work, e.g. MTIA events, hence Requires
  -- names report_trace.
  SELECT g.trace_id, max(g.ts + g.dur) - min(g.ts) AS window,
    interval_union(g.ts, g.ts + g.dur) AS busy,
    coalesce(interval_union(g.ts, g.ts + g.dur)
      FILTER (WHERE g.kind = 'kernel' AND g.category <> 'NCCL/communication'), 0) AS compute
  FROM report_gpu g WHERE NOT coalesce(:scope_hta, 0) GROUP BY g.trace_id
  UNION ALL
  -- --scope hta: HTA's events and arithmetic (lib/11_hta.sql), µs to ns
  SELECT h.trace_id, CAST(round(1000 * hta_span(h.ts, h.end_ts)) AS INTEGER),
    CAST(round(1000 * hta_busy(h.ts, h.end_ts)) AS INTEGER),
    coalesce(CAST(round(1000 * hta_busy(h.ts, h.end_ts) FILTER (WHERE h.compute)) AS INTEGER), 0)
  FROM report_hta_gpu h GROUP BY h.trace_id
)
SELECT w.label, w.rank, p.window AS kernel_time_ns, p.window - p.busy AS idle_ns,
  p.compute AS compute_ns, p.busy - p.compute AS non_compute_ns,
  round(100.0 * (p.window - p.busy) / max(p.window, 1), 2) AS idle_pct,
  round(100.0 * p.compute / max(p.window, 1), 2) AS compute_pct,
  round(100.0 * (p.busy - p.compute) / max(p.window, 1), 2) AS non_compute_pct,
  (SELECT coalesce(sum(c.wait_ns), 0) FROM comm c WHERE c.trace_id = p.trace_id) AS comm_wait_ns,
  (SELECT coalesce(sum(c.transfer_ns), 0) FROM comm c WHERE c.trace_id = p.trace_id)
    AS comm_transfer_ns
FROM per_rank p JOIN report_window w USING (trace_id)
ORDER BY w.rank, p.trace_id;
