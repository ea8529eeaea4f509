-- Export table python_function: Python frames of a rank (with_stack=True),
-- by time.
-- Parameters: :trace_id, :base, :last, :run, :rank.
-- Output:
--   run               STRING  run
--   rank              INT64   rank
--   event_id          INT64   the rank's local event id
--   name              STRING  'file.py(line): function'
--   pid               INT64   process
--   tid               INT64   thread
--   ts                INT64   start (ns)
--   dur               INT64   duration (ns)
--   self_dur          INT64   dur minus direct children (ns)
--   depth             INT64   nesting depth on the thread
--   parent_id         INT64   enclosing slice's local event id
--   step              INT64   ProfilerStep number, NULL outside steps
--   python_id         INT64   args 'Python id'
--   python_parent_id  INT64   args 'Python parent id'
SELECT :run AS run, :rank AS rank, event_id - :base AS event_id, name, pid, tid, ts, dur,
  self_dur, depth, parent_id - :base AS parent_id, step, python_id, python_parent_id
FROM python_function
WHERE trace_id = :trace_id AND event_id > :base AND event_id <= :last
ORDER BY ts, event_id;
