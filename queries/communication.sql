-- Title: Communication: waiting, transfer and overlap with compute
-- Question: How much GPU time goes to collectives (NCCL/RCCL kernels), how
--   much of it is waiting for the last peer to arrive (owed to imbalance
--   or a straggler: rank_sum) and how much is transfer after it arrived,
--   and how much of the transfer is hidden behind compute kernels on the
--   same device?  Only exposed transfer is what overlap can still save.
--   A collective whose peers are not loaded (a single-rank trace) cannot
--   be split: it counts as transfer, shown in unmatched_ns.  All times are
--   over the analysed spans, as the step time and sync_sum: the kernels
--   running during them, each clipped to them (the GPU may run far behind
--   the CPU); --scope hta: HTA's kernels, unclipped (lib/50_collectives.sql).
-- Requires: report_comm
-- Empty: no collective kernels ran (a single-GPU run, or communication not
--   captured in this trace)
-- Brief: label device comm_ns wait_ns transfer_ns overlapped_ns exposed_comm_ns overlap_pct
-- Columns:
--   label             -      trace
--   rank              -      distributed rank
--   device            -      device ordinal
--   comm_ns           ns     time covered by collective kernels
--   wait_ns           ns     time inside them before the last peer arrived (waiting: imbalance, stragglers); empty when no collective's peers are loaded (unknown, not 0)
--   transfer_ns       ns     time inside them after the last peer arrived (transfer)
--   unmatched_ns      ns     part of transfer_ns in collectives whose peers are not loaded (waiting unknown)
--   compute_ns        ns     time covered by other kernels
--   overlapped_ns     ns     transfer time with compute running at the same time
--   exposed_comm_ns   ns     transfer_ns - overlapped_ns: transfer on the critical path
--   overlap_pct       %      overlapped_ns / transfer_ns
SELECT w.label, w.rank, c.device, c.comm_ns,
  -- (no collective matched its peers: the wait is unknown, not 0)
  CASE WHEN c.any_matched THEN c.wait_ns END AS wait_ns,
  c.transfer_ns, c.unmatched_ns,
  c.compute_ns, c.overlapped_ns, c.exposed_ns AS exposed_comm_ns,
  round(100.0 * c.overlapped_ns / max(c.transfer_ns, 1), 2) AS overlap_pct
FROM report_comm c JOIN report_window w USING (trace_id)
WHERE c.comm_ns > 0
ORDER BY w.rank, c.trace_id, c.device;
