-- postpass_links.sql — _gpu_link: for each kernel, copy, fill and GPU
-- sync of the new traces, the runtime call that launched it (the first
-- runtime call of its correlation), the CPU operator it belongs to and its
-- step (the launch's; else the step whose GPU, then CPU, range holds it:
-- the step that started last before it, when still running).
--
-- The operator: the slice with the External id of the activity, then of
-- the launch (cpu_op before user_annotation, first id), taken only when it
-- encloses the launch on the launch's thread (same pid and tid, starts at
-- or before it, ends at or after it); else the innermost cpu_op enclosing
-- the launch (temp._launch_op, from the nesting pass).  In traces of
-- PyTorch ~2.1-2.3 activities and runtime calls carry their correlation id
-- as External id, a number space that collides with the operators' own
-- External ids: the enclosure test keeps those collisions out.  In ROCm
-- traces of the roctracer era (2024) neither side has a correlation: the
-- External id is it (the ac2g flows' ids equal it), so GPU work without a
-- correlation takes the runtime call without one of its External id as its
-- launch (issue 44's eighth audit: no kernel of two such traces was
-- linked, and their 7.7 and 24.0 ms first hipLaunchKernel calls went
-- unseen), and its operator then by enclosure, as above.  The
-- innermost cpu_op around the call (as nested) counts as enclosing it; that
-- test comes first, answered from the index alone (SQLite reads the
-- candidate's row only when the other test is needed).  GPU work
-- without a runtime call keeps the External id link unchecked (nothing to
-- check it against).  See docs/definitions.md, "Launching operator".
--
-- Every lookup is one index seek (postpass_indexes.sql): linear in the
-- events, whatever ids they share.  ?1 = the first trace id of this load.

INSERT INTO _gpu_link(id, launch_id, op_id, step)
SELECT id, launch_id, op_id, coalesce(launch_step,
  (SELECT st.step FROM (SELECT step, gpu_ts, gpu_dur FROM step
    WHERE trace_id = x.trace_id AND gpu_ts <= x.ts ORDER BY gpu_ts DESC LIMIT 1) st
    WHERE x.ts < st.gpu_ts + st.gpu_dur),
  (SELECT st.step FROM (SELECT step, ts, dur FROM step
    WHERE trace_id = x.trace_id AND ts <= x.ts ORDER BY ts DESC LIMIT 1) st
    WHERE x.ts < st.ts + st.dur))
FROM (SELECT g.id AS id, g.trace_id AS trace_id, g.ts AS ts, l.id AS launch_id,
  (SELECT t.step FROM _slice_tree t WHERE t.id = l.id) AS launch_step,
  coalesce(
   (SELECT min(o.id) FROM _slice o WHERE o.trace_id = g.trace_id
     AND o.external_id = g.external_id AND o.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
     AND g.external_id <> 0
     AND (l.id IS NULL OR o.id = lo.op_id OR (o.pid IS l.pid AND o.tid IS l.tid
                           AND o.ts <= l.ts AND l.ts + l.dur <= o.ts + o.dur))),
   (SELECT min(o.id) FROM _slice o WHERE o.trace_id = g.trace_id
     AND o.external_id = g.external_id
     AND o.kind = (SELECT kind FROM _kind WHERE name = 'user_annotation')
     AND g.external_id <> 0
     AND (l.id IS NULL OR o.id = lo.op_id OR (o.pid IS l.pid AND o.tid IS l.tid
                           AND o.ts <= l.ts AND l.ts + l.dur <= o.ts + o.dur))),
   (SELECT min(o.id) FROM _slice o WHERE o.trace_id = g.trace_id
     AND o.external_id = l.external_id AND o.kind = (SELECT kind FROM _kind WHERE name = 'cpu_op')
     AND l.external_id <> 0
     AND (o.id = lo.op_id OR (o.pid IS l.pid AND o.tid IS l.tid AND o.ts <= l.ts
                          AND l.ts + l.dur <= o.ts + o.dur))),
   (SELECT min(o.id) FROM _slice o WHERE o.trace_id = g.trace_id
     AND o.external_id = l.external_id
     AND o.kind = (SELECT kind FROM _kind WHERE name = 'user_annotation')
     AND l.external_id <> 0
     AND (o.id = lo.op_id OR (o.pid IS l.pid AND o.tid IS l.tid AND o.ts <= l.ts
                          AND l.ts + l.dur <= o.ts + o.dur))),
   lo.op_id)
   AS op_id
  FROM _gpu g LEFT JOIN _slice l ON l.id = coalesce((SELECT min(r.id) FROM _slice r
    WHERE r.trace_id = g.trace_id AND r.correlation = g.correlation
    AND r.kind = (SELECT kind FROM _kind WHERE name = 'runtime')),
    (SELECT min(r.id) FROM _slice r
     WHERE g.correlation IS NULL AND r.trace_id = g.trace_id AND r.external_id = g.external_id
       AND r.kind = (SELECT kind FROM _kind WHERE name = 'runtime') AND r.correlation IS NULL))
  LEFT JOIN temp._launch_op lo ON lo.id = l.id
  WHERE g.trace_id >= ?1 AND g.kind IN
   (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset', 'gpu_sync'))) x;
DROP TABLE temp._launch_op;
