-- Measure: the reference bus bandwidth of each process group (one row a run and group).
-- The bus bandwidth a group's collectives are held to: the link's peak
-- when given (--link-gbps), else the best median busbw the group reaches
-- over its kinds and size buckets (coll_sum's rows).  slow_collective
-- compares each row with it; exposed_communication sizes, with it, the
-- transfer of a collective whose peers are not loaded (its bytes at this
-- bandwidth: the rest of its time may be waiting for them).
-- Builds: measure_coll_ref
-- Reads: report_coll_call, report_coll_link
CREATE TEMP TABLE measure_coll_ref (
  run     TEXT,  -- report_run.run
  "group" TEXT,  -- the process group (report_coll_call."group")
  gbps    REAL   -- its reference busbw, GB/s (1e9 bytes/s: bytes x factor / gbps is ns)
) STRICT;
INSERT INTO measure_coll_ref
SELECT run, "group", coalesce((SELECT link_gbps FROM report_coll_link), max(med))
FROM (SELECT run, "group", profdb_median(busbw_gbps) AS med FROM report_coll_call
      WHERE busbw_gbps IS NOT NULL AND run IS NOT NULL GROUP BY run, "group", kind, bucket_lo)
GROUP BY run, "group";
