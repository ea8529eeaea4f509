-- Title: Critical path
-- Question: What sets the length of each step?  The longest path through
--   the graph of CPU operators, runtime calls, launches, GPU operations and
--   synchronizations (HolisticTraceAnalysis' CriticalPathAnalysis,
--   docs/definitions.md "Critical path"), broken down by kind: time in CPU
--   operators and runtime calls, launch delays (a launch call's start to its
--   operation's start on an idle stream), GPU operations by category, gaps
--   between operations of a stream, and how much sooner the step would end
--   with each kind's time halved (a replay of the graph).  Time off the
--   path can shrink without shortening the step.  The kernels of CUDA/HIP
--   graph launches count (HTA drops their launches).  With --scope hta:
--   HTA's graph, µs and ProfilerStep ranges.
-- Requires: report_cp_path_sum
-- Brief: label rank step path_ns kind ns pct if_halved_ns
-- Empty: no CPU operator or GPU operation in an analysed span, or each span holds over 1
--   million events (its graph is not built: memory, sqlext/critical_path.c)
-- Columns:
--   label      -      trace
--   rank       -      rank of the trace
--   step       -      ProfilerStep number (-1: the whole trace)
--   path_ns    ns     length of the critical path (sum of its edges)
--   kind       -      cpu_op, runtime (runtime calls), launch (launch delay), gpu:CATEGORY, kernel_kernel (gap between operations of a stream), sync / dependency (0-weight edges)
--   ns         ns     time of the path in this kind
--   pct        %      of path_ns
--   if_halved_ns ns   how much sooner the span would end with all of this kind's time halved (on or off the path), the trace replayed on the graph (docs/definitions.md "Replay"); empty for launch, kernel_kernel, sync, dependency and collective_wait
--   edges      count  edges of the path of this kind
--   top        -      the event of this kind with the most time on the path (its name; past 1,024 characters cut, with '…')
--   top_ns     ns     its time on the path
WITH n AS (  -- the path's edges summed per kind and name (lib/61)
  SELECT trace_id, step, kind, name_id, sum(ns) AS ns, sum(edges) AS edges FROM (
    SELECT trace_id, step, kind, name_id, ns, edges FROM report_cp_path_sum
    UNION ALL  -- (those attributed to an event outside the span, named here)
    SELECT trace_id, step, kind, name_id, w, edges FROM report_cp_path_kind WHERE run IS NULL)
  GROUP BY trace_id, step, kind, name_id
), k AS (
  SELECT trace_id, step, kind, sum(ns) AS ns, sum(edges) AS edges FROM n GROUP BY trace_id, step, kind
), t AS (
  SELECT trace_id, step, kind, name_id, ns,
    row_number() OVER (PARTITION BY trace_id, step, kind ORDER BY ns DESC, name_id) AS r
  FROM n
), len AS (
  SELECT trace_id, step, sum(ns) AS path_ns FROM k GROUP BY trace_id, step
)
SELECT w.label, w.rank, k.step, l.path_ns, k.kind, k.ns,
  round(100.0 * k.ns / nullif(l.path_ns, 0), 2) AS pct, r.sooner_ns AS if_halved_ns, k.edges,
  CASE WHEN t.ns > 0 THEN (SELECT CASE WHEN length(name) > 1024  -- a row a kind and step:
                                      THEN substr(name, 1, 1024) || '…'  -- names cut short
                                      ELSE name END
                           FROM report_name WHERE name_id = t.name_id) END AS top,
  CASE WHEN t.ns > 0 THEN t.ns END AS top_ns
FROM k JOIN len l USING (trace_id, step) JOIN report_window w USING (trace_id)
LEFT JOIN t ON t.trace_id = k.trace_id AND t.step = k.step AND t.kind = k.kind AND t.r = 1
LEFT JOIN report_cp_replay r
  ON r.trace_id = k.trace_id AND r.step = k.step AND r.kind = k.kind AND r.keep = 0.5
ORDER BY w.rank, k.trace_id, k.step, k.ns DESC, k.kind;
