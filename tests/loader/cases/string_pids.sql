-- pid/tid keep their JSON type: integers stay integers, strings stay text
SELECT kind, name, pid, typeof(pid) AS pid_type, tid, typeof(tid) AS tid_type
FROM event ORDER BY event_id;
-- GPU rows take device/stream from args, not from the string tid
SELECT name, device, stream, launch_id, op_id FROM kernel;
SELECT pid, tid, name, sort_index FROM thread ORDER BY typeof(pid), pid, typeof(tid), tid;
SELECT pid, typeof(pid), name, sort_index FROM process ORDER BY typeof(pid), pid;
