-- Title: Model FLOPs utilization per step
-- Question: What share of the GPU's peak does each step reach on the
--   counted operators (gemm_efficiency)?  Each outermost counted call
--   (aten::linear, not also its aten::addmm) adds FLOPs / peak of its dtype,
--   the time it would take at peak; MFU is that time over the step's span.
--   Element-wise, normalization and communication work is not counted, so
--   this is a lower bound of the FLOPs the model did.
-- Requires: report_flop_op report_device_peak
-- Empty: no counted operator ran on a GPU model of the peak table
--   (lib/58_flops.sql), or the trace records no shapes (record_shapes=True)
-- Columns:
--   trace            -      trace label
--   step             -      ProfilerStep number (NULL: a trace without steps)
--   span_ns          ns     the step's span (step_time)
--   counted_flops    count  FLOPs of the outermost counted calls on devices of known peak
--   uncounted_calls  count  counted calls of a dtype or device without a known peak (left out)
--   achieved_tflops  -      counted FLOPs / span, in 10^12 per second
--   mfu_pct          %      time the counted FLOPs take at peak, as a share of the span
SELECT w.label AS trace, s.step, s.end_ts - s.ts AS span_ns,
  sum(f.flops) FILTER (WHERE p.tflops IS NOT NULL) AS counted_flops,
  count(*) FILTER (WHERE p.tflops IS NULL) AS uncounted_calls,
  round(sum(f.flops) FILTER (WHERE p.tflops IS NOT NULL) / 1000.0 / (s.end_ts - s.ts), 2) AS achieved_tflops,
  round(100.0 * sum(f.flops / 1000.0 / p.tflops) / (s.end_ts - s.ts), 2) AS mfu_pct
FROM report_span s JOIN report_window w USING (trace_id)
JOIN report_flop_op f ON f.trace_id = s.trace_id AND f.outermost
  AND (s.step IS NULL OR f.step = s.step)
LEFT JOIN report_device_peak p ON p.trace_id = f.trace_id AND p.device_id = f.device AND p.dtype = f.dtype
GROUP BY s.k HAVING sum(p.tflops IS NOT NULL) > 0
ORDER BY w.rank, w.trace_id, s.ts;
