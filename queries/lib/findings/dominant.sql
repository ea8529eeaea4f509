-- Measure: dominant_category's bound (one row, none without GPU work).
-- The bound: with the GPU idle over 10% of the rank step (crit_bound),
-- the same share of the category's time on the critical path (of the
-- larger of saving0 and the layout transposes for Convolution, unless the
-- GPU idles over half the step: host_bound); else saving0 (Convolution:
-- the larger of it and the transposes).
-- Builds: measure_dominant
-- Reads: measure_critical, measure_gemm, measure_time, measure_top_category, report_gpu,
--   report_gpu_name
CREATE TEMP TABLE measure_dominant (
  category        TEXT,     -- the kernel category with the most GPU time
  dur             REAL,     -- its GPU time per rank step, ns
  shaped          INTEGER,  -- 1: GEMMs whose shapes (with a known peak) cover half their time
  ev_shaped       INTEGER,  -- 1: GEMMs of unknown peak whose shapes cover half their time
  saving0         ANY,      -- the saving before the critical-path bound, ns
  unbounded       INTEGER,  -- 1: GEMMs with no evidence of their speed (no shapes, a precision
                            --   with no faster one to go to, fp4 included): saving0 is 0
  precision       TEXT,     -- measure_gemm.precision
  precision_share REAL,     -- measure_gemm.precision_share
  covered_ns      REAL,     -- measure_gemm.covered_ns
  peak_ns         REAL,     -- measure_gemm.peak_ns
  peak_saving_ns  ANY,      -- measure_gemm.peak_saving_ns
  peak_pct        REAL,     -- measure_gemm.peak_pct
  peak_device     TEXT,     -- measure_gemm.peak_device
  peak_assumed    INTEGER,  -- measure_gemm.peak_assumed
  ev_covered_ns   REAL,     -- measure_gemm.ev_covered_ns
  ev_saving_ns    ANY,      -- measure_gemm.ev_saving_ns
  ev_best_tflops  REAL,     -- measure_gemm.ev_best_tflops
  device_name     TEXT,     -- measure_gemm.device_name
  cc              INTEGER,  -- measure_gemm.cc
  old_name        TEXT,     -- measure_gemm.old_name
  old_arch        INTEGER,  -- measure_gemm.old_arch
  old_share       REAL,     -- measure_gemm.old_share
  mem_share       REAL,     -- measure_gemm.mem_share
  half            TEXT,     -- measure_gemm.half
  host_bound      INTEGER,  -- 1: the GPU idles over half the rank step
  crit_bound      INTEGER,  -- measure_time.crit_bound
  crit            REAL,     -- measure_critical.crit, ns
  crit_pinned     REAL,     -- measure_critical.crit_pinned, ns
  transpose_ns    REAL,     -- layout transposes among the convolutions per rank step, ns
  action_ns       ANY,      -- what the action takes off the category's kernels per rank step:
                            --   saving0, for Convolution at least the transposes, ns
  saving          ANY       -- the bound: action_ns times the critical-path share, ns (a replay
                            --   bounds it further: measure_replay)
) STRICT;
INSERT INTO measure_dominant
WITH
-- dominant_category's bound (rule 5): for GEMMs whose shapes cover at
-- least half their time, what the covered ones save at 60% of the
-- device's peak, scaled to the category (nothing when they are faster
-- than that; the device's model may be assumed, lib/58_flops.sql); on a
-- device of unknown peak, what the covered ones save at the rate of the
-- trace's fastest shape (ev_*); without shapes, the precision in the
-- kernels' names is the only evidence: fp32 and tf32 GEMMs gain at least
-- 2x from a lower precision's tensor-core peak (half their time, a
-- low-confidence bound); tensor-core fp16/bf16, fp8 and fp4 GEMMs and
-- names of unknown precision: nothing, since nothing tells how near their
-- peak they run (guess_ns keeps half their time: the finding still fires,
-- to say what to record); other categories: half their time.
dom_0 AS (
  SELECT c.category, c.dur,
    c.category = 'GEMM' AND coalesce(m.covered_ns, 0) >= 0.5 * c.dur AS shaped,
    c.category = 'GEMM' AND coalesce(m.covered_ns, 0) < 0.5 * c.dur
      AND coalesce(m.ev_covered_ns, 0) >= 0.5 * c.dur AS ev_shaped,
    CASE WHEN c.category <> 'GEMM' THEN c.dur / 2
         WHEN coalesce(m.covered_ns, 0) >= 0.5 * c.dur
           THEN c.dur * min(1.0, m.peak_saving_ns / m.covered_ns)
         WHEN coalesce(m.ev_covered_ns, 0) >= 0.5 * c.dur
           THEN c.dur * min(1.0, m.ev_saving_ns / m.ev_covered_ns)
         WHEN m.precision IN ('fp32', 'tf32') THEN c.dur / 2
         ELSE 0 END AS saving0,
    c.category = 'GEMM' AND coalesce(m.covered_ns, 0) < 0.5 * c.dur
      AND coalesce(m.ev_covered_ns, 0) < 0.5 * c.dur
      AND coalesce(m.precision, 'unknown') NOT IN ('fp32', 'tf32') AS unbounded,
    m.*
  FROM measure_top_category c, measure_gemm m
),
-- Layout transposes among the convolutions (MIOpen's batched_transpose_*,
-- cuDNN's nchwToNhwc / nhwcToNchw), per rank step: channels_last removes
-- them.  (The divisor is a scalar subquery: a joined t.rank_steps is NULL when no
-- kernel matches, and the NULL made every Convolution bound NULL.)
conv_tr AS (
  SELECT coalesce(sum(g.dur), 0) / (SELECT 1.0 * max(rank_steps, 1) FROM measure_time) AS ns
  FROM report_gpu g JOIN report_gpu_name n USING (name_id)
  WHERE g.kind = 'kernel' AND g.category = 'Convolution'
    AND (lower(n.name) GLOB '*batched_transpose_*' OR lower(n.name) GLOB '*nchwtonhwc*'
         OR lower(n.name) GLOB '*nhwctonchw*')
)
  SELECT *, action_ns * iif(critical_path_bound, min(1.0, crit / max(dur, 1)), 1.0) AS saving
  FROM (
    SELECT d.*, t.gpu_busy_ns < 0.5 * t.rank_step_ns AS host_bound, t.critical_path_bound, cm.crit,
      cm.crit_pinned,
      ct.ns AS transpose_ns,
      CASE WHEN d.category = 'Convolution' AND t.gpu_busy_ns >= 0.5 * t.rank_step_ns
           THEN max(d.saving0, ct.ns) ELSE d.saving0 END AS action_ns
    FROM dom_0 d, measure_time t, measure_critical cm, conv_tr ct);
