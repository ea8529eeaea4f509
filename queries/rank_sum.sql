-- Title: Ranks and stragglers
-- Question: With several ranks of one run loaded, which rank reaches the
--   collectives late and makes the others wait?  Each collective call is
--   matched across the ranks of its process group (lib/50_collectives.sql);
--   a rank that arrives last makes every peer wait inside its collective
--   kernel, so the straggler is the rank that arrives late, not the one
--   with the longest steps (those belong to the ranks that waited).
-- Requires: report_straggler
-- Empty: fewer than two ranks of one run are loaded, or their collective
--   kernels cannot be matched; load every rank's trace into one database
--   (profdb load run_dir/ -o run.db) to compare ranks
-- Columns:
--   run               -      run the rank belongs to (lib/12_runs.sql)
--   rank              -      distributed rank
--   label             -      trace
--   mean_wall_ns      ns     mean analysed step time
--   collectives       count  steady collective calls matched with the other ranks
--   mean_lateness_ns  ns     mean arrival after the first rank to arrive
--   mean_wait_ns      ns     mean wait inside its collective kernels for the last rank
--   last_arrivals     count  collective calls this rank reached last, alone or tied (none when every rank arrives together)
--   late_ns           ns     sum over its collective calls of its arrival after the median rank's
--   straggler         -      'yes' when late_ns is at least half the largest late_ns of its run and 1% of the rank's analysed time
--   tied_last         count  of last_arrivals, the calls it reached last tied with another rank
--   startup_calls     count  start-up calls left out of the figures above (no ProfilerSteps: the first calls, while their arrival spread is outlying; one-time skew)
SELECT s.run, s.rank, w.label,
  (SELECT CAST(round(avg(t.wall_ns)) AS INTEGER) FROM report_step_time t
   WHERE t.trace_id = s.trace_id) AS mean_wall_ns,
  s.collectives, CAST(round(s.mean_lateness_ns) AS INTEGER) AS mean_lateness_ns,
  CAST(round(s.mean_wait_ns) AS INTEGER) AS mean_wait_ns, s.last_arrivals, s.late_ns,
  CASE WHEN s.straggler THEN 'yes' ELSE 'no' END AS straggler, s.tied_last, s.startup_calls
FROM report_straggler s JOIN report_window w USING (trace_id)
ORDER BY s.run, s.rank, s.trace_id;
