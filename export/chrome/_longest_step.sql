-- Chrome export --finding K when the finding names no step: the step
-- whose span is longest on the selected ranks (where the finding shows
-- most), the lowest step number on ties.
-- Output:
--   step  the step number, no row when the traces have no steps
SELECT s.step FROM step s JOIN _cx_trace c USING (trace_id)
ORDER BY coalesce(s.span_dur, s.dur) DESC, s.step
LIMIT 1;
