-- Chrome export: the temporary tables one `profdb export --format chrome`
-- fills (export/export_chrome.c): the selected traces with their window,
-- and every thread and GPU stream of them with its new tid.
-- Output: none (creates TEMP tables _cx_trace and _cx_thread).
DROP TABLE IF EXISTS temp._cx_trace;
DROP TABLE IF EXISTS temp._cx_thread;
CREATE TEMP TABLE _cx_trace(
  -- trace id
  trace_id INTEGER PRIMARY KEY,
  -- pid of the rank's process in the output: the rank when the selected
  -- ranks are distinct, else 0.. by run and rank
  pid INTEGER,
  -- process_sort_index: 0.. by run and rank
  sort INTEGER,
  -- rank: distributedInfo.rank, else the number in the file name (else
  -- in its folder's name), else 0
  rank INTEGER NOT NULL,
  -- run (as profdb export names it: export/dataset/_traces.sql)
  run TEXT NOT NULL,
  -- the trace's label
  label TEXT,
  -- the trace's event ids are in (base, last]
  base INTEGER NOT NULL,
  last INTEGER NOT NULL,
  -- the window kept (ns, the trace's clock): events overlapping [lo, hi)
  lo INTEGER NOT NULL DEFAULT -9000000000000000000,
  hi INTEGER NOT NULL DEFAULT 9000000000000000000
);
CREATE TEMP TABLE _cx_thread(
  -- trace id
  trace_id INTEGER NOT NULL,
  -- pid and tid as in the trace
  pid NOT NULL,
  tid NOT NULL,
  -- tid in the output: 1.. per rank, CPU threads first, then GPU streams
  ntid INTEGER NOT NULL,
  -- thread_name in the output, e.g. 'rank 3 - GPU 0 stream 7'
  name TEXT NOT NULL,
  PRIMARY KEY(trace_id, pid, tid)
);
