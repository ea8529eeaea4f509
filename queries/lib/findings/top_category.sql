-- Measure: the kernel category with the most GPU time (one row, none without GPU work).
-- The analysed steps' own GPU work: not the work launched before the trace
-- (report_pretrace_gpu, a backlog running into the first analysed step:
-- no step's action shortens it; issue 44's third unseen audit, a trace
-- whose warm-up step's 3.22 ms of GEMM ran into ProfilerStep#3 and raised
-- dominant_category's bound 5.3% past the steps' own GEMM time).
-- Builds: measure_top_category
-- Reads: measure_time, report_gpu, report_pretrace_gpu
CREATE TEMP TABLE measure_top_category (
  category    TEXT,  -- kernel category (report_gpu.category)
  dur         REAL,  -- its GPU time per rank step, ns
  pretrace_ns REAL   -- its GPU time launched before the trace, per rank step, ns (counted in
                     --   kernel_category_sum, not in dur)
) STRICT;
INSERT INTO measure_top_category
  SELECT category, sum(dur) FILTER (WHERE NOT pretrace) / n AS dur,
    coalesce(sum(dur) FILTER (WHERE pretrace), 0) / n AS pretrace_ns
  FROM (SELECT category, dur, event_id IN (SELECT event_id FROM report_pretrace_gpu) AS pretrace
        FROM report_gpu),
    (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time)
  GROUP BY category HAVING sum(dur) FILTER (WHERE NOT pretrace) > 0
  ORDER BY dur DESC, category LIMIT 1;
