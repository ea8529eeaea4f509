-- Chrome export: GPU-side duration events (kernels, copies, fills, GPU
-- annotations, synchronization) overlapping each trace's window, on
-- their rank's process, one thread per stream; args as written (typed
-- args back under their Kineto names: grid, block, stream, correlation,
-- ...); cut events marked as in slices.sql.
-- The CROSS JOINs keep the order: the trace's id range, then each row's
-- thread by its key (no automatic index over the events).
-- Output:
--   ts    start (ns, the trace's clock)
--   dur   duration (ns)
--   body  the event without ts and dur, as a JSON object
SELECT g.ts, g.dur,
  json_patch('{}', json_object('ph', 'X',
    'cat', (SELECT value FROM _string WHERE id = g.raw_cat_id),
    'name', (SELECT value FROM _string WHERE id = g.name_id),
    'pid', c.pid, 'tid', t.ntid,
    'args', json_patch(coalesce(g.args, '{}'), json_object(
      'External id', g.external_id, 'device', g.device, 'stream', g.stream,
      'correlation', g.correlation, 'registers per thread', g.registers,
      'shared memory', g.shared_memory, 'blocks per SM', g.blocks_per_sm,
      'warps per SM', g.warps_per_sm,
      'grid', json(CASE WHEN g.grid_x IS NOT NULL
                        THEN json_array(g.grid_x, g.grid_y, g.grid_z) END),
      'block', json(CASE WHEN g.block_x IS NOT NULL
                         THEN json_array(g.block_x, g.block_y, g.block_z) END),
      'est. achieved occupancy %', g.occupancy_pct, 'bytes', g.bytes,
      'memory bandwidth (GB/s)', g.bandwidth_gbps,
      'profdb.cut', CASE WHEN g.ts < c.lo AND g.ts + g.dur > c.hi THEN 'both'
                         WHEN g.ts < c.lo THEN 'start'
                         WHEN g.ts + g.dur > c.hi THEN 'end' END)))) AS body
FROM _cx_trace c
CROSS JOIN _gpu g ON g.id > c.base AND g.id <= c.last
CROSS JOIN _cx_thread t ON t.trace_id = c.trace_id AND t.pid = g.pid AND t.tid = g.tid
WHERE g.ts < c.hi AND (g.ts + g.dur > c.lo OR g.ts >= c.lo) AND g.dur >= 0;
