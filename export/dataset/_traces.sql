-- Export: the traces of the database, each with its run and the ids that
-- make its event ids local (profdb export).
--
-- Runs: --run NAME (:run) for every trace when given; else the trace's
-- own 'profdb.run' (profdb load --run NAME); else, as queries/lib/12_runs.sql
-- groups them, islands of overlapping time windows among traces of one
-- world size, named 'ws<world_size>-<island>' ('local-<island>' without a
-- world size): path-safe names, so that a rank's task and the database of
-- all ranks agree for one job.
-- Event ids are unique in a database, not in a trace: the events of one
-- trace are numbered consecutively, so id - base numbers them 1.. in the
-- file's order, the same whether the trace was loaded alone or with others.
-- The table queries also read only ids in (base, last]: a rowid range, so
-- that a database of many traces is not scanned once per trace.
-- Output:
--   trace_id   INT64   the trace in this database
--   label      STRING  the trace's label (file name without .json[.gz])
--   run        STRING  the run
--   rank_source STRING trace.rank_source: where its load found the rank
--   rank       INT64   trace.rank, decided at load (docs/definitions.md#ranks)
--   base       INT64   the trace's smallest event id minus 1
--   last       INT64   the trace's largest event id
WITH ids(trace_id, lo, hi) AS (
  SELECT trace_id, min(id), max(id) FROM _slice GROUP BY trace_id
  UNION ALL SELECT trace_id, min(id), max(id) FROM _gpu GROUP BY trace_id
  UNION ALL SELECT trace_id, min(id), max(id) FROM _instant GROUP BY trace_id
  UNION ALL SELECT trace_id, min(id), max(id) FROM _flow GROUP BY trace_id
  UNION ALL SELECT trace_id, min(id), max(id) FROM _meta GROUP BY trace_id),
range(trace_id, lo, hi) AS (
  SELECT trace_id, min(lo), max(hi) FROM ids GROUP BY trace_id)
SELECT t.trace_id, t.label,
  coalesce(:run, t.named,
    coalesce('ws' || t.world_size, 'local') || '-' || sum(t.starts_run) OVER (
      PARTITION BY t.named IS NULL, t.world_size ORDER BY t.start_ts, t.trace_id)) AS run,
  t.rank_source, t.rank,
  coalesce(r.lo, 1) - 1 AS base, coalesce(r.hi, 0) AS last
FROM (SELECT t.trace_id, t.label, t.rank_source, t.rank, t.world_size, t.start_ts, m.named,
        coalesce(t.start_ts > max(t.end_ts) OVER (
                   PARTITION BY m.named IS NULL, t.world_size
                   ORDER BY t.start_ts, t.trace_id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 1) AS starts_run
      FROM trace t
      LEFT JOIN (SELECT trace_id, json_extract(value, '$') AS named FROM trace_metadata
                 WHERE key = 'profdb.run') m USING (trace_id)) t
LEFT JOIN range r USING (trace_id)
ORDER BY t.trace_id;
