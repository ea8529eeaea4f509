-- Measure: the GEMMs in one row.
-- The GEMMs in one row: the precision with the most time and its share;
-- from the recorded shapes (report_flop_op, outermost counted calls with a
-- known device peak): covered_ns, their GPU time per rank step, peak_pct
-- their achieved share of the peak, and peak_saving_ns what they would
-- save at 60% of the device's peak, the level tuned large GEMMs reach
-- (as low_gemm_efficiency; for fp32 calls 60% of the bf16 peak, fp16's
-- on a GPU without bf16: the advice is autocast), or, where longer, the time their operands and
-- result take to move at the device's peak bandwidth (the memory
-- roofline, in bf16 for fp32 calls; a GEMM of few rows reads its weights
-- once and computes little: issue 44's ninth unseen audit, M = 10 matmuls
-- promised their FLOPs' time at the bf16 peak); the device (NVIDIA,
-- compute capability) and the largest GEMM kernel built for an older GPU
-- generation than it.
-- Builds: measure_gemm
-- Reads: _string, device, measure_time, report_device_peak, report_dtype_bytes,
--   report_flop_op, report_gpu, report_name
CREATE TEMP TABLE measure_gemm (
  precision       TEXT,     -- the precision with the most GEMM kernel time (from the kernel
                            --   names)
  precision_share REAL,     -- its share of the GEMM kernel time (0..1)
  covered_ns      REAL,     -- GPU time per rank step of the matmul calls with recorded shapes and
                            --   a known peak, ns
  peak_ns         REAL,     -- their time at 60% of the device peak (fp32 calls: of the bf16
                            --   peak, fp16's without bf16) or, where longer, on the memory
                            --   roofline, ns
  peak_saving_ns  ANY,      -- covered_ns - peak_ns, at least 0, ns
  peak_pct        REAL,     -- their achieved share of the device peak, %
  peak_device     TEXT,     -- the device model whose peak is used
  peak_assumed    INTEGER,  -- 1: the model is assumed (lib/58_flops.sql)
  ev_covered_ns   REAL,     -- unknown peak: GPU time per rank step of the shaped matmul calls, ns
  ev_saving_ns    ANY,      -- their time above the rate of the trace's fastest shape, ns
  ev_best_tflops  REAL,     -- that fastest rate, TFLOP/s
  device_name     TEXT,     -- the NVIDIA device with the most GEMM time
  cc              INTEGER,  -- its compute capability x 10
  old_name        TEXT,     -- the largest GEMM kernel built for an older GPU generation than the
                            --   device
  old_arch        INTEGER,  -- the generation it was built for (sm x 10)
  old_share       REAL,     -- share of GEMM time in older-generation kernels (0..1)
  mem_share       REAL,     -- share of peak_ns set by the memory roofline (calls whose bytes at
                            --   the peak bandwidth take longer than their FLOPs at 60% of peak;
                            --   0 when the bandwidth is unknown), 0..1
  half            TEXT      -- the half precision the bound takes for fp32 calls: 'fp16' when
                            --   their device's peak table has no bf16 (T4, V100), else 'bf16'
) STRICT;
INSERT INTO measure_gemm
WITH
-- GEMM kernels (dominant_category), per kernel name: the precision read
-- from the name ('fp4': NVFP4 / MXFP4 / e2m1; 'fp8': e4m3 / e5m2;
-- 'fp16/bf16': tensor-core half precision (h*gemm, *_f16*, bf16,
-- hipBLASLt _HHS_ / _BBS_); 'tf32': s1688 / s16816 tensor-core GEMMs of
-- fp32 data; 'fp32': sgemm / SIMT on CUDA cores; else 'unknown'), the GPU
-- generation it was built for when the name says (sm80 / ampere 80, sm90
-- / hopper 90, sm10x 100, sm12x 120, volta 70, turing 75), and its time
-- per rank step.  docs/definitions.md, "Dominant category".  An older-generation
-- kernel is looked for on sm90 or newer only, among tensor-core GEMMs
-- (fp32 SIMT kernels have no newer build: ampere_sgemm on an H100 and
-- volta_sgemm on a Turing GPU are what cuBLAS ships).
gemm_kern AS (
  SELECT n.name, g.trace_id, g.device, g.dur / t.n AS dur,
    CASE
      WHEN lower(n.name) GLOB '*nvfp4*' OR lower(n.name) GLOB '*mxfp4*' OR lower(n.name) GLOB
        '*fp4*'
        OR lower(n.name) GLOB '*e2m1*' THEN 'fp4'
      WHEN lower(n.name) GLOB '*fp8*' OR lower(n.name) GLOB '*e4m3*' OR lower(n.name) GLOB '*e5m2*'
        OR lower(n.name) GLOB '*float8*' THEN 'fp8'
      WHEN lower(n.name) GLOB '*bf16*' OR lower(n.name) GLOB '*bfloat16*' OR lower(n.name) GLOB
        '*fp16*'
        OR lower(n.name) GLOB '*f16*'
        OR lower(n.name) GLOB '*half*' OR lower(n.name) GLOB '*h884*' OR lower(n.name) GLOB
          '*h1688*'
        OR lower(n.name) GLOB '*h16816*' OR lower(n.name) GLOB '*hgemm*'
        OR lower(n.name) GLOB 'cijk_*_hhs_*' OR lower(n.name) GLOB 'cijk_*_bbs_*'
        OR lower(n.name) GLOB 'cijk_*_hhh_*' OR lower(n.name) GLOB 'cijk_*_bbb_*' THEN 'fp16/bf16'
      WHEN lower(n.name) GLOB '*tf32*' OR lower(n.name) GLOB '*s1688gemm*'
        OR lower(n.name) GLOB '*s16816gemm*' THEN 'tf32'
      WHEN lower(n.name) GLOB '*sgemm*' OR lower(n.name) GLOB '*simt*' THEN 'fp32'
      ELSE 'unknown' END AS precision,
    CASE  -- (the newest generation the name names first: an sm120 CUTLASS mainloop
          -- names the SM90 TMA loads it reuses; issue 44's tenth unseen audit)
      WHEN lower(n.name) GLOB '*sm12[0-9]*' OR lower(n.name) GLOB '*sm_12[0-9]*' THEN 120
      WHEN lower(n.name) GLOB '*sm10[0-9]*' OR lower(n.name) GLOB '*sm_10[0-9]*' THEN 100
      WHEN lower(n.name) GLOB '*sm90*' OR lower(n.name) GLOB '*sm_90*'
        OR lower(n.name) GLOB '*cutlass_90*' OR lower(n.name) GLOB '*hopper*' THEN 90
      WHEN lower(n.name) GLOB '*sm80*' OR lower(n.name) GLOB '*sm_80*'
        OR lower(n.name) GLOB '*cutlass_80*' OR lower(n.name) GLOB 'ampere_*' THEN 80
      WHEN lower(n.name) GLOB '*sm75*' OR lower(n.name) GLOB 'turing_*' THEN 75
      WHEN lower(n.name) GLOB '*sm70*' OR lower(n.name) GLOB 'volta_*' THEN 70 END AS arch
  -- (grouped by name id, named afterwards: the rules read each name once)
  FROM (SELECT name_id, trace_id, device, sum(dur) AS dur FROM report_gpu
        WHERE kind = 'kernel' AND category = 'GEMM' GROUP BY name_id, trace_id, device) g
    JOIN report_name n USING (name_id), (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t
),
-- The matrix-multiply operators (op_family 'matmul': aten::mm, addmm, bmm,
-- baddbmm, matmul, linear) whose counted calls bound the GEMMs; not the
-- convolutions and attention calls report_flop_op also counts.
gemm_op AS (
  SELECT id FROM _string WHERE id IN (SELECT name_id FROM report_flop_op)
    AND op_family(value) = 'matmul'
),
-- The elements a shape's call moves (op_elements: operands and result
-- once), once per distinct shape (a JSON parse each; a job repeats them
-- across ranks and steps).
shape_elements AS MATERIALIZED (
  SELECT f.name_id, f.input_dims, op_elements(n.value, f.input_dims) AS elements
  FROM (SELECT DISTINCT name_id, input_dims FROM report_flop_op
        WHERE outermost AND device_ns > 0 AND name_id IN (SELECT id FROM gemm_op)) f
  JOIN _string n ON n.id = f.name_id
)
  SELECT
    (SELECT precision FROM gemm_kern GROUP BY precision ORDER BY sum(dur) DESC, precision LIMIT 1)
      AS precision,
    (SELECT sum(dur) FROM gemm_kern WHERE precision = (SELECT precision FROM gemm_kern
       GROUP BY precision ORDER BY sum(dur) DESC,
         precision LIMIT 1)) / max((SELECT sum(dur) FROM gemm_kern), 1)
      AS precision_share,
    x.covered_ns, x.peak_ns, max(x.covered_ns - x.peak_ns, 0) AS peak_saving_ns,
    100.0 * x.own_peak_ns / max(x.covered_ns, 1) AS peak_pct,
    (SELECT p.name FROM report_flop_op f JOIN report_device_peak p ON p.trace_id = f.trace_id
       AND p.device_id = f.device AND p.dtype = f.dtype
     WHERE f.outermost AND f.device_ns > 0 AND f.name_id IN (SELECT id FROM gemm_op) AND p.tflops
       > 0
     GROUP BY p.name ORDER BY sum(f.device_ns) DESC, p.name LIMIT 1) AS peak_device,
    (SELECT max(p.assumed) FROM report_flop_op f JOIN report_device_peak p ON p.trace_id =
      f.trace_id
       AND p.device_id = f.device AND p.dtype = f.dtype
     WHERE f.outermost AND f.device_ns > 0 AND f.name_id IN (SELECT id FROM gemm_op) AND p.tflops
       > 0) AS peak_assumed,
    e.covered_ns AS ev_covered_ns, max(e.covered_ns - e.best_ns, 0) AS ev_saving_ns,
    e.best_tflops AS ev_best_tflops,
    d.name AS device_name, d.cc, o.name AS old_name, o.arch AS old_arch,
    (SELECT sum(k.dur) FROM gemm_kern k WHERE k.arch < d.cc / 10 * 10 AND d.cc >= 90
       AND k.precision NOT IN ('fp32', 'unknown')) / max((SELECT sum(dur) FROM gemm_kern), 1)
      AS old_share,
    x.mem_ns / max(x.peak_ns, 1) AS mem_share, iif(x.fp16, 'fp16', 'bf16') AS half
  FROM (SELECT sum(f.device_ns) / t.n AS covered_ns, sum(max(f.c_ns, coalesce(f.m_ns, 0))) / t.n AS peak_ns,
          sum(iif(f.m_ns > f.c_ns, f.m_ns, 0)) / t.n AS mem_ns, sum(f.own_ns) / t.n AS own_peak_ns,
          coalesce(max(f.fp16), 0) AS fp16
        FROM (SELECT f.flops / 1000.0 / (0.6 * coalesce(b.tflops, h.tflops, p.tflops)) AS c_ns,
                f.dtype = 'fp32' AND b.tflops IS NULL AND h.tflops IS NOT NULL AS fp16,
                -- (bytes in bf16 for fp32 calls, the advice's precision; GB/s: bytes / gbps is ns)
                e.elements * (SELECT z.bytes FROM report_dtype_bytes z
                              WHERE z.dtype = iif(f.dtype = 'fp32', 'bf16', f.dtype)) / p.gbps
                  AS m_ns,
                f.flops / 1000.0 / p.tflops AS own_ns, f.device_ns
              FROM report_flop_op f
              JOIN shape_elements e ON e.name_id = f.name_id AND e.input_dims = f.input_dims
              JOIN report_device_peak p ON p.trace_id = f.trace_id AND p.device_id = f.device AND
                p.dtype = f.dtype
              LEFT JOIN report_device_peak b ON f.dtype = 'fp32' AND b.trace_id = f.trace_id
                AND b.device_id = f.device AND b.dtype = 'bf16'
              -- (a GPU without bf16, Turing's T4: autocast to fp16)
              LEFT JOIN report_device_peak h ON f.dtype = 'fp32' AND h.trace_id = f.trace_id
                AND h.device_id = f.device AND h.dtype = 'fp16'
              WHERE f.outermost AND f.device_ns > 0 AND f.name_id IN (SELECT id FROM gemm_op) AND
                p.tflops > 0) f,
          (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t) x
  -- no known peak: the evidence is the trace's own fastest shape (per
  -- dtype, over at least 100 us of GPU time); covered_ns, the calls of a
  -- device of unknown peak, best_ns their time at that shape's rate
  LEFT JOIN (SELECT sum(f.device_ns) / t.n AS covered_ns,
               sum(f.flops / r.rate) / t.n AS best_ns, max(r.rate) / 1000.0 AS best_tflops
             FROM report_flop_op f
             JOIN (SELECT dtype, max(1.0 * fl / ns) AS rate FROM (
                     SELECT dtype, sum(flops) AS fl, sum(device_ns) AS ns FROM report_flop_op
                     WHERE outermost AND device_ns > 0 AND name_id IN (SELECT id FROM gemm_op)
                     GROUP BY name_id, input_dims, dtype
                     HAVING sum(device_ns) >= 100000) GROUP BY dtype) r ON r.dtype = f.dtype,
               (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t
             WHERE f.outermost AND f.device_ns > 0 AND f.name_id IN (SELECT id FROM gemm_op)
               AND NOT EXISTS (SELECT 1 FROM report_device_peak p WHERE p.trace_id = f.trace_id
                               AND p.device_id = f.device AND p.dtype = f.dtype AND p.tflops >
                                 0)) e ON 1
  LEFT JOIN (SELECT dv.name, dv.compute_major * 10 + dv.compute_minor AS cc
             FROM gemm_kern k JOIN device dv ON dv.trace_id = k.trace_id AND dv.device_id = k.device
             WHERE dv.name LIKE 'NVIDIA%' OR dv.name LIKE 'Tesla%'
             GROUP BY dv.name, cc ORDER BY sum(k.dur) DESC LIMIT 1) d ON 1
  LEFT JOIN (SELECT k.name, k.arch, dv.compute_major * 10 + dv.compute_minor AS cc
             FROM gemm_kern k JOIN device dv ON dv.trace_id = k.trace_id AND dv.device_id = k.device
             -- (older than the device's generation: sm120 kernels are native on an sm121 GB10)
             WHERE k.arch < dv.compute_major * 10 AND dv.compute_major >= 9
               AND k.precision NOT IN ('fp32', 'unknown')
               AND (dv.name LIKE 'NVIDIA%' OR dv.name LIKE 'Tesla%')
             GROUP BY k.name, k.arch, cc ORDER BY sum(k.dur) DESC, k.name LIMIT 1) o ON o.cc = d.cc;
