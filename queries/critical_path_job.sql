-- Title: Critical path of the job
-- Question: With several ranks of one run loaded, what sets the length of
--   each of the job's steps?  The ranks' critical-path graphs joined at
--   their collectives: a collective kernel moves no data before the last
--   rank arrives, so the path reaches it along the late rank's work, or,
--   when that rank was late in gaps the graph weighs 0, along a peer's
--   wait (collective_wait); then the transfer and whatever rank's work
--   follows (docs/definitions.md, "Critical path of a job").  Never shorter
--   than a rank's own critical path.  Broken down by rank and kind.  The
--   ranks' clocks are taken as one.
-- Requires: report_cp_path report_cp_job_span
-- Empty: fewer than two distinct ranks of one run (a trace each) share an
--   analysed step; or
--   --scope hta (HTA has no job path); or every job step holds over 200,000
--   events, all its ranks together (memory: report on fewer ranks' traces)
-- Columns:
--   run        -      run the ranks belong to (lib/12_runs.sql)
--   step       -      ProfilerStep number (-1: the whole traces)
--   path_ns    ns     length of the job's critical path (sum of its edges)
--   ranks      count  ranks whose events carry time on the path
--   rank       -      rank whose events these edges are attributed to (empty for 0-weight dependency edges)
--   kind       -      cpu_op, runtime, launch, gpu:CATEGORY, kernel_kernel, sync / dependency, as in critical_path (a collective's gpu time is its transfer after the last arrival); collective_wait: this rank's wait inside a collective for the last rank
--   ns         ns     time of the path on this rank in this kind
--   pct        %      of path_ns
--   edges      count  edges of the path on this rank of this kind
--   top        -      the event of this rank and kind with the most time on the path (its name; past 1,024 characters cut, with '…')
--   top_ns     ns     its time on the path
WITH e AS (
  SELECT x.run, x.step, x.w, x.kind, x.name_id, t.rank
  FROM report_cp_path_kind x LEFT JOIN report_trace t ON t.trace_id = x.ev_trace
  WHERE x.run IS NOT NULL
), n AS (  -- one pass over the path's edges; the rest sums these rows
  SELECT run, step, rank, kind, name_id, sum(w) AS ns, count(*) AS edges
  FROM e GROUP BY run, step, rank, kind, name_id
), k AS (
  SELECT run, step, rank, kind, sum(ns) AS ns, sum(edges) AS edges
  FROM n GROUP BY run, step, rank, kind
), t AS (
  SELECT run, step, rank, kind, name_id, ns,
    row_number() OVER (PARTITION BY run, step, rank, kind ORDER BY ns DESC, name_id) AS r
  FROM n
), len AS (
  SELECT run, step, sum(ns) AS path_ns, count(DISTINCT rank) FILTER (WHERE ns > 0) AS ranks
  FROM k GROUP BY run, step
)
SELECT k.run, k.step, l.path_ns, l.ranks, k.rank, k.kind, k.ns,
  round(100.0 * k.ns / nullif(l.path_ns, 0), 2) AS pct, k.edges,
  CASE WHEN t.ns > 0 THEN (SELECT CASE WHEN length(name) > 1024  -- a row a rank, kind and step:
                                      THEN substr(name, 1, 1024) || '…'  -- names cut short
                                      ELSE name END
                           FROM report_name WHERE name_id = t.name_id) END AS top,
  CASE WHEN t.ns > 0 THEN t.ns END AS top_ns
FROM k JOIN len l USING (run, step)
LEFT JOIN t ON t.run = k.run AND t.step = k.step AND t.rank IS k.rank AND t.kind = k.kind
  AND t.r = 1
ORDER BY k.run, k.step, k.ns DESC, k.rank, k.kind;
