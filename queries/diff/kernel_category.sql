-- Title: GPU time by kernel category, per step
-- Question: Which kinds of GPU work got faster or slower?  Time per step
--   of each kernel_category() (copies and fills included), before and
--   after, largest change first.
-- Requires: diff_gpu_name
-- Empty: neither run has GPU activity in its analysed steps
-- Columns:
--   category     -      kernel_category()
--   before_ns    ns     time per step, before
--   after_ns     ns     time per step, after
--   delta_ns     ns     after - before
--   speedup      -      before / after (above 1: faster; empty when one side is 0)
--   before_pct   %      share of the GPU time, before
--   after_pct    %      share of the GPU time, after
WITH c AS (
  SELECT category,
    coalesce(sum(total_dur) FILTER (WHERE side = 'before'), 0) AS b,
    coalesce(sum(total_dur) FILTER (WHERE side = 'after'), 0) AS a
  FROM diff_gpu_name GROUP BY category
), t AS (
  SELECT sum(b) AS tb, sum(a) AS ta FROM c
), per AS (
  SELECT c.category, 1.0 * c.b / (SELECT steps FROM diff_per_step WHERE side = 'before') AS b,
    1.0 * c.a / (SELECT steps FROM diff_per_step WHERE side = 'after') AS a,
    round(100.0 * c.b / max(t.tb, 1), 2) AS pb, round(100.0 * c.a / max(t.ta, 1), 2) AS pa
  FROM c, t
)
SELECT category, CAST(round(b) AS INTEGER) AS before_ns, CAST(round(a) AS INTEGER) AS after_ns,
  CAST(round(a - b) AS INTEGER) AS delta_ns,
  CASE WHEN a > 0 AND b > 0 THEN round(b / a, 3) END AS speedup,
  pb AS before_pct, pa AS after_pct
FROM per ORDER BY abs(a - b) DESC, category;
