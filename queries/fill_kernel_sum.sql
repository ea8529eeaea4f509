-- Title: Fill and zero kernels by the launching op's input shapes
-- Question: Which tensor allocations are being zero-filled or filled, and
--   at what cost?  (Large fills often mean buffers allocated every step.)
-- Requires: report_gpu
-- Parameters: :top
-- Empty: no fill or zero kernels ran (FillFunctor, fill_, memset kernels)
-- Columns:
--   op            symbol CPU op that launched the fills (NULL: unknown)
--   input_dims    -      its Input Dims (record_shapes=True), NULL when not recorded
--   kernels       count  fill kernels
--   total_dur_ns  ns     total time
--   avg_dur_ns    ns     mean duration
--   pct_gpu       %      share of all GPU activity time
SELECT profdb_display_name(n.value) AS op, o.input_dims, count(*) AS kernels, sum(g.dur) AS total_dur_ns,
  CAST(round(avg(g.dur)) AS INTEGER) AS avg_dur_ns,
  round(100.0 * sum(g.dur) / (SELECT sum(dur) FROM report_gpu), 2) AS pct_gpu
FROM report_gpu g LEFT JOIN _slice o ON o.id = g.op_id LEFT JOIN _string n ON n.id = o.name_id
WHERE g.kind = 'kernel' AND g.is_fill
GROUP BY o.name_id, o.input_dims ORDER BY total_dur_ns DESC, op, o.input_dims LIMIT :top;
