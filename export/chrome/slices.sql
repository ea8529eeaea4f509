-- Chrome export: CPU-side duration events (ops, annotations, Python
-- frames, runtime calls) overlapping each trace's window, with their
-- category and args as written (the typed args put back under their
-- Kineto names).  An event that crosses the window's edge is kept whole
-- and marked: args "profdb.cut" is 'start' (it starts before the window),
-- 'end' (it ends after it) or 'both'.
-- The CROSS JOINs keep the order: the trace's id range, then each row's
-- thread by its key (no automatic index over the events).
-- Output:
--   ts    start (ns, the trace's clock)
--   dur   duration (ns)
--   body  the event without ts and dur, as a JSON object
SELECT s.ts, s.dur,
  json_patch('{}', json_object('ph', 'X',
    'cat', (SELECT value FROM _string WHERE id = s.raw_cat_id),
    'name', (SELECT value FROM _string WHERE id = s.name_id),
    'pid', c.pid, 'tid', t.ntid,
    'args', json_patch(coalesce(s.args, '{}'), json_object(
      'External id', s.external_id, 'correlation', s.correlation,
      'Sequence number', s.seq_num, 'Fwd thread id', s.fwd_tid, 'Ev Idx', s.ev_idx,
      'Input Dims', json(s.input_dims), 'Input type', json(s.input_types),
      'Input Strides', json(s.input_strides), 'Concrete Inputs', json(s.concrete_inputs),
      'cbid', s.cbid, 'Python id', s.python_id, 'Python parent id', s.python_parent_id,
      'Record function id', s.record_fn_id,
      'kernel', (SELECT value FROM _string WHERE id = s.kernel_id),
      'profdb.cut', CASE WHEN s.ts < c.lo AND s.ts + s.dur > c.hi THEN 'both'
                         WHEN s.ts < c.lo THEN 'start'
                         WHEN s.ts + s.dur > c.hi THEN 'end' END)))) AS body
FROM _cx_trace c
CROSS JOIN _slice s ON s.id > c.base AND s.id <= c.last
CROSS JOIN _cx_thread t ON t.trace_id = c.trace_id AND t.pid = s.pid AND t.tid = s.tid
WHERE s.ts < c.hi AND (s.ts + s.dur > c.lo OR s.ts >= c.lo) AND s.dur >= 0;
