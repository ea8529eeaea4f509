-- Title: Achieved FLOP/s of matrix multiplies, convolutions and attention
-- Question: How fast do the FLOP-heavy operators run against the GPU's
--   peak?  FLOPs come from the recorded shapes (op_flops(): 2 per
--   multiply-add) of aten::mm, addmm, bmm, baddbmm, matmul, linear,
--   convolution, convolution_backward and scaled_dot_product_attention;
--   time is the GPU time of the kernels each call launched (its own and its
--   nested operators').  Other operators are not counted.  Peak: the
--   documented table in lib/58_flops.sql (dense TFLOP/s per GPU model and
--   operand type).
-- Requires: report_flop_op
-- Brief: name input_dims dtype calls device_ns achieved_tflops peak_pct nested_calls
-- Parameters: :top
-- Empty: no counted operator with recorded shapes launched GPU work; profile
--   with record_shapes=True and ProfilerActivity.CUDA
-- Columns:
--   name              symbol operator name
--   input_dims        -      "Input Dims" of the calls
--   dtype             -      operand type: bf16, fp16, fp32, fp64 (from "Input type"; of the counted call inside that ran its GPU work: under autocast aten::linear takes fp32, its aten::addmm runs in bf16 or fp16)
--   calls             count  calls
--   flops_per_call    count  FLOPs of one call (op_flops())
--   device_ns         ns     GPU time of the work the calls launched
--   achieved_tflops   -      FLOPs / GPU time, in 10^12 per second
--   peak_tflops       -      the device's peak for that dtype (NULL: model or dtype not in the table)
--   peak_pct          %      achieved_tflops as a share of the peak
--   source            source first user-code frame of the calls' Python stacks (NULL without with_stack)
--   device_name       -      the GPU (device.name)
--   nested_calls      count  calls inside another counted call (aten::addmm inside aten::linear): their FLOPs and time are in that call's row too, so add up only rows where this is 0
SELECT profdb_display_name(n.value) AS name, f.input_dims, f.dtype, count(*) AS calls,
  max(f.flops) AS flops_per_call, sum(f.device_ns) AS device_ns,
  round(sum(f.flops) / 1000.0 / sum(f.device_ns), 2) AS achieved_tflops, p.tflops AS peak_tflops,
  round(100.0 * sum(f.flops) / 1000.0 / sum(f.device_ns) / p.tflops, 2) AS peak_pct,
  min(f.source) AS source,
  coalesce(d.name, p.name || iif(p.assumed, ' (assumed)', '')) AS device_name,
  sum(NOT f.outermost) AS nested_calls
FROM report_flop_op f JOIN _string n ON n.id = f.name_id
LEFT JOIN device d ON d.trace_id = f.trace_id AND d.device_id = f.device
LEFT JOIN report_device_peak p ON p.trace_id = f.trace_id AND p.device_id = f.device AND p.dtype = f.dtype
WHERE f.device_ns > 0
GROUP BY n.value, f.input_dims, f.dtype, d.name, p.name, p.tflops
ORDER BY device_ns DESC, name, f.input_dims LIMIT :top;
