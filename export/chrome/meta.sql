-- Chrome export: the metadata events (ph M) that name and order the
-- output: one process per rank ("rank 3", sorted by run and rank) and its
-- threads and GPU streams ("rank 3 - GPU 0 stream 7"; CPU threads first).
-- Output:
--   ts    NULL (metadata events have no time)
--   dur   NULL
--   body  the event as a JSON object
SELECT NULL AS ts, NULL AS dur,
  json_object('ph', 'M', 'name', 'process_name', 'pid', pid, 'tid', 0,
    'args', json_object('name', 'rank ' || rank || CASE
      WHEN (SELECT count(DISTINCT run) FROM _cx_trace) > 1 THEN ' (' || run || ')'
      ELSE '' END)) AS body
FROM _cx_trace
UNION ALL
SELECT NULL, NULL, json_object('ph', 'M', 'name', 'process_sort_index', 'pid', pid,
  'tid', 0, 'args', json_object('sort_index', sort))
FROM _cx_trace
UNION ALL
SELECT NULL, NULL, json_object('ph', 'M', 'name', 'thread_name', 'pid', c.pid,
  'tid', t.ntid, 'args', json_object('name', t.name))
FROM _cx_thread t JOIN _cx_trace c USING (trace_id)
UNION ALL
SELECT NULL, NULL, json_object('ph', 'M', 'name', 'thread_sort_index', 'pid', c.pid,
  'tid', t.ntid, 'args', json_object('sort_index', t.ntid))
FROM _cx_thread t JOIN _cx_trace c USING (trace_id);
