-- Export table flow: flows (links) of a rank paired by category and id:
-- CPU launch -> GPU work (ac2g), forward -> backward (fwdbwd); by start
-- time (orphans without a start last, by end time).
-- Parameters: :trace_id, :base, :last, :run, :rank.
-- Output:
--   run             STRING  run
--   rank            INT64   rank
--   cat             STRING  normalized category ('ac2g', 'fwdbwd', ...)
--   flow_id         INT64   flow id (per category)
--   start_event_id  INT64   the 's' flow event (local event id), NULL when none
--   start_pid       INT64   its process
--   start_tid       INT64   its thread
--   start_ts        INT64   its time (ns)
--   end_event_id    INT64   the 'f' flow event (local event id), NULL when none
--   end_pid         INT64   its process
--   end_tid         INT64   its thread
--   end_ts          INT64   its time (ns)
--   events          INT64   's', 't' and 'f' events with this id
SELECT :run AS run, :rank AS rank, cat, flow_id, start_event_id - :base AS start_event_id,
  start_pid, start_tid, start_ts, end_event_id - :base AS end_event_id, end_pid, end_tid,
  end_ts, events
FROM (
  -- the flow view's pairing, over the trace's id range only
  SELECT (SELECT value FROM _string WHERE _string.id = f.cat_id) AS cat, f.flow_id,
    min(f.id) FILTER (WHERE f.ph = 's') AS start_event_id,
    min(f.pid) FILTER (WHERE f.ph = 's') AS start_pid,
    min(f.tid) FILTER (WHERE f.ph = 's') AS start_tid,
    min(f.ts) FILTER (WHERE f.ph = 's') AS start_ts,
    min(f.id) FILTER (WHERE f.ph = 'f') AS end_event_id,
    min(f.pid) FILTER (WHERE f.ph = 'f') AS end_pid,
    min(f.tid) FILTER (WHERE f.ph = 'f') AS end_tid,
    min(f.ts) FILTER (WHERE f.ph = 'f') AS end_ts,
    count(*) AS events
  FROM _flow f
  WHERE f.trace_id = :trace_id AND f.id > :base AND f.id <= :last
  GROUP BY f.cat_id, f.flow_id)
ORDER BY start_ts IS NULL, start_ts, end_ts, cat, flow_id;
