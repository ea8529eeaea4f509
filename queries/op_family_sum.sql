-- Title: Dominant operator families
-- Question: Which families of CPU operators (op_family()) take the CPU's
--   self time?
-- Requires: report_op_stats
-- Empty: the trace has no CPU operators
-- Columns:
--   family        -      op_family()
--   self_dur_ns   ns     total self time
--   self_pct      %      share of all operators' self time
--   calls         count  calls
--   top_op        symbol the operator of the family with the most self time
WITH per_op AS (
  SELECT op_family(name) AS family, name, self_dur, calls FROM report_op_stats
), ranked AS (
  SELECT *, row_number() OVER (PARTITION BY family ORDER BY self_dur DESC, name) AS rn
  FROM per_op
)
SELECT family, sum(self_dur) AS self_dur_ns,
  round(100.0 * sum(self_dur) / (SELECT sum(self_dur) FROM per_op), 2) AS self_pct,
  sum(calls) AS calls, max(CASE WHEN rn = 1 THEN name END) AS top_op
FROM ranked GROUP BY family ORDER BY self_dur_ns DESC, family;
