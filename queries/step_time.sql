-- Title: Step time breakdown
-- Question: How long is each step, how busy is the GPU, and what fills the
--   time?  The parts sum to the wall time (TensorBoard's priority order:
--   kernel > memcpy > memset > communication > runtime > data loading >
--   CPU > other).
-- Requires: report_step_time
-- Empty: no trace is loaded
-- Brief: label step wall_ns gpu_busy_ns gpu_idle_pct kernel_ns communication_ns cpu_ns
-- Chart: stack x=rank,step parts=kernel_ns,memcpy_ns,memset_ns,communication_ns,runtime_ns,dataloader_ns,cpu_ns,other_ns
-- Columns:
--   label            -      trace
--   rank             -      the trace's rank (empty: not a distributed run)
--   step             -      ProfilerStep number (empty: the whole trace, which has no steps)
--   wall_ns          ns     step span: CPU range extended to the end of the GPU work it launched
--   gpu_busy_ns      ns     time with at least one kernel, copy or fill on any stream
--   gpu_idle_pct     %      share of the step with the GPU idle
--   kernel_ns        ns     time attributed to kernels (not communication)
--   memcpy_ns        ns     time attributed to copies
--   memset_ns        ns     time attributed to fills
--   communication_ns ns     time attributed to collective kernels
--   runtime_ns       ns     time attributed to CUDA runtime calls
--   dataloader_ns    ns     time attributed to data loading
--   cpu_ns           ns     time attributed to other CPU work
--   other_ns         ns     time with nothing recorded
SELECT w.label, w.rank, t.step, t.wall_ns, t.u4 AS gpu_busy_ns,
  round(100.0 * (t.wall_ns - t.u4) / max(t.wall_ns, 1), 2) AS gpu_idle_pct,
  t.u1 AS kernel_ns, t.u2 - t.u1 AS memcpy_ns, t.u3 - t.u2 AS memset_ns,
  t.u4 - t.u3 AS communication_ns, t.u5 - t.u4 AS runtime_ns,
  t.u6 - t.u5 AS dataloader_ns, t.u7 - t.u6 AS cpu_ns, t.wall_ns - t.u7 AS other_ns
FROM report_step_time t JOIN report_window w USING (trace_id)
ORDER BY w.rank, t.trace_id, t.step;
