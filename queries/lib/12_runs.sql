-- Runs: which traces are ranks of one job, so that ranks are compared only
-- with ranks of the same run (rank_sum, stragglers, findings).  Traces of
-- one run share their world size and overlap in time (their clocks are
-- the hosts' wall clocks, synchronized in a cluster).  Traces without a
-- world size (no distributedInfo; their rank from load --rank or their
-- file or folder name: docs/definitions.md#ranks) are grouped alike among
-- themselves, as profdb export groups them (export/dataset/_traces.sql).
--
-- A trace loaded with profdb load --run NAME belongs to run NAME
-- (trace_metadata key 'profdb.run').  The others: islands of overlapping
-- time windows among the traces of one world size, in start order: a
-- trace starts a new run when it starts after every earlier trace of that
-- world size has ended.

-- One row per reported trace.
--   trace_id   the trace
--   run        run key: the --run NAME, 'ws<world_size>#<island>', or
--              'local#<island>' without a world size
CREATE TEMP TABLE report_run(trace_id INTEGER PRIMARY KEY, run TEXT);
INSERT INTO report_run
SELECT trace_id,
  CASE WHEN named IS NOT NULL THEN named
       ELSE coalesce('ws' || world_size, 'local') || '#' || sum(starts_run) OVER (
              PARTITION BY named IS NULL, world_size ORDER BY start_ts, trace_id) END
FROM (SELECT t.trace_id, t.world_size, t.start_ts, m.named,
        coalesce(t.start_ts > max(t.end_ts) OVER (PARTITION BY m.named IS NULL, t.world_size
                   ORDER BY t.start_ts, t.trace_id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 1) AS starts_run
      FROM report_trace t
      LEFT JOIN (SELECT trace_id, json_extract(value, '$') AS named FROM trace_metadata
                 WHERE key = 'profdb.run') m USING (trace_id));
