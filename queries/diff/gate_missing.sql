-- Title: Gate: names in neither run
-- Question: Which category[NAME], kernel[NAME] and busbw[KIND] checks of
--   the gate name nothing that either run launched in its analysed steps
--   (a typo, a renamed kernel, a collective the job does not run), and
--   which names could they have meant?  One row per
--   such check and candidate name of its kind; cli/cli_gate.c ranks
--   the candidates by closeness to the name given and fails the check
--   (exit 2) unless --allow-missing.  A kernel[NAME] check matches a full
--   kernel name or a kernel_base() name (gate.sql), so the candidates are
--   the base names.
-- Requires: gate_rule
-- Columns:
--   ord          -      the check's position (gate_rule.ord)
--   rule         -      the check as written
--   metric       -      category, kernel or busbw
--   arg          -      the name the check gives
--   candidate    -      a name of that kind in either run (NULL when the runs have none)
--   total_dur_ns ns     its GPU time in both runs together (ranks the candidates on ties)
WITH missing AS (
  SELECT r.ord, r.rule, r.metric, r.arg FROM gate_rule r
  WHERE (r.metric = 'category'
         AND NOT EXISTS (SELECT 1 FROM diff_gpu_name g WHERE g.category = r.arg))
     OR (r.metric = 'kernel'
         AND NOT EXISTS (SELECT 1 FROM diff_gpu_name g WHERE g.kind = 'kernel'
                         AND (g.name = r.arg OR g.base = r.arg)))
     OR (r.metric = 'busbw'
         AND NOT EXISTS (SELECT 1 FROM diff_coll_call c WHERE c.kind = r.arg))
), names AS (
  SELECT 'category' AS metric, category AS candidate, sum(total_dur) AS total_dur
  FROM diff_gpu_name GROUP BY category
  UNION ALL
  SELECT 'kernel', base, sum(total_dur) FROM diff_gpu_name WHERE kind = 'kernel' GROUP BY base
  UNION ALL
  SELECT 'busbw', kind, sum(dur) FROM diff_coll_call GROUP BY kind
)
SELECT m.ord, m.rule, m.metric, m.arg, n.candidate, n.total_dur AS total_dur_ns
FROM missing m LEFT JOIN names n ON n.metric = m.metric
ORDER BY m.ord, n.total_dur DESC, n.candidate;
