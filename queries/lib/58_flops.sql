-- Achieved FLOP/s: the operators whose FLOPs op_flops() counts from their
-- recorded shapes, with the GPU time of the work they launched, and the
-- peak of the device they ran on.  Computed for gemm_efficiency, mfu_step
-- and the findings.

-- Peak dense (no sparsity) TFLOP/s per GPU model and operand type, from
-- the vendors' datasheets (the "with sparsity" figures halved):
--   NVIDIA H100 SXM5 / PCIe / NVL, H200 (SXM, NVL), H800 (SXM5, PCIe), A100 (SXM4
--   and PCIe, 40/80 GB), V100 (SXM2), B200 (HGX B200), L40S, L4, A10 and
--   T4 datasheets; AMD Instinct MI300X, MI250X, MI250, MI210 datasheets
--   (matrix-core peaks).  T4 (Turing) has no bf16: fp16 and fp32 only.
-- fp32 is the peak without tensor cores on NVIDIA (fp32 GEMMs that run as
-- TF32 can exceed it); AMD's fp32 is the matrix-core peak.
--   pattern   LIKE pattern over device.name, tried by priority (lowest first)
--   dtype     'bf16', 'fp16' or 'fp32'
--   tflops    peak dense TFLOP/s
--   source    where the figure comes from
CREATE TEMP TABLE report_gpu_peak(priority INTEGER, pattern TEXT, dtype TEXT, tflops REAL,
  source TEXT);
