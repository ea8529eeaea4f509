-- postpass_links.sql — _gpu_link: for each kernel, copy, fill and GPU
-- sync of the new traces, the runtime call that launched it (same
-- correlation), the CPU operator it belongs to (by external id, else the
-- launch's enclosing cpu_op) and its step (the launch's, else the step
-- whose GPU or CPU range holds it).  ?1 = the first trace id of this load.

INSERT INTO _gpu_link(id, launch_id, op_id, step)
SELECT id, launch_id, op_id, coalesce(launch_step,
  (SELECT st.step FROM step st WHERE st.trace_id = x.trace_id
    AND st.gpu_ts <= x.ts AND x.ts < st.gpu_ts + st.gpu_dur),
  (SELECT st.step FROM step st WHERE st.trace_id = x.trace_id
    AND st.ts <= x.ts AND x.ts < st.ts + st.dur))
FROM (SELECT g.id AS id, g.trace_id AS trace_id, g.ts AS ts, l.id AS launch_id,
  (SELECT t.step FROM _slice_tree t WHERE t.id = l.id) AS launch_step,
  coalesce(
   (SELECT o.id FROM _slice o WHERE o.trace_id = g.trace_id
     AND o.external_id = g.external_id
     AND o.kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation'))
     AND g.external_id <> 0 ORDER BY o.kind, o.id LIMIT 1),
   (SELECT o.id FROM _slice o WHERE o.trace_id = g.trace_id
     AND o.external_id = l.external_id
     AND o.kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation'))
     AND l.external_id <> 0 ORDER BY o.kind, o.id LIMIT 1),
   (SELECT o.id FROM _slice_tree t JOIN _slice o ON o.id = t.parent_id
     WHERE t.id = l.id AND o.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')))
   AS op_id
  FROM _gpu g LEFT JOIN _slice l ON l.id = (SELECT min(r.id) FROM _slice r
    WHERE r.trace_id = g.trace_id AND r.correlation = g.correlation
    AND r.kind = (SELECT kind FROM _kind WHERE name = 'runtime'))
  WHERE g.trace_id >= ?1 AND g.kind IN
   (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset', 'gpu_sync'))) x;
