-- Measure: one-time host stalls the profiler does not see into, per rank (lib/38_claim.sql).
-- The GPU idle gaps of report_stall (over 1 ms, the host recording
-- nothing or one operator with nothing recorded beneath it, at most two
-- in the trace's analysed time): how many per rank, their time per rank
-- step, the longest.
-- Builds: measure_stall
-- Reads: measure_time, report_stall
CREATE TEMP TABLE measure_stall (
  stalls  REAL,     -- stalls per rank
  stall_ns REAL,    -- their time per rank step, ns
  max_ns  INTEGER   -- the longest, ns
) STRICT;
INSERT INTO measure_stall
  SELECT count(*) / t.ranks, coalesce(sum(b - a), 0) / t.n, max(b - a)
  FROM report_stall, (SELECT 1.0 * max(rank_steps, 1) AS n, 1.0 * ranks AS ranks
                           FROM measure_time) t
  HAVING count(*) > 0;
