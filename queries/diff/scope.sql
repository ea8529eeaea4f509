-- Title: Scope
-- Question: What does each side of the diff hold: traces, analysed job
--   steps (step k on every rank; with several ranks also the rank steps),
--   memory snapshots?
-- Columns:
--   note  -  one line of the scope (the report joins them with '; ')
SELECT printf('%s: %d trace(s), %d job step(s) analysed%s, %d snapshot(s)', d.side,
  coalesce(r.traces, 0), coalesce(r.job_steps, 0),
  CASE WHEN r.traces > 1 THEN printf(' (%d rank steps)', r.steps) ELSE '' END,
  CASE d.side WHEN 'after' THEN (SELECT count(*) FROM main.snapshot)
  ELSE (SELECT count(*) FROM base.snapshot) END) AS note
FROM diff_sides d LEFT JOIN diff_run r USING (side)
ORDER BY d.ord;
