-- Runs: which traces are ranks of one job, so that ranks are compared only
-- with ranks of the same run (rank_sum, stragglers, findings).  Traces of
-- one run share their world size and overlap in time (their clocks are
-- the hosts' wall clocks, synchronized in a cluster).  Traces without a
-- rank or a world size are runs of their own.
--
-- Runs are islands of overlapping time windows among the traces of one
-- world size, in start order: a trace starts a new run when it starts
-- after every earlier trace of that world size has ended.

-- One row per reported trace.
--   trace_id   the trace
--   run        run key: 'ws<world_size>#<island>' or 'trace<trace_id>'
CREATE TEMP TABLE report_run(trace_id INTEGER PRIMARY KEY, run TEXT);
INSERT INTO report_run
SELECT trace_id,
  CASE WHEN world_size IS NULL OR rank IS NULL THEN 'trace' || trace_id
       ELSE 'ws' || world_size || '#' || sum(starts_run) OVER (
              PARTITION BY world_size ORDER BY start_ts, trace_id) END
FROM (SELECT trace_id, rank, world_size, start_ts,
        coalesce(start_ts > max(end_ts) OVER (PARTITION BY world_size ORDER BY start_ts, trace_id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 1) AS starts_run
      FROM report_trace);