INSERT INTO report_gpu_peak VALUES
  (1, 'NVIDIA H100%NVL%', 'bf16', 835.5, 'NVIDIA H100 datasheet (NVL)'),
  (1, 'NVIDIA H100%NVL%', 'fp16', 835.5, 'NVIDIA H100 datasheet (NVL)'),
  (1, 'NVIDIA H100%NVL%', 'fp32', 60, 'NVIDIA H100 datasheet (NVL)'),
  (2, 'NVIDIA H100%PCIe%', 'bf16', 756.5, 'NVIDIA H100 datasheet (PCIe)'),
  (2, 'NVIDIA H100%PCIe%', 'fp16', 756.5, 'NVIDIA H100 datasheet (PCIe)'),
  (2, 'NVIDIA H100%PCIe%', 'fp32', 51.2, 'NVIDIA H100 datasheet (PCIe)'),
  (3, 'NVIDIA H100%', 'bf16', 989.4, 'NVIDIA H100 datasheet (SXM)'),
  (3, 'NVIDIA H100%', 'fp16', 989.4, 'NVIDIA H100 datasheet (SXM)'),
  (3, 'NVIDIA H100%', 'fp32', 66.9, 'NVIDIA H100 datasheet (SXM)'),
  (4, 'NVIDIA A100%', 'bf16', 312, 'NVIDIA A100 datasheet'),
  (4, 'NVIDIA A100%', 'fp16', 312, 'NVIDIA A100 datasheet'),
  (4, 'NVIDIA A100%', 'fp32', 19.5, 'NVIDIA A100 datasheet'),
  (5, '%V100%', 'fp16', 125, 'NVIDIA V100 datasheet (SXM2)'),
  (5, '%V100%', 'fp32', 15.7, 'NVIDIA V100 datasheet (SXM2)'),
  (6, 'NVIDIA H200%NVL%', 'bf16', 835.5, 'NVIDIA H200 datasheet (NVL)'),
  (6, 'NVIDIA H200%NVL%', 'fp16', 835.5, 'NVIDIA H200 datasheet (NVL)'),
  (6, 'NVIDIA H200%NVL%', 'fp32', 60, 'NVIDIA H200 datasheet (NVL)'),
  (7, 'NVIDIA H200%', 'bf16', 989.4, 'NVIDIA H200 datasheet (SXM)'),
  (7, 'NVIDIA H200%', 'fp16', 989.4, 'NVIDIA H200 datasheet (SXM)'),
  (7, 'NVIDIA H200%', 'fp32', 66.9, 'NVIDIA H200 datasheet (SXM)'),
  (8, 'NVIDIA H800%PCIe%', 'bf16', 756.5, 'NVIDIA H800 datasheet (PCIe)'),
  (8, 'NVIDIA H800%PCIe%', 'fp16', 756.5, 'NVIDIA H800 datasheet (PCIe)'),
  (8, 'NVIDIA H800%PCIe%', 'fp32', 51.2, 'NVIDIA H800 datasheet (PCIe)'),
  (9, 'NVIDIA H800%', 'bf16', 989.4, 'NVIDIA H800 datasheet (SXM5)'),
  (9, 'NVIDIA H800%', 'fp16', 989.4, 'NVIDIA H800 datasheet (SXM5)'),
  (9, 'NVIDIA H800%', 'fp32', 66.9, 'NVIDIA H800 datasheet (SXM5)'),
  (10, 'NVIDIA L40S%', 'bf16', 362.05, 'NVIDIA L40S datasheet'),
  (10, 'NVIDIA L40S%', 'fp16', 362.05, 'NVIDIA L40S datasheet'),
  (10, 'NVIDIA L40S%', 'fp32', 91.6, 'NVIDIA L40S datasheet'),
  (11, 'NVIDIA L4', 'bf16', 121, 'NVIDIA L4 datasheet'),
  (11, 'NVIDIA L4', 'fp16', 121, 'NVIDIA L4 datasheet'),
  (11, 'NVIDIA L4', 'fp32', 30.3, 'NVIDIA L4 datasheet'),
  (12, 'NVIDIA A10', 'bf16', 125, 'NVIDIA A10 datasheet'),
  (12, 'NVIDIA A10', 'fp16', 125, 'NVIDIA A10 datasheet'),
  (12, 'NVIDIA A10', 'fp32', 31.2, 'NVIDIA A10 datasheet'),
  (13, 'Tesla T4', 'fp16', 65, 'NVIDIA T4 datasheet'),
  (13, 'Tesla T4', 'fp32', 8.1, 'NVIDIA T4 datasheet'),
  (14, 'NVIDIA B200%', 'bf16', 2250, 'NVIDIA HGX B200 datasheet (per GPU)'),
  (14, 'NVIDIA B200%', 'fp16', 2250, 'NVIDIA HGX B200 datasheet (per GPU)'),
  (14, 'NVIDIA B200%', 'fp32', 75, 'NVIDIA HGX B200 datasheet (per GPU)'),
  (15, '%MI300X%', 'bf16', 1307.4, 'AMD Instinct MI300X datasheet'),
  (15, '%MI300X%', 'fp16', 1307.4, 'AMD Instinct MI300X datasheet'),
  (15, '%MI300X%', 'fp32', 163.4, 'AMD Instinct MI300X datasheet'),
  (16, '%MI250X%', 'bf16', 383, 'AMD Instinct MI250X datasheet'),
  (16, '%MI250X%', 'fp16', 383, 'AMD Instinct MI250X datasheet'),
  (16, '%MI250X%', 'fp32', 95.7, 'AMD Instinct MI250X datasheet'),
  (17, '%MI250%', 'bf16', 362.1, 'AMD Instinct MI250 datasheet'),
  (17, '%MI250%', 'fp16', 362.1, 'AMD Instinct MI250 datasheet'),
  (17, '%MI250%', 'fp32', 90.5, 'AMD Instinct MI250 datasheet'),
  (18, '%MI210%', 'bf16', 181, 'AMD Instinct MI210 datasheet'),
  (18, '%MI210%', 'fp16', 181, 'AMD Instinct MI210 datasheet'),
  (18, '%MI210%', 'fp32', 45.3, 'AMD Instinct MI210 datasheet');

-- The bytes of one element of each operand type (the memory roofline of
-- low_gemm_efficiency and dominant_category: op_elements times these).
--   dtype   'bf16', 'fp16', 'fp32' or 'fp64'
--   bytes   its size
CREATE TEMP TABLE report_dtype_bytes(dtype TEXT PRIMARY KEY, bytes INTEGER) WITHOUT ROWID;
INSERT INTO report_dtype_bytes VALUES ('bf16', 2), ('fp16', 2), ('fp32', 4), ('fp64', 8);

