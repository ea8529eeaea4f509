-- Title: Collectives: bus bandwidth of each process group
-- Question: Which process group moves data slowest, in a job of more than
--   16 process groups, where coll_sum has one row per shape of group?
--   One row per (run, process group, kind, message-size bucket), as
--   coll_sum's rows are up to 16 groups, for the runs of more than 16
--   groups only.  Past 16 groups the Markdown folds them as the per-rank
--   sections fold their ranks (each figure's min, median and max with the
--   group holding it, then the outlying groups); the HTML and JSON have
--   every row.  Definitions: docs/definitions.md#collective-bandwidth
--   (lib/51_coll_call.sql).
-- Requires: report_coll_call
-- Empty: no run has more than 16 process groups (coll_sum has each
--   group's rows), or no collective kernels ran
-- Brief: process_group kind size calls transfer_ns wait_ns busbw_median_gbps wait_pct
-- Columns:
--   process_group      -      the group: its ranks and size ('ranks 0-7 (8)'), as coll_sum names it
--   kind               -      all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, ...
--   size               -      message-size bucket, as in coll_sum
--   calls              count  collective kernels (one per rank and call)
--   transfer_ns        ns     time after the last peer arrived, summed (whole kernels where unmatched)
--   wait_ns            ns     time before the last peer arrived, summed over the matched calls; empty when no call's peers are loaded (unknown, not 0)
--   busbw_median_gbps  -      median busbw over the calls with known bytes (GB/s, 1e9 bytes/s)
--   wait_pct           %      wait_ns / (wait_ns + transfer_ns) (empty with wait_ns)
--   bytes              bytes  message bytes summed over the calls
--   run                -      the run (ranks of one job)
SELECT c."group" AS process_group, c.kind, c.bucket AS size, count(*) AS calls,
  sum(c.transfer_ns) AS transfer_ns,
  -- (no call matched its peers: the wait is unknown, not 0)
  CASE WHEN max(c.matched) THEN sum(c.wait_ns) END AS wait_ns,
  round(profdb_median(c.busbw_gbps), 2) AS busbw_median_gbps,
  CASE WHEN max(c.matched) THEN round(100.0 * sum(c.wait_ns) / max(sum(c.wait_ns + c.transfer_ns), 1), 2)
  END AS wait_pct,
  sum(c.bytes) AS bytes, c.run
FROM report_coll_call c
LEFT JOIN report_pg_label p ON p.pg_ranks = c.pg_ranks
WHERE c.run IN (SELECT run FROM report_coll_call GROUP BY run HAVING count(DISTINCT "group") > 16)
GROUP BY c.run, c."group", c.kind, c.bucket_lo, c.bucket
ORDER BY c.run, min(p.lo), c."group", c.kind, c.bucket_lo;
