-- profdb diff, collectives: each side's collective calls per process
-- group, kind and message-size bucket, for the section coll and the gate
-- metric busbw[KIND] (docs/definitions.md#collective-bandwidth).
--
-- diff_coll_call is report_coll_call (queries/lib/51_coll_call.sql: one
-- row per collective kernel; its columns are documented there) of each
-- side with a first column side, 'before' or 'after'.  cli/cli_diff_coll.c
-- fills it before this prelude runs, by running the report's own prelude
-- files on each database: bytes, transfer time and busbw are the report's
-- (coll_sum's), computed once, by one definition.

-- Per side, process group, kind and bucket (coll_sum's rows, over all the
-- side's runs):
--   side, group, kind      'before' / 'after', the group ('ranks 0-7 (8)'), the kind
--   bucket, bucket_lo      message-size bucket and its lower bound in bytes
--   calls                  collective kernels (one per rank and call)
--   bytes                  message bytes summed (NULL when none is known)
--   transfer_ns, wait_ns   transfer and waiting time summed (ns)
--   busbw_median_gbps      median busbw over the calls with one (GB/s), as coll_sum
--   unmatched              calls whose peers are not loaded
CREATE TEMP TABLE diff_coll AS
SELECT side, "group", kind, bucket, bucket_lo, count(*) AS calls, sum(bytes) AS bytes,
  sum(transfer_ns) AS transfer_ns, sum(wait_ns) AS wait_ns,
  profdb_median(busbw_gbps) AS busbw_median_gbps, sum(NOT matched) AS unmatched
FROM diff_coll_call
GROUP BY side, "group", kind, bucket_lo, bucket;

-- Per side and kind, the gate's busbw[KIND]: bus bytes moved per ns of
-- transfer over every call of the kind with a busbw, which is the mean of
-- the calls' busbw weighted by their transfer time (GB/s; a call that
-- takes longer weighs more, as it does in the step).
--   side, kind
--   calls             calls with a busbw (bytes, factor and transfer known)
--   bus_bytes         sum of bytes * factor over them
--   transfer_ns       sum of their transfer_ns
--   busbw_gbps        bus_bytes / transfer_ns
CREATE TEMP TABLE diff_coll_kind AS
SELECT side, kind, count(*) AS calls, sum(bytes * factor) AS bus_bytes,
  sum(transfer_ns) AS transfer_ns, sum(bytes * factor) / sum(transfer_ns) AS busbw_gbps
FROM diff_coll_call
WHERE busbw_gbps IS NOT NULL
GROUP BY side, kind;
