-- Title: Top CPU operators by self time
-- Question: Which operators keep the CPU busy themselves (time not spent in
--   nested operators, Python frames or runtime calls)?
-- Requires: report_op_stats
-- Parameters: :top
-- Empty: the trace has no CPU operators
-- Columns:
--   self_dur_ns   ns     total self time
--   self_pct      %      share of the self time of all operators
--   total_dur_ns  ns     total time including nested work
--   calls         count  calls
--   avg_dur_ns    ns     mean duration including nested work
--   family        -      op_family()
--   name          symbol operator name
SELECT self_dur AS self_dur_ns,
  round(100.0 * self_dur / (SELECT sum(self_dur) FROM report_op_stats), 2) AS self_pct,
  total_dur AS total_dur_ns, calls, CAST(round(1.0 * total_dur / calls) AS INTEGER) AS avg_dur_ns,
  op_family(name) AS family, name
FROM report_op_stats ORDER BY self_dur_ns DESC, name LIMIT :top;
