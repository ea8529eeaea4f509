-- Rule: low_gemm_efficiency
-- 14b. The heaviest GEMM / convolution / attention shape runs far below
-- the GPU's peak.  Saving bounded by bringing it to 60% of peak, a level
-- tuned large GEMMs reach; only its GPU time is promised, and with the
-- GPU idle over 10% of the step (crit_bound) only the share of its
-- kernel category's time on the critical path (crit_m.crit_op /
-- op_cat_ns, as dominant_category).  A memory-bound matmul shape (mb: the
-- bytes it moves at the peak bandwidth take longer than its FLOPs at 60%
-- of peak) is bounded by that memory roofline instead: its compute-peak
-- gap is not recoverable.  The finding fires when the saving before the
-- critical-path bound (s0) passes the floor, to say how little is left.
-- At most what a replay of the trace gains with the whole category's
-- kernels removed (measure_replay_removed: no action on one shape gains
-- more).
-- Reads: measure_critical, measure_floor, measure_gemm_op_top, measure_replay_removed,
--   measure_time
SELECT round(100.0 * x.saving / t.job_step_ns, 1) AS priority, 'low_gemm_efficiency' AS rule,
  iif(x.share < 0.5, 'low', 'medium') AS confidence,
  printf('%s%s runs at %.1f%% of the %s''s %s peak', m.name,
    CASE WHEN m.source IS NOT NULL THEN ' in ' || m.source ELSE '' END, m.peak_pct, m.device_name,
      m.dtype) AS title,
  printf('gemm_efficiency: the calls of %s with Input Dims %s take %s of GPU time (%.1f%% of ' ||
    'all GPU work) at %.1f%% of the %s dense %s peak (%.0f TFLOP/s).',
    m.name, m.input_dims, profdb_fmt_ns(m.device_ns), 100.0 * m.device_ns / m.gpu_ns, m.peak_pct,
      m.device_name,
    m.dtype, m.peak_tflops)
    || CASE WHEN x.bounded THEN printf(' The GPU is idle %s, so a faster ' ||
      'kernel shortens the step only where something waits for it (a host-blocking call, or ' ||
        'the step''s GPU work past its CPU range): %s of the %s kernels'' %s per rank step ' ||
          '(%.0f%%).',
         t.gpu_idle_words, profdb_fmt_ns(x.crit),
           x.category,
           profdb_fmt_ns(x.cat_ns), 100.0 * x.share) ELSE '' END
    || CASE WHEN x.mb THEN printf(' It is memory-bound: %.0f FLOP per byte moved, under the ' ||
      '%s''s %.0f (its %s peak over its %.0f GB/s of memory bandwidth); moving its operands ' ||
        'and result (%s per rank step) at that bandwidth takes %s, %.0f%% of its time.',
        m.peak_pct / 100 * m.peak_tflops * 1000 * m.device_ns / m.bytes, m.device_name,
        1000 * m.peak_tflops / m.bw_gbps, m.dtype, m.bw_gbps, profdb_fmt_bytes(m.bytes),
        profdb_fmt_ns(m.mem_ns), 100.0 * m.mem_ns / m.device_ns) ELSE '' END AS observation,
  CASE WHEN x.mb THEN 'The shape is memory-bound (few FLOPs per byte: a short reduction ' ||
    'dimension or a thin matrix): no kernel reaches the compute peak on it; only moving fewer ' ||
      'bytes makes it faster.'
    ELSE 'The shapes are too small or badly aligned for the tensor cores (dimensions not ' ||
      'multiples of 8/16), the kernel chosen is not the fastest one, or the operator runs in ' ||
        'a slower dtype than it could.' END AS hypothesis,
  CASE WHEN x.share < 0.5 THEN 'First keep the GPU busy (gpu_idle, data_loading, ' ||
    'launch_bound, synchronization); only then do faster kernels shorten the step. For the ' ||
      'kernels themselves: ' ELSE '' END
  || CASE WHEN x.mb THEN 'Fuse it with the operators around it (torch.compile) so its ' ||
    'operands and result stay on chip, or move fewer bytes (lower-precision operands, batch ' ||
      'calls that share an operand); a faster GEMM kernel cannot help. See op_shape_sum for ' ||
        'the exact shapes.'
    ELSE 'Pad the dimensions to multiples of 16 (64 for attention heads), use bf16/fp16 ' ||
      'autocast, enable torch.backends.cuda.matmul.allow_tf32 for fp32, try torch.compile ' ||
        '(mode="max-autotune") or a fused attention kernel; see op_shape_sum for the exact ' ||
          'shapes.' END AS action,
  CASE WHEN x.replay_bound
    THEN printf('Up to %s (%.1f%% of the job step): a replay of the trace on its critical ' ||
      'path''s graph (critical_path) with all its %s kernels removed ends the analysed time ' ||
        'only that much sooner per rank step, less than the %s of GPU time it would save at ' ||
          '%s: the step''s end waits mostly on other work.',
      profdb_fmt_ns(CAST(x.saving AS INTEGER)), 100.0 * x.saving / t.job_step_ns, x.category,
        profdb_fmt_ns(CAST(x.s0 AS INTEGER)),
        iif(x.mb, 'the memory roofline', '60% of peak'))
    WHEN x.bounded AND x.share < 1
    THEN printf('Up to %s (%.1f%% of the job step): of the %s of GPU time it would save at ' ||
      '%s, the %.0f%% share of %s kernel time on the critical path.',
      profdb_fmt_ns(CAST(x.saving AS INTEGER)), 100.0 * x.saving / t.job_step_ns,
        profdb_fmt_ns(CAST(x.s0 AS INTEGER)),
        iif(x.mb, 'the memory roofline (memory-bound: the compute-peak gap is not recoverable)',
          '60% of peak'), 100.0 * x.share, x.category)
    WHEN x.mb THEN printf('Up to %s of GPU time (%.1f%% of the job step): its time above the ' ||
      'memory roofline (its bytes at the peak bandwidth, %s); memory-bound, so the gap to the ' ||
        'compute peak is not recoverable; the step saves less where the GPU is not the ' ||
          'bottleneck.', profdb_fmt_ns(CAST(x.saving AS INTEGER)),
        100.0 * x.saving / t.job_step_ns, profdb_fmt_ns(m.mem_ns))
    ELSE printf('Up to %s of GPU time (%.1f%% of the job step) if it reached 60%% of peak; ' ||
      'the step saves less where the GPU is not the bottleneck.',
      profdb_fmt_ns(CAST(x.saving AS INTEGER)),
        100.0 * x.saving / t.job_step_ns) END AS expected_impact,
  printf('Re-profile: gemm_efficiency.peak_pct of %s above %.0f%%.', m.name, min(60,
    2 * m.peak_pct)) AS validation, 0 AS needs_artifact,
  round(100.0 * x.saving / t.job_step_ns, 2) AS expected_saving_pct,
    CAST(x.saving AS INTEGER) AS expected_saving_ns, NULL AS expected_saving_bytes,
  json_array(CASE WHEN m.source IS NULL
    THEN json_object('operator', m.name, 'input_dims', m.input_dims, 'dtype', m.dtype)
    ELSE json_object('operator', m.name, 'input_dims', m.input_dims, 'dtype', m.dtype,
      'source', m.source) END) AS subjects,
  json_object('sections', json_array('gemm_efficiency', 'op_shape_sum'),
    'figures', json_object('device_ns', m.device_ns, 'peak_pct', round(m.peak_pct, 2),
      'peak_tflops', m.peak_tflops, 'device', m.device_name,
      'gpu_idle_pct', round(100.0 * (t.rank_step_ns - t.gpu_busy_ns) / t.rank_step_ns, 1),
      'critical_path_ns', iif(x.bounded, CAST(round(x.crit) AS INTEGER), NULL),
      'category_ns', iif(x.bounded, CAST(round(x.cat_ns) AS INTEGER), NULL),
      'replay_removed_ns', CAST(round(x.replay_ns) AS INTEGER),
      'memory_bound', x.mb, 'bytes', CAST(round(m.bytes) AS INTEGER),
      'memory_floor_ns', CAST(round(m.mem_ns) AS INTEGER))) AS evidence,
        0 AS cut_may_explain
