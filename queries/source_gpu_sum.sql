-- Title: GPU time per source line
-- Question: Which lines of my code launch the GPU time?  Each kernel, copy
--   and fill is charged to the first user-code frame of the Python stack of
--   the operator that launched it (frame_rank(): the user's .py files
--   before installed packages before PyTorch; innermost first), as
--   TensorBoard's call-stack view does for operators.
-- Requires: report_launch_source
-- Parameters: :top
-- Empty: the trace has no Python stacks for the launching operators;
--   profile with with_stack=True to record them
-- Columns:
--   source           source 'file:line function' of the frame ('(no Python frame)': launched with no .py frame on the stack, e.g. from autograd's backward threads)
--   device_total_ns  ns     GPU time of the work launched under it
--   device_pct       %      share of the GPU time of the scope
--   activities       count  kernels, copies and fills launched
--   operators        count  launching operator calls
--   top_op           symbol the operator name launching the most GPU time there
WITH charged AS (
  SELECT coalesce(s.source, '(no Python frame)') AS source, l.op_id, l.gpu_ns, l.activities, o.name_id
  FROM report_launch l JOIN _slice o ON o.id = l.op_id
  LEFT JOIN report_launch_source s USING (op_id)
  WHERE EXISTS (SELECT 1 FROM report_launch_source)
), top AS (
  SELECT source, name_id, row_number() OVER (PARTITION BY source ORDER BY sum(gpu_ns) DESC, name_id) AS rn
  FROM charged GROUP BY source, name_id
)
SELECT c.source, sum(c.gpu_ns) AS device_total_ns,
  round(100.0 * sum(c.gpu_ns) / nullif((SELECT sum(dur) FROM report_gpu), 0), 2) AS device_pct,
  sum(c.activities) AS activities, count(*) AS operators,
  (SELECT profdb_display_name(n.value) FROM top t JOIN _string n ON n.id = t.name_id WHERE t.source = c.source AND t.rn = 1) AS top_op
FROM charged c GROUP BY c.source
ORDER BY device_total_ns DESC, c.source LIMIT :top;
