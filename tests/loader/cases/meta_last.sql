-- M events come last; they are bound at the end; for a repeated
-- thread_name the last one wins
SELECT pid, name, labels, sort_index FROM process ORDER BY pid;
SELECT pid, tid, name, sort_index FROM thread ORDER BY pid, tid;
SELECT name, pid, tid, ts, args FROM metadata_event ORDER BY event_id;
