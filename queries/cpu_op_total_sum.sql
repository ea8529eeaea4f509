-- Title: Top CPU operators by total time
-- Question: Which operators take the most time including what they call
--   (nested times overlap: aten::linear includes its aten::addmm)?
-- Requires: report_op_stats
-- Parameters: :top
-- Empty: the trace has no CPU operators
-- Columns:
--   total_dur_ns  ns     total time including nested work
--   calls         count  calls
--   avg_dur_ns    ns     mean duration
--   max_dur_ns    ns     longest call
--   self_dur_ns   ns     total self time
--   family        -      op_family()
--   name          symbol operator name
SELECT total_dur AS total_dur_ns, calls, CAST(round(1.0 * total_dur / calls) AS INTEGER) AS avg_dur_ns,
  max_dur AS max_dur_ns, self_dur AS self_dur_ns, op_family(name) AS family, name
FROM report_op_stats ORDER BY total_dur_ns DESC, name LIMIT :top;