FROM measure_gemm_op_top m, measure_time t, measure_floor f,
  (SELECT *, coalesce(saving1 > binds_above, 0) AS replay_bound,
     iif(saving1 > binds_above, replay_ns, saving1) AS saving
   FROM (SELECT s0, mb, bounded, crit, cat_ns, y.category,
           iif(bounded, min(1.0, crit / cat_ns), 1.0) AS share,
           s0 * iif(bounded, min(1.0, crit / cat_ns), 1.0) AS saving1, r.replay_ns, r.binds_above
         FROM (SELECT max(m2.device_ns - max(m2.device_ns * m2.peak_pct / 60,
                        coalesce(m2.mem_ns, 0)), 0) AS s0,
                 coalesce(m2.mem_ns > m2.device_ns * m2.peak_pct / 60, 0) AS mb, m2.category,
                 t2.critical_path_bound AND coalesce(cm.op_cat_ns, 0) > 0 AS bounded,
                 cm.crit_op AS crit, cm.op_cat_ns AS cat_ns
               FROM measure_gemm_op_top m2, measure_time t2, measure_critical cm) y
         LEFT JOIN measure_replay_removed r ON r.kind = 'gpu:' || y.category)) x
WHERE t.rank_step_ns > 0 AND m.peak_pct < 30 AND m.device_ns >= 0.05 * m.gpu_ns
  AND x.s0 >= f.min_ns AND 100.0 * x.s0 / t.job_step_ns >= f.min_pct;
