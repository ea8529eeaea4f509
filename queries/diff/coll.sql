-- Title: Collectives: bus bandwidth per process group, kind and size
-- Question: Did a collective get slower at moving data?  One row per
--   (process group, kind, message-size bucket) in either run: the median
--   busbw of its calls before and after (nccl-tests' bus bandwidth, GB/s =
--   1e9 bytes/s, as coll_sum reports it for each run), and the calls,
--   bytes and transfer time behind it.  The gate checks a kind as a whole:
--   busbw[all_reduce] < -10% (docs/definitions.md#collective-bandwidth).
-- Requires: diff_coll
-- Empty: neither run has collective kernels (single-GPU runs, or
--   communication not captured)
-- Brief: group kind size busbw_before_gbps busbw_after_gbps busbw_change_pct transfer_before_ns transfer_after_ns
-- Columns:
--   group              -      process group: its ranks and size ('ranks 0-7 (8)'), as in coll_sum
--   kind               -      all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, ...
--   size               -      message-size bucket, as in coll_sum
--   busbw_before_gbps  -      median busbw of the calls, before (GB/s; NULL without one)
--   busbw_after_gbps   -      median busbw of the calls, after
--   busbw_change_pct   %      relative change of the median busbw (negative: slower)
--   transfer_before_ns ns     transfer time summed over the calls, before
--   transfer_after_ns  ns     transfer time summed over the calls, after
--   calls_before       count  collective kernels, before (one per rank and call)
--   calls_after        count  collective kernels, after
--   bytes_before       bytes  message bytes summed, before
--   bytes_after        bytes  message bytes summed, after
--   wait_before_ns     ns     time before the last peer arrived, summed, before
--   wait_after_ns      ns     the same, after
WITH k AS (
  SELECT DISTINCT "group", kind, bucket, bucket_lo FROM diff_coll
), j AS (
  SELECT k.*, b.busbw_median_gbps AS bb, a.busbw_median_gbps AS ba,
    b.transfer_ns AS tb, a.transfer_ns AS ta, b.calls AS cb, a.calls AS ca, b.bytes AS yb,
    a.bytes AS ya, b.wait_ns AS wb, a.wait_ns AS wa
  FROM k
  LEFT JOIN diff_coll b ON b.side = 'before' AND b."group" = k."group" AND b.kind = k.kind
    AND b.bucket_lo = k.bucket_lo
  LEFT JOIN diff_coll a ON a.side = 'after' AND a."group" = k."group" AND a.kind = k.kind
    AND a.bucket_lo = k.bucket_lo
)
SELECT "group", kind, bucket AS size, round(bb, 2) AS busbw_before_gbps,
  round(ba, 2) AS busbw_after_gbps,
  CASE WHEN bb > 0 THEN round(100.0 * (ba - bb) / bb, 2) END AS busbw_change_pct,
  tb AS transfer_before_ns, ta AS transfer_after_ns, coalesce(cb, 0) AS calls_before,
  coalesce(ca, 0) AS calls_after, yb AS bytes_before, ya AS bytes_after,
  wb AS wait_before_ns, wa AS wait_after_ns
FROM j
ORDER BY coalesce(ta, 0) + coalesce(tb, 0) DESC, "group", kind, bucket_lo;
