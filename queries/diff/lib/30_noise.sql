-- profdb diff, noise: is the step time change larger than the step-to-step
-- spread?  A two-sided Mann-Whitney U test (Wilcoxon rank-sum) of the
-- analysed job steps' times (diff_job_step: never ranks), after against before, with the normal
-- approximation and the tie correction (docs/definitions.md, "Noise test"):
--   U = R_after - n_a (n_a + 1) / 2, R_after the sum of the after steps'
--       mid-ranks in the pooled steps;
--   z = (U - n_a n_b / 2) / sqrt(n_a n_b / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))))
--       t: the size of each group of tied times;
--   significant when |z| >= 1.96 (5%, two-sided).
-- With fewer than two steps on a side the test cannot tell noise from
-- change (significant is NULL); with 2 + 2 or 2 + 3 steps |z| cannot reach
-- 1.96, so a change is never called significant from so few steps (the
-- verdict says so).

-- One row: steps per side, U, z, and whether the change is significant.
--   significant: 1 beyond the spread, 0 within it, NULL when not testable
--   verdict: the sentence the verdict and the gate show
CREATE TEMP TABLE diff_noise AS
WITH s AS (
  SELECT side, wall_ns FROM diff_job_step WHERE wall_ns IS NOT NULL
), n AS (
  SELECT count(*) FILTER (WHERE side = 'before') AS nb,
    count(*) FILTER (WHERE side = 'after') AS na, count(*) AS n FROM s
), ranked AS (
  SELECT side, rank() OVER (ORDER BY wall_ns) + (count(*) OVER (PARTITION BY wall_ns) - 1) / 2.0
    AS mid_rank
  FROM s
), ties AS (
  SELECT coalesce(sum(1.0 * t * t * t - t), 0) AS tt
  FROM (SELECT count(*) AS t FROM s GROUP BY wall_ns)
), u AS (
  SELECT n.nb, n.na, n.n,
    coalesce((SELECT sum(mid_rank) FROM ranked WHERE side = 'after'), 0) - n.na * (n.na + 1) / 2.0
      AS u,
    CASE WHEN n.n > 1 THEN n.na * n.nb / 12.0 * ((n.n + 1) - ties.tt / (1.0 * n.n * (n.n - 1)))
    END AS var
  FROM n, ties
), z AS (
  SELECT nb, na, u, CASE WHEN nb >= 2 AND na >= 2 AND var > 0
    THEN (u - na * nb / 2.0) / sqrt(var) END AS z,
    -- the largest |z| these step counts allow (no ties)
    CASE WHEN nb >= 1 AND na >= 1 THEN na * nb / 2.0 / sqrt(na * nb * (n + 1) / 12.0) END AS max_z
  FROM u
)
SELECT nb AS before_steps, na AS after_steps, u, z,
  CASE WHEN z IS NOT NULL THEN abs(z) >= 1.96 END AS significant,
  CASE
    WHEN nb = 0 OR na = 0 THEN NULL
    WHEN nb < 2 OR na < 2 THEN printf(
      'with one step on a side (%d before, %d after) noise cannot be told from change', nb, na)
    WHEN z IS NULL THEN 'every step took the same time on both sides: no spread to test against'
    WHEN abs(z) >= 1.96 THEN printf(
      'the change is beyond the step-to-step spread (Mann-Whitney z=%+.2f, %d+%d steps, p<0.05)', z, nb, na)
    ELSE printf('the change is within the step-to-step spread (Mann-Whitney z=%+.2f, %d+%d steps%s)',
      z, nb, na, CASE WHEN max_z < 1.96 THEN ': too few to ever reach p<0.05' ELSE '' END)
  END AS verdict
FROM z;
