-- Debian python3-torch 1.13 (no Kineto): a bare array, pid "CPU functions",
-- no cat; every X event is an operator, ProfilerStep#N gives steps.
SELECT layout, events, status FROM trace;
SELECT kind, cat, raw_cat IS NULL AS no_raw_cat, count(*) FROM event GROUP BY 1, 2, 3;
SELECT step, ts, dur FROM step ORDER BY step;
-- nesting: the optimizer annotation contains the zero_ calls of step 0
SELECT name, depth, (SELECT name FROM slice p WHERE p.event_id = s.parent_id) AS parent,
  step, dur, self_dur FROM slice s WHERE ts BETWEEN 377000 AND 480000 ORDER BY ts, dur DESC;
SELECT count(*) AS ops_in_steps FROM cpu_op WHERE step IS NOT NULL;
SELECT * FROM thread;