-- Peak memory bandwidth per GPU model (the memory roofline of
-- low_gemm_efficiency), GB/s, from the same datasheets; where one pattern
-- covers several products, the fastest one's (the memory floor stays a
-- lower bound of the time, the saving an upper bound).
--   pattern   LIKE pattern over device.name, tried by priority (lowest first)
--   gbps      peak memory bandwidth, GB/s (10^9 bytes/s)
--   source    where the figure comes from
CREATE TEMP TABLE report_gpu_bandwidth(priority INTEGER, pattern TEXT, gbps REAL, source TEXT);
INSERT INTO report_gpu_bandwidth VALUES
  (1, 'NVIDIA H100%NVL%', 3900, 'NVIDIA H100 datasheet (NVL)'),
  (2, 'NVIDIA H100%PCIe%', 2000, 'NVIDIA H100 datasheet (PCIe)'),
  (3, 'NVIDIA H100%', 3350, 'NVIDIA H100 datasheet (SXM)'),
  (4, 'NVIDIA A100%80GB%PCIe%', 1935, 'NVIDIA A100 datasheet (80GB PCIe)'),
  (5, 'NVIDIA A100%80GB%', 2039, 'NVIDIA A100 datasheet (80GB SXM)'),
  (6, 'NVIDIA A100%', 1555, 'NVIDIA A100 datasheet (40GB)'),
  (7, '%V100%', 900, 'NVIDIA V100 datasheet (SXM2)'),
  (8, 'NVIDIA H200%', 4800, 'NVIDIA H200 datasheet (SXM, NVL)'),
  (9, 'NVIDIA H800%PCIe%', 2000, 'NVIDIA H800 datasheet (PCIe)'),
  (10, 'NVIDIA H800%', 3350, 'NVIDIA H800 datasheet (SXM5)'),
  (11, 'NVIDIA L40S%', 864, 'NVIDIA L40S datasheet'),
  (12, 'NVIDIA L4', 300, 'NVIDIA L4 datasheet'),
  (13, 'NVIDIA A10', 600, 'NVIDIA A10 datasheet'),
  (14, 'Tesla T4', 320, 'NVIDIA T4 datasheet'),
  (15, 'NVIDIA B200%', 8000, 'NVIDIA HGX B200 datasheet (per GPU)'),
  (16, '%MI300X%', 5300, 'AMD Instinct MI300X datasheet'),
  (17, '%MI250X%', 3276.8, 'AMD Instinct MI250X datasheet'),
  (18, '%MI250%', 3276.8, 'AMD Instinct MI250 datasheet'),
  (19, '%MI210%', 1638.4, 'AMD Instinct MI210 datasheet');

-- The counted operator calls of the analysed steps (_attr_flop: the load
-- listed the calls of these operators with "Input Dims" and the counted
-- call enclosing each), with what their own event says.  A table keyed by
-- the call, not a CTE: report_flop_op looks calls up by id, and a CTE has
-- no index to look up (a scan per call grew with the square of the ranks).
--   id           the call (_slice.id)
--   trace_id, step  its trace and step
--   name_id, input_dims the operator and its "Input Dims"
--   dtype        'bf16', 'fp16', 'fp32', 'fp64' or the "Input type" of the first operand
--                (of the second for aten::addmm and aten::baddbmm, whose first is the bias)
--   flops        op_flops() of the call (NULL: not countable from its shapes)
--   outermost    1 when no enclosing operator is counted too
CREATE TEMP TABLE report_flop_counted(id INTEGER PRIMARY KEY, trace_id INTEGER, step INTEGER,
  name_id INTEGER, input_dims TEXT, dtype TEXT, flops INTEGER, outermost INTEGER);
INSERT INTO report_flop_counted
SELECT s.id, s.trace_id, t.step, s.name_id, s.input_dims,
  CASE json_extract(s.input_types, '$[' || CASE WHEN n.value IN ('aten::addmm', 'aten::baddbmm')
                                               THEN 1 ELSE 0 END || ']')
    WHEN 'c10::BFloat16' THEN 'bf16' WHEN 'c10::Half' THEN 'fp16' WHEN 'float' THEN 'fp32'
    WHEN 'double' THEN 'fp64' ELSE json_extract(s.input_types, '$[0]') END,
  op_flops(n.value, s.input_dims, s.concrete_inputs),
  f.parent_id IS NULL
FROM _attr_flop f JOIN _slice s ON s.id = f.id JOIN _string n ON n.id = s.name_id
JOIN _slice_tree t ON t.id = s.id
WHERE EXISTS (SELECT 1 FROM report_scope k
              WHERE k.trace_id = s.trace_id AND k.step = coalesce(t.step, -1));

