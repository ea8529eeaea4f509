-- Title: Collectives: bus bandwidth per process group, kind and message size
-- Question: Is each collective moving data as fast as the fabric allows,
--   and which process group is slow?  One row per (run, process group,
--   kind, message-size bucket), over every rank's collective kernels:
--   message bytes as nccl-tests counts them, the transfer time after the
--   last peer arrived (the whole kernel where peers are not loaded), and
--   nccl-tests' bus bandwidth (GB/s = 1e9 bytes/s; TraceLens divides by
--   2^30).  Groups are named by their ranks and size, so a data-parallel
--   group ('ranks 0-6/2 (4)', 'ranks 0,2 (2)') reads apart from a tensor-parallel one
--   ('ranks 0,1 (2)').  Definitions: docs/definitions.md#collective-bandwidth
--   (lib/51_coll_call.sql).
-- Requires: report_coll_call
-- Parameters: :link_gbps
-- Empty: no collective kernels ran (a single-GPU run, or communication not
--   captured in this trace)
-- Brief: group kind size calls transfer_ns busbw_median_gbps busbw_p10_gbps wait_pct
-- Columns:
--   group              -      process group: its ranks and size ('ranks 0-7 (8)'), 'pg NAME (n)' without a rank list, 'unknown' without args
--   kind               -      all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, ...
--   size               -      message-size bucket (bytes as nccl-tests counts them; 'unknown' when they cannot be)
--   calls              count  collective kernels (one per rank and call)
--   bytes              bytes  message bytes summed over the calls
--   transfer_ns        ns     time after the last peer arrived, summed (whole kernels where unmatched)
--   wait_ns            ns     time before the last peer arrived, summed
--   busbw_median_gbps  -      median busbw over the calls with known bytes (GB/s, 1e9 bytes/s)
--   busbw_p10_gbps     -      10th percentile of busbw (the slow tail)
--   wait_pct           %      wait_ns / (wait_ns + transfer_ns): the share spent waiting for late peers
--   peak_pct           %      busbw_median_gbps / --link-gbps (NULL without it)
--   unmatched          count  calls whose peers are not loaded (transfer is the whole kernel)
--   run                -      the run (ranks of one job)
--   bytes_per_call     bytes  median message bytes of one call
--   matched_by         -      the keys the matched calls were matched by across ranks: comms_id+seq, pg+seq, pg+order
--   missing            -      what is missing for bytes or busbw, when anything is
SELECT c."group", c.kind, c.bucket AS size, count(*) AS calls, sum(c.bytes) AS bytes,
  sum(c.transfer_ns) AS transfer_ns, sum(c.wait_ns) AS wait_ns,
  round(profdb_median(c.busbw_gbps), 2) AS busbw_median_gbps,
  round(profdb_percentile(c.busbw_gbps, 10), 2) AS busbw_p10_gbps,
  round(100.0 * sum(c.wait_ns) / max(sum(c.wait_ns + c.transfer_ns), 1), 2) AS wait_pct,
  round(100.0 * profdb_median(c.busbw_gbps) / :link_gbps, 2) AS peak_pct,
  sum(NOT c.matched) AS unmatched, c.run,
  CAST(profdb_median(c.bytes) AS INTEGER) AS bytes_per_call,
  group_concat(DISTINCT c.match_by) AS matched_by,
  nullif(group_concat(DISTINCT nullif(c.missing, '')), '') AS missing
FROM report_coll_call c
GROUP BY c.run, c."group", c.kind, c.bucket_lo, c.bucket
ORDER BY c.run, sum(c.transfer_ns + c.wait_ns) DESC, c."group", c.kind, c.bucket_lo;
