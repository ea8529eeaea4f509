-- Chrome export --finding K when the finding names no step: a step the
-- report analysed (queries/lib/05_steps.sql and 10_trace_scope.sql: the TEMP
-- tables report_step_all and report_step of the report that gave the
-- finding, run on this connection), never a warm-up step it excluded
-- when another remains: of the selected ranks' steps, the analysed ones
-- first, then those not warm-up, then the longest span (where the finding
-- shows most), the lowest step number on ties.
-- Output:
--   step  the step number, no row when the traces have no steps
SELECT s.step FROM temp.report_step_all s JOIN _cx_trace c USING (trace_id)
ORDER BY (s.trace_id, s.step) IN (SELECT trace_id, step FROM temp.report_step) DESC,
  s.warmup, s.empty, s.span_end - s.span_ts DESC, s.step
LIMIT 1;
