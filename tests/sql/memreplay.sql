-- load: data/mem_wrap_start.json data/mem_pre_window_frees.json data/mem_requested_only.json data/mem_two_devices.json data/mem_address_reuse.json data/mem_realloc_live.json data/trace_memory.json
-- Peak replay on hand-made snapshots; every value below was computed by
-- hand from the fixture (see tests/real/check_memreplay.py for the same
-- cases against an independent implementation).
.mode list
-- wrap_start: the first entry frees a block allocated before the window
-- (1000 B); block 0x3000 is live and never seen (700 B): baseline 1700
SELECT 'wrap_01', group_concat(allocated, ' ') FROM mem_timeline(1, 0);
SELECT 'wrap_02', * FROM mem_peak(1, 0);
SELECT 'wrap_03', addr, size, alloc_seq FROM mem_live_at(1, 0, 2);
SELECT 'wrap_04', addr, size, alloc_seq FROM mem_live_at(1, 0, -1);
-- frees of pre-window blocks in the middle: baseline 3000 + 5000
SELECT 'prefree_01', group_concat(allocated, ' ') FROM mem_timeline(2, 0);
SELECT 'prefree_02', * FROM mem_peak(2, 0);
-- free_requested without free_completed frees nothing
SELECT 'requested_01', seq, action, allocated, reserved FROM mem_timeline(3, 0);
SELECT 'requested_02', * FROM mem_peak(3, 0);
-- two devices, an oom entry on device 1 changes nothing
SELECT 'dev_01', group_concat(allocated, ' ') FROM mem_timeline(4, 0);
SELECT 'dev_02', group_concat(allocated, ' ') FROM mem_timeline(4, 1);
SELECT 'dev_03', * FROM mem_peak(4, 1);
SELECT 'dev_04', count(*) FROM mem_timeline(4, 2);
-- address reuse with different sizes
SELECT 'reuse_01', group_concat(allocated, ' ') FROM mem_timeline(5, 0);
SELECT 'reuse_02', * FROM mem_peak(5, 0);
-- a second alloc at a live address leaves the first allocated
SELECT 'realloc_01', group_concat(allocated, ' ') FROM mem_timeline(6, 0);
SELECT 'realloc_02', addr, size, alloc_seq FROM mem_live_at(6, 0, 1);
-- a trace's [memory] events: one row per device (CPU is type 0, id -1)
SELECT 'trace_01', * FROM mem_trace_peak(1);
-- no rows for unknown ids and NULL arguments; errors for the rest
SELECT 'none_01', count(*) FROM mem_timeline(99, 0);
SELECT 'none_02', count(*) FROM mem_peak(99, 0);
SELECT 'none_03', count(*) FROM mem_live_at(1, 0, NULL);
SELECT 'none_04', count(*) FROM mem_trace_peak(99);
SELECT 'none_05', count(*) FROM mem_peak(NULL, 0);
SELECT 'err_01', count(*) FROM mem_peak('one', 0);
SELECT 'err_02', count(*) FROM mem_peak(1);
SELECT 'err_03', count(*) FROM mem_peak;
SELECT 'err_04', count(*) FROM mem_live_at(1, 0, 1.5);
-- the functions join like tables
SELECT 'join_01', s.snapshot_id, p.peak_allocated FROM snapshot s, mem_peak(s.snapshot_id, 0) p
ORDER BY s.snapshot_id;
-- the optional last argument reads another attached database (profdb diff)
ATTACH ':memory:' AS empty;
SELECT 'schema_01', (SELECT group_concat(peak_allocated || '/' || baseline) FROM mem_peak(2, 0))
  = (SELECT group_concat(peak_allocated || '/' || baseline) FROM mem_peak(2, 0, 'main'));
SELECT 'schema_02', count(*) FROM mem_peak(2, 0, 'empty');
SELECT 'schema_03', count(*) FROM mem_timeline(1, 0, 'nosuchdb');
SELECT 'schema_04', count(*) FROM mem_trace_peak(1, 'main');
SELECT 'schema_05', count(*) FROM mem_peak(2, 0, 3);
