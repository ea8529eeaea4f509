-- Measure: GPU time per rank step; kernel counts per rank (one row).
-- GPU time per rank step; kernel counts per rank.
-- Builds: measure_gpu
-- Reads: measure_time, report_gpu
CREATE TEMP TABLE measure_gpu (
  gpu_total     REAL,     -- GPU activity (kernels, copies, fills) per rank step, ns
  activities    INTEGER,  -- GPU activities in the analysed spans
  memcpy        REAL,     -- copies per rank step, ns
  fill          REAL,     -- fill / zero kernels per rank step, ns
  short_kernels REAL,     -- kernels under 10 us, per rank
  kernels       REAL      -- kernels, per rank
) STRICT;
INSERT INTO measure_gpu
  SELECT coalesce(sum(dur), 0) / t.n AS gpu_total, count(*) AS activities,
    coalesce(sum(dur) FILTER (WHERE kind = 'memcpy'), 0) / t.n AS memcpy,
    coalesce(sum(dur) FILTER (WHERE kind = 'kernel' AND is_fill), 0) / t.n AS fill,
    coalesce(sum(dur < 10000) FILTER (WHERE kind = 'kernel'), 0) / t.ranks AS short_kernels,
    coalesce(sum(kind = 'kernel'), 0) / t.ranks AS kernels
  FROM report_gpu, (SELECT 1.0 * max(rank_steps, 1) AS n, 1.0 * ranks AS ranks FROM measure_time) t;
