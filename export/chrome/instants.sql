-- Chrome export: instants (ph i / I, e.g. [memory] allocator events) and
-- counters (ph C) inside each trace's window.  Other phases (B/E pairs,
-- async n) are not written: half of a pair cut by the window would not
-- open.
-- The CROSS JOINs keep the order: the trace's id range, then each row's
-- thread by its key (no automatic index over the events).
-- Output:
--   ts    time (ns, the trace's clock)
--   dur   NULL
--   body  the event without ts, as a JSON object
SELECT i.ts, NULL AS dur,
  json_patch('{}', json_object('ph', i.ph,
    'cat', (SELECT value FROM _string WHERE id = i.raw_cat_id),
    'name', (SELECT value FROM _string WHERE id = i.name_id),
    'pid', c.pid, 'tid', t.ntid, 's', i.scope,
    'args', json_patch(coalesce(i.args, '{}'), json_object(
      'Device Type', i.device_type, 'Device Id', i.device_id, 'Addr', i.addr,
      'Bytes', i.bytes, 'Total Allocated', i.total_allocated,
      'Total Reserved', i.total_reserved)))) AS body
FROM _cx_trace c
CROSS JOIN _instant i ON i.id > c.base AND i.id <= c.last
CROSS JOIN _cx_thread t ON t.trace_id = c.trace_id AND t.pid = i.pid AND t.tid = i.tid
WHERE i.ph IN ('i', 'I', 'C') AND i.ts >= c.lo AND i.ts < c.hi;
