-- Measure: the FLOP-counted operator group with the most GPU time, when the device peak is known
-- (one row or none).
-- The FLOP-counted operator group (gemm_efficiency: name, shapes, dtype)
-- with the most GPU time, when the device's peak is known; for a
-- matrix multiply, the bytes it moves at least (op_elements: operands and
-- result once, times the element size) and the device's peak bandwidth:
-- the memory roofline (mem_ns).
-- Builds: measure_gemm_op_top
-- Reads: _string, device, measure_time, report_device_peak, report_dtype_bytes,
--   report_flop_op, report_gpu
CREATE TEMP TABLE measure_gemm_op_top (
  name        TEXT,     -- operator (display name)
  family      TEXT,     -- op_family of the operator
  input_dims  TEXT,     -- Input Dims
  dtype       TEXT,     -- data type
  source      TEXT,     -- the first user source line
  device_name TEXT,     -- device model
  device_ns   REAL,     -- its GPU time per rank step, ns
  peak_tflops REAL,     -- the device dense peak for the dtype, TFLOP/s
  peak_pct    REAL,     -- its achieved share of that peak, %
  gpu_ns      REAL,     -- all GPU activity per rank step, ns
  category    TEXT,     -- the kernel category of its op_family (GEMM, Convolution, Attention;
                        --   NULL otherwise)
  bytes       REAL,     -- matmul: bytes its calls move at least per rank step (NULL otherwise)
  bw_gbps     REAL,     -- the device's peak memory bandwidth, GB/s (NULL when unknown)
  mem_ns      REAL      -- bytes at that bandwidth: its time on the memory roofline per rank
                        --   step, ns (NULL when either is unknown)
) STRICT;
INSERT INTO measure_gemm_op_top
  SELECT profdb_display_name(n.value) AS name, op_family(n.value) AS family,
    f.input_dims, f.dtype, min(f.source) AS source, d.name AS device_name,
    sum(f.device_ns) / (SELECT 1.0 * max(rank_steps, 1) FROM measure_time) AS device_ns,
      p.tflops AS peak_tflops,
    100.0 * sum(f.flops) / 1000.0 / sum(f.device_ns) / p.tflops AS peak_pct,
    (SELECT sum(dur) FROM report_gpu) / (SELECT 1.0 * max(rank_steps,
      1) FROM measure_time) AS gpu_ns,
    NULL AS category,
    sum(op_elements(n.value, f.input_dims))
      * (SELECT b.bytes FROM report_dtype_bytes b WHERE b.dtype = f.dtype)
      / (SELECT 1.0 * max(rank_steps, 1) FROM measure_time) AS bytes,
    p.gbps AS bw_gbps,
    NULL AS mem_ns
  FROM report_flop_op f JOIN _string n ON n.id = f.name_id
  JOIN device d ON d.trace_id = f.trace_id AND d.device_id = f.device
  JOIN report_device_peak p ON p.trace_id = f.trace_id AND p.device_id = f.device AND p.dtype =
    f.dtype
  WHERE f.device_ns > 0
  GROUP BY n.value, f.input_dims, f.dtype, d.name, p.tflops, p.gbps
  ORDER BY device_ns DESC, name LIMIT 1;
UPDATE measure_gemm_op_top SET category = CASE family WHEN 'matmul' THEN 'GEMM'
  WHEN 'convolution' THEN 'Convolution' WHEN 'attention' THEN 'Attention' END,
  mem_ns = bytes / bw_gbps;