-- Per counted call, the GPU work launched by it and the operators nested in
-- it (keyed by the call, for report_flop_op's lookup).
--   id           the call (report_flop_counted.id)
--   device_ns    GPU time of that work
--   device       device ordinal of that work (the lowest, if several)
--   source       first user-code frame of its launches (report_launch_source)
--   dtype        dtype of the innermost counted calls that ran the most of that time
--                (NULL: none known); under autocast aten::linear takes fp32 and its
--                aten::addmm runs in bf16 or fp16
CREATE TEMP TABLE report_flop_launched(id INTEGER PRIMARY KEY, device_ns INTEGER,
  device INTEGER, source TEXT, dtype TEXT);
INSERT INTO report_flop_launched
WITH RECURSIVE up(flop_id, anc_id) AS (
  -- the counted calls enclosing the launching operators' innermost one
  SELECT DISTINCT flop_id, flop_id FROM report_launch WHERE flop_id IS NOT NULL
  UNION ALL
  SELECT up.flop_id, f.parent_id FROM up JOIN _attr_flop f ON f.id = up.anc_id
  WHERE f.parent_id IS NOT NULL
), by_dtype AS (
  -- per enclosing call, the work by the dtype of the innermost counted call launching it
  SELECT up.anc_id AS id, c.dtype, sum(l.gpu_ns) AS ns, min(l.device) AS device,
    min(r.source) AS source
  FROM up JOIN report_launch l ON l.flop_id = up.flop_id
  LEFT JOIN report_launch_source r ON r.op_id = l.op_id
  LEFT JOIN report_flop_counted c ON c.id = up.flop_id
  GROUP BY up.anc_id, c.dtype
)
SELECT id, device_ns, device, source, dtype FROM (
  SELECT id, dtype, sum(ns) OVER whole AS device_ns, min(device) OVER whole AS device,
    min(source) OVER whole AS source,
    row_number() OVER (PARTITION BY id ORDER BY dtype IS NULL, ns DESC, dtype) AS rank
  FROM by_dtype WINDOW whole AS (PARTITION BY id))
WHERE rank = 1;

-- The counted calls whose FLOPs are known, with the GPU work they launched.
--   id, trace_id, step  the call
--   name_id, input_dims the operator and its "Input Dims"
--   dtype        report_flop_launched.dtype if known, else the call's own
--                (report_flop_counted.dtype)
--   flops        op_flops() of the call
--   device_ns, device, source  report_flop_launched's (NULL: it launched nothing)
--   outermost    1 when no enclosing operator is counted too (aten::linear
--                counts, its aten::addmm does not): the calls mfu_step adds up
CREATE TEMP TABLE report_flop_op AS
SELECT c.id, c.trace_id, c.step, c.name_id, c.input_dims, coalesce(g.dtype, c.dtype) AS dtype,
  c.flops, g.device_ns, g.device, c.outermost, g.source
FROM report_flop_counted c LEFT JOIN report_flop_launched g ON g.id = c.id
WHERE c.flops IS NOT NULL;

-- The peak of each device of the traces, per dtype (NULL tflops: unknown model).
-- A device the GPU work ran on but the trace's deviceProperties do not
-- list (ROCm traces record the physical device ordinal in the events and
-- only the visible devices in deviceProperties: kernels on device 2, one
-- "AMD Instinct MI300X" listed as device 0) takes the model of the
-- trace's listed devices when they are all one model: assumed = 1, and
-- the findings say so.  With several models listed nothing is assumed.
--   trace_id, device_id, name  the device (name: the model, listed or assumed)
--   dtype, tflops              its peak for that operand type
--   assumed                    1 when the model is taken from the trace's other devices
--   gbps                       its peak memory bandwidth, GB/s (report_gpu_bandwidth; NULL:
--                              unknown)
CREATE TEMP TABLE report_device_peak AS
WITH dev AS (
  SELECT d.trace_id, d.device_id, d.name, 0 AS assumed FROM device d
  WHERE d.trace_id IN (SELECT trace_id FROM report_trace)
  UNION ALL
  SELECT u.trace_id, u.device, m.name, 1
  FROM (SELECT DISTINCT trace_id, device FROM report_gpu WHERE device IS NOT NULL) u
  JOIN (SELECT trace_id, min(name) AS name FROM device GROUP BY trace_id
        HAVING count(DISTINCT name) = 1) m ON m.trace_id = u.trace_id
  WHERE NOT EXISTS (SELECT 1 FROM device d WHERE d.trace_id = u.trace_id
                    AND d.device_id = u.device)
)
SELECT d.trace_id, d.device_id, d.name, p.dtype, p.tflops, d.assumed,
  (SELECT b.gbps FROM report_gpu_bandwidth b WHERE d.name LIKE b.pattern
   ORDER BY b.priority LIMIT 1) AS gbps
FROM dev d JOIN report_gpu_peak p ON d.name LIKE p.pattern
WHERE p.priority = (SELECT min(q.priority) FROM report_gpu_peak q WHERE d.name LIKE q.pattern);
-- (the findings look a device's peak up per operator row: without this
-- index a lookup scanned every rank's devices, 8 s at 1024 ranks)
CREATE INDEX temp.report_device_peak_by_device ON report_device_peak(trace_id, device_id, dtype);
