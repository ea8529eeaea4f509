-- Measure: the cold start in the analysed spans, per rank step (one row).
-- The cold start in the analysed spans (lib/13_cold_launch.sql and
-- lib/37_launch.sql), per rank
-- step: the cold-start calls' time and the GPU idle time during them
-- (capped at the GPU idle time), calls per rank, the largest call and
-- the largest steady launch median a call was compared with.
-- Builds: measure_cold
-- Reads: measure_time, report_cold_launch, report_cold_span, report_span
CREATE TEMP TABLE measure_cold (
  calls      REAL,     -- cold-start launch calls per rank
  call_ns    REAL,     -- their time, ns
  idle_ns    ANY,      -- GPU idle time during them (at most the GPU idle time), ns
  largest_ns INTEGER,  -- the largest cold-start call, ns
  median_ns  ANY       -- the largest steady median a cold call was compared with, ns
) STRICT;
INSERT INTO measure_cold
  SELECT coalesce(c.calls, 0) / t.ranks AS calls, coalesce(c.call_ns, 0) / t.n AS call_ns,
    min(coalesce(c.idle_ns, 0) / t.n, max(coalesce(t.rank_step_ns - t.gpu_busy_ns, 0),
      0)) AS idle_ns,
    (SELECT max(l.dur) FROM report_cold_launch l WHERE EXISTS (SELECT 1 FROM report_span s
       WHERE s.trace_id = l.trace_id AND l.ts < s.end_ts AND l.ts + l.dur > s.ts)) AS largest_ns,
    (SELECT max(l.median_ns) FROM report_cold_launch l) AS median_ns
  FROM (SELECT sum(calls) AS calls, sum(call_ns) AS call_ns, sum(idle_ns) AS idle_ns
        FROM report_cold_span) c,
    (SELECT 1.0 * max(rank_steps, 1) AS n, 1.0 * ranks AS ranks, rank_step_ns,
      gpu_busy_ns FROM measure_time) t;
