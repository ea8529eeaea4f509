-- Title: Communication and its overlap with compute
-- Question: How much GPU time goes to collectives (NCCL/RCCL kernels), and
--   how much of it is hidden behind compute kernels on the same device?
-- Requires: report_gpu
-- Empty: no collective kernels ran (a single-GPU run, or communication not
--   captured in this trace)
-- Columns:
--   label             -      trace
--   rank              -      distributed rank
--   device            -      device ordinal
--   comm_ns           ns     time covered by collective kernels
--   compute_ns        ns     time covered by other kernels
--   overlapped_ns     ns     collective time with compute running at the same time
--   exposed_comm_ns   ns     comm_ns - overlapped_ns: communication on the critical path
--   overlap_pct       %      overlapped_ns / comm_ns
SELECT w.label, w.rank, g.device,
  interval_union(g.ts, g.ts + g.dur) FILTER (WHERE g.category = 'NCCL/communication') AS comm_ns,
  coalesce(interval_union(g.ts, g.ts + g.dur) FILTER (WHERE g.category <> 'NCCL/communication'), 0) AS compute_ns,
  coalesce(interval_overlap(g.ts, g.ts + g.dur, g.category = 'NCCL/communication'), 0) AS overlapped_ns,
  interval_union(g.ts, g.ts + g.dur) FILTER (WHERE g.category = 'NCCL/communication')
    - coalesce(interval_overlap(g.ts, g.ts + g.dur, g.category = 'NCCL/communication'), 0) AS exposed_comm_ns,
  round(100.0 * coalesce(interval_overlap(g.ts, g.ts + g.dur, g.category = 'NCCL/communication'), 0)
        / max(interval_union(g.ts, g.ts + g.dur) FILTER (WHERE g.category = 'NCCL/communication'), 1), 2)
    AS overlap_pct
FROM report_gpu g JOIN report_window w USING (trace_id)
WHERE g.kind = 'kernel'
GROUP BY g.trace_id, g.device
HAVING comm_ns > 0
ORDER BY w.rank, g.trace_id, g.device;
