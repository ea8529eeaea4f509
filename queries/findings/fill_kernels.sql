-- Rule: fill_kernels
-- 7. Fill/zero kernels: at most their GPU time; with the GPU idle over
-- 10% of the step, their time on the critical path (crit_m.crit_fill, as
-- dominant_category), and the finding fires when their GPU time passes
-- the floor, to say so.  At most what a replay of the trace gains with
-- the fill kernels removed (measure_replay_removed, fill).
-- Reads: measure_critical, measure_floor, measure_gpu, measure_kernel_top, measure_replay_removed,
--   measure_time
SELECT round(100.0 * x.saving / t.job_step_ns, 1) AS priority, 'fill_kernels' AS rule,
  iif(x.host_bound,
  'low', 'medium') AS confidence,
  printf('Fill and zero kernels take %.0f%% of GPU time%s', 100.0 * g.fill / g.gpu_total,
    CASE WHEN x.host_bound THEN printf(', but the GPU idles %.0f%% of the step: removing them ' ||
      'saves little',
        100.0 * (t.rank_step_ns - t.gpu_busy_ns) / t.rank_step_ns) ELSE '' END) AS title,
  printf('FillFunctor/zero kernels: %s of %s of GPU activity (fill_kernel_sum shows the ' ||
    'launching ops and shapes), in %s of analysed time.%s',
    profdb_fmt_ns(g.fill), profdb_fmt_ns(g.gpu_total), profdb_fmt_ns(t.rank_step_ns),
    CASE WHEN x.host_bound THEN printf(' The GPU is idle %s: the host ' ||
      'sets the step, and only %s of the fill kernels'' time per rank step runs while ' ||
        'something waits for it (a host-blocking call, or the step''s GPU work past its CPU ' ||
          'range).',
      t.gpu_idle_words, profdb_fmt_ns(x.saving1))
    WHEN x.critical_path_bound THEN printf(' The GPU is idle %s, so removing them ' ||
      'shortens the step only where something waits for them (a host-blocking call, or the ' ||
        'step''s GPU work past its CPU range): %s of the fill kernels'' time per rank step.',
      t.gpu_idle_words,
        profdb_fmt_ns(x.saving1)) ELSE '' END) AS observation,
  'Large tensors are allocated and zeroed every step (torch.zeros, zero_grad without ' ||
    'set_to_none, padding buffers).' AS hypothesis,
  CASE WHEN x.host_bound THEN 'First keep the GPU busy (gpu_idle, data_loading, launch_bound, ' ||
    'synchronization); the fills cost step time only where the host waits for them. ' ELSE '' END
  || 'Reuse buffers across steps, use torch.empty where the values are overwritten, and ' ||
    'zero_grad(set_to_none=True).' AS action,
  printf('Up to %s (%.0f%% of the job step)%s.', profdb_fmt_ns(x.saving),
    100.0 * x.saving / t.job_step_ns,
    CASE WHEN x.replay_bound THEN printf(': a replay of the trace on its critical path''s ' ||
      'graph (critical_path) without them ends the analysed time only that much sooner per ' ||
        'rank step, not by their %s: the step''s end waits mostly on other work',
        profdb_fmt_ns(x.saving1))
    WHEN x.host_bound OR (x.critical_path_bound AND x.saving1 < g.fill) THEN printf(': bounded by ' ||
      'the critical path, the part of their %s per rank step that something waits for',
        profdb_fmt_ns(g.fill)) ELSE '' END) AS expected_impact,
  'Re-profile: fill_kernel_sum total_dur_ns down.' AS validation,
  0 AS needs_artifact, round(min(100.0 * x.saving / t.job_step_ns, 100), 2) AS expected_saving_pct,
    x.saving AS expected_saving_ns, NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('kernel', name, 'dur_ns', dur)) FROM (
     SELECT name, sum(dur) AS dur FROM measure_kernel_top WHERE kind = 'kernel' AND is_fill
     GROUP BY name ORDER BY dur DESC, name LIMIT 3)) AS subjects,
  json_object('sections', json_array('fill_kernel_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'fill_ns', g.fill, 'gpu_total_ns', g.gpu_total,
      'critical_path_ns', iif(x.critical_path_bound, CAST(round(x.saving1) AS INTEGER), NULL),
      'replay_removed_ns', CAST(round(x.replay_ns) AS INTEGER))) AS evidence,
        0 AS cut_may_explain
FROM measure_gpu g, measure_time t, measure_floor f,
  (SELECT *, coalesce(saving1 > binds_above, 0) AS replay_bound,
     iif(saving1 > binds_above, replay_ns, saving1) AS saving
   FROM (SELECT t2.gpu_busy_ns < 0.5 * t2.rank_step_ns AS host_bound, t2.critical_path_bound,
           CASE WHEN t2.critical_path_bound THEN min(cm.crit_fill, g2.fill) ELSE g2.fill END
             AS saving1, r.replay_ns, r.binds_above
         FROM measure_time t2, measure_critical cm, measure_gpu g2
         LEFT JOIN measure_replay_removed r ON r.kind = 'fill')) x
WHERE g.gpu_total > 0 AND t.rank_step_ns > 0 AND g.fill > 0.05 * g.gpu_total
  AND g.fill >= f.min_pct / 100 * t.job_step_ns AND g.fill >= f.min_ns;
