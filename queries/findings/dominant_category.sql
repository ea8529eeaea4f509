-- Rule: dominant_category
-- 5. One kind of GPU work dominates (dom_m above): GEMMs are bounded by
-- the device's peak where shapes allow, and advised by the precision
-- their kernels run in (and an older-generation kernel is named); other
-- categories: a 2x faster implementation saves at most half their time.
-- With the GPU idle over 10% of the step the bound is the critical path's
-- share (crit_m); the finding then fires when the unbounded saving passes
-- the floor, to say that faster kernels save little (its own saving may
-- be under the floor: it sorts last); over half the step, the host sets
-- the step (host_bound) and the finding says so.  GEMMs with no evidence
-- of their speed (unbounded: no shapes, tensor-core or unknown precision)
-- promise nothing: the finding fires on half their time, to say what to
-- record to bound them.  A replay of the trace with the kernels that much
-- faster bounds any of these (measure_replay).
-- Reads: measure_dominant, measure_floor, measure_gpu, measure_kernel_top, measure_replay,
--   measure_time, measure_top_category
SELECT round(100.0 * r.saving / t.job_step_ns, 1) AS priority, 'dominant_category' AS rule,
  CASE WHEN c.category = 'GEMM' AND NOT c.shaped THEN 'low' WHEN c.host_bound THEN 'low'
       WHEN c.category IN ('GEMM', 'Attention', 'Elementwise',
         'Convolution') THEN 'medium' ELSE 'low' END AS confidence,
  printf('%s kernels take %.0f%% of GPU time%s', c.category, 100.0 * c.dur / g.gpu_total,
    CASE WHEN c.host_bound THEN printf(', but the GPU idles %.0f%% of the step: faster ' ||
      'kernels save little',
        100.0 * (t.rank_step_ns - t.gpu_busy_ns) / t.rank_step_ns) ELSE '' END) AS title,
  printf('%s: %s of %s of GPU activity (kernel_category_sum%s), in %s of analysed time.%s',
    c.category,
    profdb_fmt_ns(c.dur), profdb_fmt_ns(g.gpu_total),
    CASE WHEN tc.pretrace_ns > 0 THEN printf(', which also counts %s of it launched before the ' ||
      'trace: no step''s own work', profdb_fmt_ns(tc.pretrace_ns)) ELSE '' END,
    profdb_fmt_ns(t.rank_step_ns),
    CASE WHEN c.category <> 'GEMM' THEN ''
      ELSE printf(' %.0f%% of it in %s kernels (from their names)%s.', 100.0 * c.precision_share,
        c.precision,
        CASE WHEN c.shaped THEN printf('; where shapes were recorded they reach %.0f%% of the ' ||
          '%s peak (gemm_efficiency)%s', c.peak_pct, c.peak_device,
               CASE WHEN c.peak_assumed THEN printf(' - the model is assumed: the GPU work ' ||
                 'ran on a device the trace''s deviceProperties do not list, and they list ' ||
                   'only %s', c.peak_device) ELSE '' END)
             WHEN c.ev_shaped THEN printf('; the device''s peak is unknown (its model is not ' ||
               'in deviceProperties or not in the peak table): where shapes were recorded the ' ||
                 'fastest shape reaches %.1f TFLOP/s (gemm_efficiency)', c.ev_best_tflops)
             ELSE '' END) END)
    || CASE WHEN c.host_bound THEN printf(' The GPU is idle %s: the host ' ||
      'sets the step, and only %s of the %s time per rank step runs while something waits for ' ||
        'it (a host-blocking call, or the step''s GPU work past its CPU range)%s.',
         t.gpu_idle_words, profdb_fmt_ns(c.crit),
           c.category, c.pinned_words)
       WHEN c.crit_bound THEN printf(' The GPU is idle %s, so a faster ' ||
         'kernel shortens the step only where something waits for it (a host-blocking call, ' ||
           'or the step''s GPU work past its CPU range): %s of the %s time per rank step (%.0f%%)%s.',
         t.gpu_idle_words, profdb_fmt_ns(c.crit),
           c.category, 100.0 * min(1.0,
           c.crit / max(c.dur, 1)), c.pinned_words) ELSE '' END
    || CASE WHEN c.category = 'Convolution' AND c.transpose_ns >= 0.1 * c.dur
         THEN printf(' %.0f%% of it (%s) is layout transposes (batched_transpose / nchwToNhwc ' ||
           'kernels) between NCHW tensors and NHWC convolution kernels.',
             100.0 * c.transpose_ns / c.dur,
               profdb_fmt_ns(c.transpose_ns)) ELSE '' END AS observation,
  CASE WHEN c.host_bound
         THEN printf('The host, not the GPU, sets the step: the GPU waits for the CPU to ' ||
           'launch work %.0f%% of the time (gpu_idle), so how fast the %s kernels run barely ' ||
             'changes the step.', 100.0 * (t.rank_step_ns - t.gpu_busy_ns) / t.rank_step_ns,
               c.category)
    -- (fp32 GEMMs near fp32's peak are far from a half precision's: the bound
    -- takes that peak; issue 44's ninth unseen audit, a 78% fp32 GEMM promised
    -- 418 ms while told faster kernels would not help)
    WHEN c.category = 'GEMM' AND c.shaped AND c.peak_pct >= 60 AND c.precision IN ('fp32', 'tf32')
         THEN printf('The GEMMs already run at %.0f%% of the device''s fp32 peak: a faster fp32 ' ||
           'kernel gains little, but the tensor cores'' %s peak is several times higher.',
             c.peak_pct, c.half)
    WHEN c.category = 'GEMM' AND c.shaped AND c.peak_pct >= 60
         THEN printf('The GEMMs already run at %.0f%% of the device''s peak in %s: they are ' ||
           'near their limit, so gains come from doing fewer or smaller ones, not from faster ' ||
             'kernels.', c.peak_pct, c.precision)
    ELSE CASE c.category
    WHEN 'GEMM' THEN CASE WHEN c.shaped AND c.mem_share >= 0.5
      THEN 'Matrix multiplies dominate, and most of their bound is memory: their shapes do ' ||
        'little arithmetic per byte (a small dimension: few rows such as decode-time tokens or ' ||
          'batch, or a small inner or output size), so they run at the speed the operands ' ||
            'stream from memory, not at the tensor cores'' peak.'
      ELSE 'Matrix multiplies dominate: the model is compute-bound in GEMMs, so ' ||
        'gains come from doing them faster or doing fewer.' END
    WHEN 'Attention' THEN 'Attention dominates: long sequences or an attention implementation ' ||
      'without fused kernels.'
    WHEN 'Convolution' THEN CASE WHEN c.transpose_ns >= 0.1 * c.dur
      THEN 'Convolutions dominate, and the model''s tensors are NCHW while the convolution ' ||
        'kernels run NHWC: every convolution transposes its inputs and outputs.'
      ELSE 'Convolutions dominate: layout conversions or untuned algorithms can cost a large ' ||
        'factor.' END
    WHEN 'Elementwise' THEN 'Memory-bound elementwise kernels dominate: the work is split ' ||
      'into many unfused passes over memory.'
    WHEN 'Normalization' THEN 'Normalization kernels dominate: they are memory-bound and ' ||
      'usually fusable.'
    ELSE 'This category is where most GPU time goes; it is the first place to optimize.' END END
      AS hypothesis,
  CASE WHEN c.host_bound THEN 'First keep the GPU busy (gpu_idle, data_loading, launch_bound, ' ||
    'synchronization: input pipeline, fewer and larger kernels, CUDA graphs, no host syncs); ' ||
      'only then do faster kernels shorten the step. For the kernels themselves: ' ELSE '' END
  || CASE WHEN c.category = 'GEMM' THEN
    iif(c.unbounded, 'Record shapes first (torch.profiler.profile(record_shapes=True)): ' ||
      'without them nothing tells how fast these GEMMs already are. ', '')
    || CASE WHEN c.old_name IS NOT NULL AND c.old_share >= 0.2
      THEN printf('%.0f%% of GEMM time runs in kernels built for an older GPU than this %s ' ||
        '(sm%d): the largest is %s (sm%d). cuBLAS falls back to them for shapes its newer ' ||
          'kernels do not take, or the library that launches them was built without sm%d: ' ||
            'update PyTorch / cuBLAS (or rebuild that library for sm%d), keep dimensions ' ||
              'multiples of 16, and try torch.compile(mode="max-autotune"). ',
        100.0 * c.old_share, c.device_name, c.cc, c.old_name, c.old_arch, c.cc, c.cc) ELSE '' END
    || CASE c.precision
      -- (GeForce Ampere and Ada run TF32 on tensor cores at about their fp32
      -- rate: issue 44's third unseen audit, an RTX 3060 told TF32 would help)
      WHEN 'fp32' THEN CASE
        -- (memory-bound shapes: issue 44's ninth unseen audit, M = 10 matmuls
        -- told TF32 would help, which keeps their fp32 bytes)
        WHEN c.shaped AND c.mem_share >= 0.5
          THEN printf('These GEMMs run in fp32 and are memory-bound: %s halves the bytes ' ||
            'they read (for inference keep the weights in it, model.to(torch.%s), rather than ' ||
              'casting them every call); TF32 would not help (it keeps fp32''s bytes). Where the ' ||
                'small dimension is tokens or requests, batch more per call if the workload allows.',
            c.half, iif(c.half = 'fp16', 'float16', 'bfloat16'))
        WHEN c.cc < 70 THEN 'These GEMMs run in fp32 on a GPU without tensor cores (before ' ||
          'Volta): lower precision gains little here (fp16 runs at most twice fp32''s rate, ' ||
            'and on most such GPUs far slower); gains come from fewer or larger GEMMs.'
        -- (Volta and Turing have fp16 tensor cores, but no bf16 or TF32 ones:
        -- issue 44's ninth unseen audit, T4 traces)
        WHEN c.cc < 80 OR c.half = 'fp16'
          THEN 'These GEMMs run in fp32 on CUDA cores: use fp16 autocast ' ||
          '(torch.autocast("cuda", dtype=torch.float16), with torch.amp.GradScaler("cuda") for ' ||
            'training): this GPU has fp16 tensor cores, but no bf16 or TF32 ones; keep matrix ' ||
              'dimensions multiples of 8.'
        ELSE 'These GEMMs run in fp32 on CUDA cores: use bf16/fp16 autocast ' ||
        '(torch.autocast("cuda", dtype=torch.bfloat16))' ||
          CASE WHEN c.device_name GLOB '*GeForce*'
            THEN '; TF32 would not help here (on GeForce GPUs its tensor-core rate is about ' ||
              'fp32''s)'
            ELSE ', or TF32 (torch.set_float32_matmul_precision("high")) on Ampere or newer' END ||
          '; keep matrix dimensions multiples of 8/16.' END
      WHEN 'tf32' THEN 'These GEMMs run in TF32 on tensor cores: bf16/fp16 autocast doubles ' ||
        'the tensor-core peak; keep matrix dimensions multiples of 8/16.'
      WHEN 'fp16/bf16' THEN 'These GEMMs already run on tensor cores in fp16/bf16 (autocast ' ||
        'changes nothing): check the top kernels for small or odd shapes (dimensions ' ||
          'multiples of 16, batch many small GEMMs or use grouped GEMMs), fuse their ' ||
            'epilogues (torch.compile), and on Hopper or newer consider FP8 (Transformer ' ||
              'Engine, torchao float8).'
      WHEN 'fp8' THEN 'These GEMMs already run in FP8: check the top kernels for small or odd ' ||
        'shapes and fuse the scaling and epilogues; NVFP4 / MXFP4 only on Blackwell, where ' ||
          'accuracy allows.'
      WHEN 'fp4' THEN 'These GEMMs already run in 4-bit floating point (NVFP4 / MXFP4), the ' ||
        'lowest precision tensor cores offer: gains come from their shapes (tile-friendly ' ||
          'dimensions, grouped GEMMs), fusing quantization and epilogues, or doing fewer GEMMs.'
      ELSE 'Check the top kernels: their precision (fp32 GEMMs gain from bf16/fp16 autocast ' ||
        'or TF32), and small or odd shapes (keep dimensions multiples of 8/16).' END
  ELSE CASE c.category
    WHEN 'Attention' THEN 'Use scaled_dot_product_attention / FlashAttention kernels, and ' ||
      'consider shorter or packed sequences.'
    WHEN 'Convolution' THEN CASE WHEN c.transpose_ns >= 0.1 * c.dur
      THEN printf('Convert the model and its inputs to channels_last: model = ' ||
        'model.to(memory_format=torch.channels_last) and x = ' ||
          'x.to(memory_format=torch.channels_last) for each input; that removes the layout ' ||
            'transposes (%s per rank step). Then torch.backends.cudnn.benchmark=True.',
              profdb_fmt_ns(c.transpose_ns))
      ELSE 'Use channels_last memory format, torch.backends.cudnn.benchmark=True, and autocast.' END
    WHEN 'Elementwise' THEN 'Fuse elementwise chains with torch.compile (or fused kernels ' ||
      'such as Liger), and avoid needless copies and casts.'
    WHEN 'Normalization' THEN 'Use fused normalization kernels or torch.compile.'
    ELSE 'Open the top kernels of this category and check their shapes and implementations.' END
      END AS action,
  CASE WHEN c.category = 'GEMM' AND c.shaped
         THEN printf('Up to %s (%.0f%% of the job step): the GEMMs'' time above what their ' ||
           'FLOPs take at 60%% of the %s''s dense peak (for fp32 calls its %s peak), the ' ||
             'level tuned large GEMMs reach%s; from the recorded shapes%s.',
           profdb_fmt_ns(r.saving), 100.0 * r.saving / t.job_step_ns, c.peak_device,
           c.half,
           CASE WHEN c.mem_share > 0 THEN printf(', or, where longer, what their operands ' ||
             'and result take at its peak memory bandwidth (%s for fp32 calls): %.0f%% of ' ||
               'that floor is memory', c.half, 100.0 * c.mem_share)
             ELSE '' END,
           CASE WHEN c.peak_assumed THEN printf('; assumed: the device is the %s, the one ' ||
             'model the trace lists', c.peak_device) ELSE '' END)
       WHEN c.category = 'GEMM' AND c.ev_shaped
         THEN printf('Up to %s (%.0f%% of the job step): the GEMMs'' time above what their ' ||
           'FLOPs take at %.1f TFLOP/s, the rate of this trace''s fastest GEMM shape; ' ||
             'assumed: the device''s peak is unknown, so what this device is seen to reach ' ||
               'stands in for it.',
           profdb_fmt_ns(r.saving), 100.0 * r.saving / t.job_step_ns, c.ev_best_tflops)
       WHEN c.category = 'Convolution' AND c.transpose_ns >= 0.1 * c.dur AND NOT c.host_bound
         THEN printf('Up to %s (%.0f%% of the job step): channels_last removes the %s of ' ||
           'layout transposes; beyond them, a 2x faster Convolution (cudnn.benchmark picking ' ||
             'faster algorithms) is a guess.',
           profdb_fmt_ns(r.saving), 100.0 * r.saving / t.job_step_ns, profdb_fmt_ns(c.transpose_ns))
       WHEN c.unbounded
         THEN printf('Nothing promised: no recorded shapes tell how near the device''s peak ' ||
           'these %s GEMMs already run (their kernels are tuned library kernels, which run ' ||
             'near it on large shapes), so a faster GEMM is no evidence. Record shapes ' ||
               '(torch.profiler.profile(record_shapes=True)) and re-run the report: ' ||
                 'gemm_efficiency then bounds them against the device''s peak.', c.precision)
       WHEN c.category = 'GEMM'
         THEN printf('Up to %s (%.0f%% of the job step): these GEMMs run in %s (from their ' ||
           'names), and a lower precision''s tensor-core peak is at least 2x theirs; a bound ' ||
             'from the kernel names alone: no recorded shapes tell how fast they already are ' ||
               '(record_shapes=True, gemm_efficiency).', profdb_fmt_ns(r.saving),
           100.0 * r.saving / t.job_step_ns, c.precision)
       ELSE printf('A 2x faster %s would save at most %s (%.0f%% of the job step).', c.category,
         profdb_fmt_ns(r.saving), 100.0 * r.saving / t.job_step_ns) END
    || CASE WHEN c.crit_bound AND NOT c.unbounded AND (c.host_bound OR c.crit < c.dur)
             AND NOT r.replay_bound
       THEN printf(' Bounded by ' ||
      'the critical path: the GPU idles %s, so a faster %s saves the ' ||
        'same share of only its %s per rank step that something waits for, not of all its %s%s.',
         t.gpu_idle_words, c.category,
           profdb_fmt_ns(c.crit),
           profdb_fmt_ns(c.dur),
         iif(c.host_bound, '; the host-side findings (gpu_idle, data_loading, launch_bound, ' ||
           'synchronization) come first', '')) ELSE '' END
    || CASE WHEN r.replay_bound
       THEN printf(' Bounded by a replay of the trace on its critical path''s graph ' ||
         '(critical_path) with these kernels that much faster: the analysed time ends only %s ' ||
           'sooner per rank step, not %s: the step''s end waits mostly on other work (the ' ||
             'host, other streams, launches).', profdb_fmt_ns(r.saving), profdb_fmt_ns(c.saving))
       ELSE '' END AS expected_impact,
  printf('Re-profile: the %s share in kernel_category_sum drops, and step time with it.',
    c.category) AS validation,
  0 AS needs_artifact, round(min(100.0 * r.saving / t.job_step_ns, 100), 2) AS expected_saving_pct,
    r.saving AS expected_saving_ns, NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('kernel', name, 'dur_ns', dur)) FROM (
     SELECT name, sum(dur) AS dur, coalesce(name = c.old_name, 0) AS older
     FROM measure_kernel_top WHERE category = c.category
     GROUP BY name ORDER BY older DESC, dur DESC, name LIMIT 3)) AS subjects,
  json_object('sections', json_array('kernel_category_sum', 'gpu_kernel_sum', 'gemm_efficiency'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'category', c.category, 'category_ns', c.dur,
      'gpu_total_ns', g.gpu_total, 'precision', iif(c.category = 'GEMM', c.precision, NULL),
      'shaped_ns', iif(c.category = 'GEMM', c.covered_ns, NULL),
      'peak_pct', iif(c.category = 'GEMM', round(c.peak_pct, 1), NULL),
      'older_kernel', iif(c.category = 'GEMM' AND c.old_share >= 0.2, c.old_name, NULL),
      'peak_device', iif(c.category = 'GEMM' AND c.shaped, c.peak_device, NULL),
      'peak_model_assumed', iif(c.category = 'GEMM' AND c.shaped, c.peak_assumed, NULL),
      'shapes_needed', iif(c.category = 'GEMM', c.unbounded, NULL),
      'evidence_tflops', iif(c.category = 'GEMM' AND c.ev_shaped, round(c.ev_best_tflops, 2), NULL),
      'gpu_idle_pct', round(100.0 * (t.rank_step_ns - t.gpu_busy_ns) / t.rank_step_ns, 1),
      'critical_path_ns', iif(c.crit_bound, CAST(round(c.crit) AS INTEGER), NULL),
      'replay_ns', CAST(round(r.replay_ns) AS INTEGER),
      'transpose_ns', iif(c.category = 'Convolution', CAST(round(c.transpose_ns) AS INTEGER),
        NULL))) AS evidence, 0 AS cut_may_explain
FROM (SELECT *, CASE WHEN crit_pinned >= 1000 THEN printf('; %s more is waited for (it runs ' ||
        'inside such a wait, or in the GPU work queued into one) but before the GPU, later ' ||
        'in its span, waits on something else (a collective ' ||
          'that waits for a peer or whose peers are not loaded, or an idle gap over 1 ms with ' ||
            'work queued): finished sooner, it only lengthens that wait',
          profdb_fmt_ns(crit_pinned)) ELSE '' END AS pinned_words
      FROM measure_dominant) c, measure_replay r, measure_gpu g, measure_time t, measure_floor f,
  measure_top_category tc
WHERE g.gpu_total > 0 AND t.rank_step_ns > 0 AND c.dur > 0.3 * g.gpu_total
  AND c.category NOT IN ('NCCL/communication', 'Memcpy', 'Other')
  AND (CASE WHEN c.unbounded THEN c.dur / 2 WHEN c.crit_bound THEN c.saving0 ELSE c.saving END)
    >= f.min_pct / 100 * t.job_step_ns
  AND (CASE WHEN c.unbounded THEN c.dur / 2 WHEN c.crit_bound THEN c.saving0 ELSE c.saving END)
    >= f.min_ns;
