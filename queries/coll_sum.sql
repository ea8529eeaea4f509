-- Title: Collectives: bus bandwidth per process group, kind and message size
-- Question: Is each collective moving data as fast as the fabric allows,
--   and which process group is slow?  One row per (run, process group,
--   kind, message-size bucket), over every rank's collective kernels:
--   message bytes as nccl-tests counts them, the transfer time after the
--   last peer arrived (the whole kernel where peers are not loaded), and
--   nccl-tests' bus bandwidth (GB/s = 1e9 bytes/s; TraceLens divides by
--   2^30).  Groups are named by their ranks and size, so a data-parallel
--   group ('ranks 0-6/2 (4)', 'ranks 0,2 (2)') reads apart from a tensor-parallel one
--   ('ranks 0,1 (2)').  A run of more than 16 process groups (the fold
--   of the per-rank sections, RP_RANKS_MAX) has one row per kind of
--   group instead, the groups of one shape together ('128 groups
--   r..r+7 (8)'), with the lowest, median and highest of the groups'
--   median busbw and the slowest group named; each group's own rows are
--   in coll_group.  Definitions: docs/definitions.md#collective-bandwidth
--   (lib/51_coll_call.sql).
-- Requires: report_coll_call
-- Parameters: :link_gbps
-- Empty: no collective kernels ran (a single-GPU run, or communication not
--   captured in this trace)
-- Brief: group kind size transfer_ns busbw_min_gbps busbw_median_gbps busbw_max_gbps slowest_group
-- Columns:
--   group              -      process group: its ranks and size ('ranks 0-7 (8)'), 'pg NAME (n)' without a rank list, 'unknown' without args; past 16 groups, the groups of one shape, r their lowest rank: '8 groups r..r+7 (8)'
--   kind               -      all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, ...
--   size               -      message-size bucket (bytes as nccl-tests counts them; 'unknown' when they cannot be)
--   calls              count  collective kernels (one per rank and call)
--   bytes              bytes  message bytes summed over the calls
--   transfer_ns        ns     time after the last peer arrived, summed (whole kernels where unmatched)
--   wait_ns            ns     time before the last peer arrived, summed over the matched calls; empty when no call's peers are loaded (unknown, not 0)
--   busbw_min_gbps     -      the lowest of the groups' median busbw (one group: its median)
--   busbw_median_gbps  -      median over the groups of each group's median busbw over its calls with known bytes (GB/s, 1e9 bytes/s; one group: its median)
--   busbw_max_gbps     -      the highest of the groups' median busbw
--   busbw_p10_gbps     -      10th percentile of busbw over the calls (the slow tail)
--   wait_pct           %      wait_ns / (wait_ns + transfer_ns): the share spent waiting for late peers (empty with wait_ns)
--   peak_pct           %      busbw_median_gbps / --link-gbps (NULL without it)
--   unmatched          count  calls whose peers are not loaded (transfer is the whole kernel)
--   run                -      the run (ranks of one job)
--   bytes_per_call     bytes  median message bytes of one call
--   matched_by         -      the keys the matched calls were matched by across ranks: comms_id+seq, pg+seq, pg+order
--   missing            -      what is missing for bytes or busbw, when anything is
--   groups             count  process groups in the row
--   slowest_group      -      the group with the lowest median busbw (ties: the lowest rank)
WITH n AS (
  -- process groups per run: past 16, groups of one shape share a row
  SELECT run, count(DISTINCT "group") AS groups FROM report_coll_call GROUP BY run
), k AS (
  -- each group's row: its shape past 16 groups (report_pg_label.pattern), else itself
  SELECT DISTINCT c.run, c."group", coalesce(CASE WHEN n.groups > 16 THEN p.pattern END,
                                             c."group") AS fold, p.lo
  FROM report_coll_call c JOIN n ON n.run IS c.run
  LEFT JOIN report_pg_label p ON p.pg_ranks = c.pg_ranks
), g AS (
  -- each group's median busbw per kind and size
  SELECT c.run, k.fold, c."group", k.lo, c.kind, c.bucket_lo,
    profdb_median(c.busbw_gbps) AS gm
  FROM report_coll_call c JOIN k ON k.run IS c.run AND k."group" = c."group"
  GROUP BY c.run, c."group", c.kind, c.bucket_lo
), r AS (
  SELECT k.fold, c.kind, c.bucket AS size, c.bucket_lo, count(*) AS calls, sum(c.bytes) AS bytes,
    sum(c.transfer_ns) AS transfer_ns, sum(c.wait_ns) AS wait_ns,
    round(profdb_percentile(c.busbw_gbps, 10), 2) AS busbw_p10_gbps,
    round(100.0 * sum(c.wait_ns) / max(sum(c.wait_ns + c.transfer_ns), 1), 2) AS wait_pct,
    sum(NOT c.matched) AS unmatched, max(c.matched) AS any_matched, c.run,
    CAST(profdb_median(c.bytes) AS INTEGER) AS bytes_per_call,
    group_concat(DISTINCT c.match_by) AS matched_by,
    nullif(group_concat(DISTINCT nullif(c.missing, '')), '') AS missing,
    count(DISTINCT c."group") AS groups, min(c."group") AS one_group
  FROM report_coll_call c JOIN k ON k.run IS c.run AND k."group" = c."group"
  GROUP BY c.run, k.fold, c.kind, c.bucket_lo, c.bucket
), s AS (
  SELECT r.*,
    (SELECT min(x.gm) FROM g x WHERE x.run IS r.run AND x.fold = r.fold AND x.kind = r.kind
       AND x.bucket_lo = r.bucket_lo) AS lo_bw,
    (SELECT profdb_median(x.gm) FROM g x WHERE x.run IS r.run AND x.fold = r.fold
       AND x.kind = r.kind AND x.bucket_lo = r.bucket_lo) AS mid_bw,
    (SELECT max(x.gm) FROM g x WHERE x.run IS r.run AND x.fold = r.fold AND x.kind = r.kind
       AND x.bucket_lo = r.bucket_lo) AS hi_bw,
    (SELECT x."group" FROM g x WHERE x.run IS r.run AND x.fold = r.fold AND x.kind = r.kind
       AND x.bucket_lo = r.bucket_lo ORDER BY x.gm IS NULL, x.gm, x.lo, x."group" LIMIT 1)
      AS slowest_group
  FROM r
)
SELECT CASE WHEN groups > 1 THEN groups || ' groups ' || fold ELSE one_group END AS "group",
  kind, size, calls, bytes, transfer_ns,
  -- (no call matched its peers: the wait is unknown, not 0)
  CASE WHEN any_matched THEN wait_ns END AS wait_ns, round(lo_bw, 2) AS busbw_min_gbps,
  round(mid_bw, 2) AS busbw_median_gbps, round(hi_bw, 2) AS busbw_max_gbps, busbw_p10_gbps,
  CASE WHEN any_matched THEN wait_pct END AS wait_pct, round(100.0 * mid_bw / :link_gbps, 2) AS peak_pct, unmatched, run, bytes_per_call,
  matched_by, missing, groups, slowest_group
FROM s
ORDER BY run, s.transfer_ns + s.wait_ns DESC, "group", kind, bucket_lo;
