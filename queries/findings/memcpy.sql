-- Rule: memcpy
-- 6. Host-device copies: at most the copy time with no kernel running
-- (step_time memcpy_ns); copies behind compute cost no step time.  Mostly
-- peer copies (between GPUs): they cannot be avoided like same-device
-- copies, only overlapped with compute, so at most the kernel time there
-- is to hide them behind (t.kernel_ns).  With the GPU idle over 10% of
-- the rank step, at most the copy time something waits for
-- (measure_critical.crit_copy, as the kernel-time rules: a copy nothing
-- waits for only lengthens the GPU's idle after it).  At most what a
-- replay of the trace gains with every copy removed
-- (measure_replay_removed, Memcpy).
-- Reads: measure_copy, measure_critical, measure_floor, measure_gpu, measure_kernel_top,
--   measure_replay_removed, measure_time
SELECT round(100.0 * x.saving / t.job_step_ns, 1) AS priority, 'memcpy' AS rule,
  'medium' AS confidence,
  printf('Memory copies take %.0f%% of GPU time, %.0f%% of the job step with no kernel running',
    100.0 * g.memcpy / g.gpu_total, 100.0 * t.memcpy_exposed_ns / t.rank_step_ns) AS title,
  printf('Copies: %s of %s of GPU activity (see memcpy_sum for directions and bandwidth); %s ' ||
    'of the %s analysed time had copies and no kernel running (step_time_sum).',
    profdb_fmt_ns(g.memcpy), profdb_fmt_ns(g.gpu_total), profdb_fmt_ns(t.memcpy_exposed_ns),
      profdb_fmt_ns(t.rank_step_ns)) AS observation,
  CASE WHEN c.ptop >= 0.5 * c.total THEN printf('Most copy time (%.0f%%) is peer copies ' ||
    'between GPUs (Memcpy PtoP: tensors moved from one GPU to another, such as ' ||
      'tensor.to("cuda:1") in a model split over GPUs in one process), not copies within a ' ||
        'GPU nor host transfers.', 100.0 * c.ptop / c.total)
    WHEN c.dtod >= 0.5 * c.total THEN printf('Most copy time (%.0f%%) is device-to-device: ' ||
    'tensors copied on the GPU (.contiguous(), clone, torch.cat, dtype or memory-format ' ||
      'changes), not host transfers.', 100.0 * c.dtod / c.total)
    WHEN c.pageable >= 0.5 * (c.total - c.dtod) THEN 'Data moves between host and device ' ||
      'every step from pageable memory (offloading, inputs, or results copied back).'
    ELSE 'Data moves between host and device every step; the host side is already pinned ' ||
      'memory, yet nothing runs on the GPU beside the copies.' END AS hypothesis,
  CASE WHEN c.ptop >= 0.5 * c.total THEN 'These are transfers between GPUs: keep each ' ||
    'tensor on the GPU that uses it where the model allows; check that they run GPU to GPU ' ||
      'over NVLink or PCIe P2P (nvidia-smi topo -m; peer access enabled), not staged through ' ||
        'host memory; and overlap them with compute: issue them early with non_blocking=True ' ||
          'on a side stream, or move to one process per GPU with NCCL collectives. Pinning ' ||
            'host memory does not apply to them, and neither does same-device advice.'
    WHEN c.dtod >= 0.5 * c.total THEN 'Find the operators that launch these copies ' ||
    '(op_gpu_sum, memcpy_sum) and avoid them: keep views instead of .contiguous() copies, one ' ||
      'memory format end to end (channels_last), in-place ops, preallocated outputs instead ' ||
        'of torch.cat. Pinning host memory does not help device-to-device copies.'
    WHEN c.pageable >= 0.5 * (c.total - c.dtod) THEN 'Keep tensors on the device, pin host ' ||
      'memory (pin_memory=True) and copy with non_blocking=True, and batch small copies.'
    ELSE 'Overlap the copies with compute: issue them earlier on a side stream (prefetch the ' ||
      'next batch while this one runs), or keep the data on the device between steps; batch ' ||
        'small copies.' END AS action,
  CASE WHEN x.replay_bound THEN printf('Up to %s (%.0f%% of the job step): a replay of the ' ||
    'trace on its critical path''s graph (critical_path) with every copy removed ends the ' ||
      'analysed time only that much sooner per rank step, less than the %s of copy time not ' ||
        'hidden behind kernels: the step''s end waits mostly on other work.',
    profdb_fmt_ns(x.saving), 100.0 * x.saving / t.job_step_ns, profdb_fmt_ns(x.saving0))
    WHEN x.crit_bounded THEN printf('Up to %s (%.0f%% of the job step): of the %s of ' ||
    'copy time not hidden behind kernels%s, only the part something waits for (a ' ||
      'host-blocking call, or the GPU work the next step queues behind, after the GPU''s last ' ||
        'wait on other work in the step): the GPU idles %s, and a copy ' ||
          'nothing waits for, finished sooner, only lengthens the idle after it.',
    profdb_fmt_ns(x.saving), 100.0 * x.saving / t.job_step_ns, profdb_fmt_ns(x.saving0),
      CASE WHEN c.ptop >= 0.5 * c.total THEN ' (at most the kernel time to overlap them with)'
           ELSE '' END, t.gpu_idle_words)
    WHEN c.ptop >= 0.5 * c.total THEN printf('Up to %s (%.0f%% of the job step): the ' ||
    'copy time not hidden behind kernels (%s), at most the kernel time to overlap it with ' ||
      '(%s); peer copies move data another GPU needs, so overlap, not removal, is what is ' ||
        'promised.', profdb_fmt_ns(x.saving), 100.0 * x.saving / t.job_step_ns,
          profdb_fmt_ns(t.memcpy_exposed_ns), profdb_fmt_ns(t.kernel_ns))
    ELSE printf('Up to %s (%.0f%% of the job step): the copy time not hidden behind kernels.',
    profdb_fmt_ns(x.saving), 100.0 * x.saving / t.job_step_ns) END AS expected_impact,
  'Re-profile: step_time_sum memcpy share down, memcpy_sum bandwidth (gbps) up for pinned ' ||
    'copies.' AS validation,
  0 AS needs_artifact, round(100.0 * x.saving / t.job_step_ns, 2) AS expected_saving_pct,
    x.saving AS expected_saving_ns, NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('copy', name, 'dur_ns', dur)) FROM (
     SELECT name, sum(dur) AS dur FROM measure_kernel_top WHERE kind = 'memcpy'
     GROUP BY name ORDER BY dur DESC, name LIMIT 3)) AS subjects,
  json_object('sections', json_array('memcpy_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'memcpy_ns', g.memcpy,
      'memcpy_exposed_ns', t.memcpy_exposed_ns, 'gpu_total_ns', g.gpu_total,
      'dtod_copy_ns', c.dtod, 'peer_copy_ns', c.ptop, 'pageable_copy_ns', c.pageable,
      'critical_path_ns', iif(t.critical_path_bound, x.crit_copy, NULL),
      'replay_removed_ns', CAST(round(x.replay_ns) AS INTEGER)))
        AS evidence, 1 AS cut_may_explain
FROM measure_gpu g, measure_time t, measure_floor f, measure_copy c,
  (SELECT *, coalesce(saving1 > binds_above, 0) AS replay_bound,
     iif(saving1 > binds_above, replay_ns, saving1) AS saving
   FROM (
  SELECT y.saving0, m.crit_copy, y.bounded AND m.crit_copy < y.saving0 AS crit_bounded,
     iif(y.bounded, min(m.crit_copy, y.saving0), y.saving0) AS saving1, r.replay_ns, r.binds_above
   FROM (SELECT CASE WHEN c2.ptop >= 0.5 * c2.total
                  THEN min(t2.memcpy_exposed_ns, coalesce(t2.kernel_ns, 0))
                  ELSE t2.memcpy_exposed_ns END AS saving0, t2.critical_path_bound AS bounded
         FROM measure_copy c2, measure_time t2) y, measure_critical m
   LEFT JOIN measure_replay_removed r ON r.kind = 'gpu:Memcpy')) x
WHERE g.gpu_total > 0 AND t.rank_step_ns > 0 AND g.memcpy > 0.1 * g.gpu_total
  AND t.memcpy_exposed_ns >= f.min_pct / 100 * t.job_step_ns AND t.memcpy_exposed_ns >= f.min_ns;
