-- Measure: the kernel category with the most GPU time (one row, none without GPU work).
-- Builds: measure_top_category
-- Reads: measure_time, report_gpu
CREATE TEMP TABLE measure_top_category (
  category TEXT,     -- kernel category (report_gpu.category)
  dur      REAL      -- its GPU time per rank step, ns
) STRICT;
INSERT INTO measure_top_category
  SELECT category, sum(dur) / (SELECT 1.0 * max(rank_steps,
    1) FROM measure_time) AS dur FROM report_gpu
  GROUP BY category ORDER BY dur DESC, category LIMIT 1;
