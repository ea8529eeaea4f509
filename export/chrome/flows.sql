-- Chrome export: flow events (ac2g launch -> GPU, fwdbwd forward ->
-- backward) of the flows whose start and finish are both inside the
-- window (so both ends bind to kept events).  Flow ids are made unique
-- across ranks: pid * 10^12 + id (a text "pid:id" when the id is not an
-- integer in [0, 10^12)).
-- Output:
--   ts    time (ns, the trace's clock)
--   dur   NULL
--   body  the event without ts, as a JSON object
WITH f AS (
  SELECT f.*, c.pid AS npid, c.trace_id AS tr
  FROM _cx_trace c
  JOIN _flow f ON f.id > c.base AND f.id <= c.last
  WHERE f.ts >= c.lo AND f.ts < c.hi),
ok AS (
  SELECT tr, cat_id, flow_id FROM f
  GROUP BY tr, cat_id, flow_id
  HAVING max(ph = 's') AND max(ph = 'f'))
SELECT f.ts, NULL AS dur,
  json_patch('{}', json_object('ph', f.ph,
    'id', CASE WHEN typeof(f.flow_id) = 'integer' AND f.flow_id BETWEEN 0 AND 999999999999
               THEN f.npid * 1000000000000 + f.flow_id
               ELSE f.npid || ':' || f.flow_id END,
    'cat', (SELECT value FROM _string WHERE id = f.raw_cat_id),
    'name', (SELECT value FROM _string WHERE id = f.name_id),
    'pid', f.npid, 'tid', t.ntid, 'bp', f.bp, 'args', json(f.args))) AS body
FROM f JOIN ok USING (tr, cat_id, flow_id)
JOIN _cx_thread t ON t.trace_id = f.tr AND t.pid = f.pid AND t.tid = f.tid;
