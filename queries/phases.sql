-- Title: Training phases per step
-- Question: How does each step divide into data loading, forward, backward
--   and optimizer on the CPU?  Phase boundaries come from the annotations
--   present: backward starts at the first autograd-engine event
--   (autograd::engine::evaluate_function, *Backward0 nodes), the optimizer
--   at the first Optimizer.step#... range after it (zero_grad at the start
--   of a step is not the optimizer phase); data loading is the time covered
--   by enumerate(DataLoader)... ranges.  The parts sum to the CPU step.
-- Requires: report_op_thread
-- Empty: the trace has no CPU events in the analysed steps
-- Columns:
--   label           -      trace
--   step            -      ProfilerStep number (empty: the whole trace)
--   wall_ns         ns     the step's CPU range (ProfilerStep#N)
--   dataloader_ns   ns     data loading
--   forward_ns      ns     from the step start to the backward (or optimizer) start, minus data loading
--   backward_ns     ns     from the first backward event to the optimizer start (or step end)
--   optimizer_ns    ns     from the optimizer step to the step end
--   markers         -      which boundaries were found: backward, optimizer (empty: none)
WITH cpu_range AS (
  SELECT trace_id, step, ts, ts + dur AS end_ts FROM report_step
  UNION ALL
  SELECT trace_id, NULL, ts, end_ts FROM report_window WHERE whole
), bwd AS (
  SELECT trace_id, step, min(ts) AS bwd FROM report_marker WHERE backward
  GROUP BY trace_id, step
), opt AS (
  SELECT c.trace_id, c.step, min(c.ts) AS opt FROM report_marker c
  LEFT JOIN bwd b ON b.trace_id = c.trace_id AND b.step IS c.step
  WHERE c.optimizer AND c.ts >= coalesce(b.bwd, c.ts)
  GROUP BY c.trace_id, c.step
), dl AS (
  SELECT r.trace_id, r.step, interval_union(max(c.ts, r.ts), min(c.ts + c.dur, r.end_ts)) AS dl
  FROM report_marker c JOIN cpu_range r ON r.trace_id = c.trace_id AND r.step IS c.step
  WHERE c.dataloader AND c.ts < r.end_ts AND c.ts + c.dur > r.ts
  GROUP BY r.trace_id, r.step
), marks AS (
  SELECT r.*, b.bwd, o.opt, coalesce(d.dl, 0) AS dl
  FROM cpu_range r
  LEFT JOIN bwd b ON b.trace_id = r.trace_id AND b.step IS r.step
  LEFT JOIN opt o ON o.trace_id = r.trace_id AND o.step IS r.step
  LEFT JOIN dl d ON d.trace_id = r.trace_id AND d.step IS r.step
), parts AS (
  SELECT *, coalesce(bwd, opt, end_ts) AS fwd_end, coalesce(opt, end_ts) AS bwd_end FROM marks
)
SELECT w.label, p.step, p.end_ts - p.ts AS wall_ns, p.dl AS dataloader_ns,
  max(p.fwd_end - p.ts - p.dl, 0) AS forward_ns,
  CASE WHEN p.bwd IS NOT NULL THEN p.bwd_end - p.bwd ELSE 0 END AS backward_ns,
  CASE WHEN p.opt IS NOT NULL THEN p.end_ts - p.opt ELSE 0 END AS optimizer_ns,
  trim(CASE WHEN p.bwd IS NOT NULL THEN 'backward ' ELSE '' END
       || CASE WHEN p.opt IS NOT NULL THEN 'optimizer' ELSE '' END) AS markers
FROM parts p JOIN report_window w USING (trace_id)
ORDER BY w.rank, p.trace_id, p.step;
