-- Rule: launch_bound
-- 4. Many short kernels with an idle GPU: launch-bound.  Fusion and CUDA
-- graphs remove launch calls: they save at most the CPU time in
-- steady-state launch calls (each counted once; cold-start calls, one-time
-- module loading, left out: cold_start), and no more than the GPU idle
-- time that the calls and ranges of the other owners leave (launch_claim:
-- fusion removes no sync wait nor data loading); it fires when the GPU
-- idles over 20% of the time outside them.  Steps that already replay CUDA
-- graphs are told to capture what is still launched outside them.  At
-- most what a replay of the trace gains with every launch call's time
-- removed (measure_replay_removed, launch).  Calls after their span's
-- last GPU idle gap the host could fill are left out too (measure_launch:
-- hidden_ns).
-- Reads: measure_cold, measure_gpu, measure_graph, measure_kernel_top, measure_launch,
--   measure_launch_claim, measure_replay_removed, measure_time
SELECT round(100.0 * lc.saving / t.job_step_ns, 1) AS priority,
  'launch_bound' AS rule, 'medium' AS confidence,
  -- (the idle share outside the other owners' time beside the whole: issue
  -- 44's third unseen audit read "the GPU idles 78%" where 44.0 of 48.3 ms
  -- was the opening wait on work before the trace)
  printf('%.0f%% of kernels run under 10 us while the GPU idles %.0f%%%s',
    100.0 * g.short_kernels / g.kernels,
      100.0 * (t.rank_step_ns - t.gpu_busy_ns) / t.rank_step_ns,
    CASE WHEN lc.idle_left < 0.9 * (t.rank_step_ns - t.gpu_busy_ns)
      THEN printf(' (%.0f%% outside the time other rules own)',
        100.0 * max(lc.idle_left, 0) / t.rank_step_ns) ELSE '' END) AS title,
  -- (counts per rank step, as the times: issue 44's audit read "208 launch
  -- calls take 539.81 us" where 208 were four steps' calls and 539.81 us
  -- one step's time)
  printf('Per rank step, %d of %d kernels are shorter than 10 us, and %d launch calls take %s ' ||
    'of CPU time (launch_overhead)%s.',
    CAST(round(g.short_kernels * ps.k) AS INTEGER), CAST(round(g.kernels * ps.k) AS INTEGER),
    CAST(round(l.calls * ps.k) AS INTEGER), profdb_fmt_ns(l.launch_ns),
    CASE WHEN l.cold_calls + l.first_calls + l.hidden_calls > 0 THEN printf('; %s, left out: ' ||
      'the other %d take %s',
      (SELECT group_concat(part, ' and ') FROM (
         SELECT printf('%d of them are cold-start calls (the first launch of a kernel, over 1 ms ' ||
           'and 100x the median launch: cold_start) taking %s',
           CAST(round(l.cold_calls * ps.k) AS INTEGER), profdb_fmt_ns(l.cold_ns)) AS part
         WHERE l.cold_calls > 0
         UNION ALL
         SELECT printf('%d run inside an operator''s one-time first call (library set-up, ' ||
           'cuDNN autotuning: startup_calls) taking %s',
           CAST(round(l.first_calls * ps.k) AS INTEGER), profdb_fmt_ns(l.first_ns))
         WHERE l.first_calls > 0
         UNION ALL
         SELECT printf('%d come after the last GPU idle gap of their span that the host could ' ||
           'fill (the GPU runs work already queued to the span''s end, so shorter calls move ' ||
             'nothing) taking %s', CAST(round(l.hidden_calls * ps.k) AS INTEGER),
           profdb_fmt_ns(l.hidden_ns))
         WHERE l.hidden_calls > 0)),
      CAST(round((l.calls - l.cold_calls - l.first_calls - l.hidden_calls) * ps.k) AS INTEGER),
      profdb_fmt_ns(l.steady_ns)) ELSE '' END)
    AS observation,
  'Kernel launch overhead dominates: the work is split into many tiny kernels.' AS hypothesis,
  CASE WHEN gr.calls > 0 THEN 'Fuse operations (torch.compile) and increase the work per ' ||
    'kernel (larger batch); the steps already replay CUDA graphs, so capture the kernels ' ||
      'still launched one by one outside them (launch_overhead).'
       ELSE 'Fuse operations (torch.compile), use CUDA graphs (torch.compile ' ||
         'mode="reduce-overhead" or torch.cuda.graphs) for repeated steps, and increase the ' ||
           'work per kernel (larger batch).' END AS action,
  CASE WHEN lc.replay_bound
    THEN printf('Up to %s (%.0f%% of the job step): a replay of the trace on its critical ' ||
      'path''s graph (critical_path) with no time in any launch call ends the analysed time ' ||
        'only that much sooner per rank step, less than the %s of steady-state launch calls'' ' ||
          'CPU time in the GPU''s idle time: the GPU waits mostly on other work.',
      profdb_fmt_ns(lc.saving), 100.0 * lc.saving / t.job_step_ns, profdb_fmt_ns(lc.ns))
    ELSE printf('Up to %s (%.0f%% of the job step): the steady-state launch calls'' CPU ' ||
      'time, bounded by the GPU idle time outside the calls other findings own.',
      profdb_fmt_ns(lc.saving), 100.0 * lc.saving / t.job_step_ns) END AS expected_impact,
  'Re-profile: launch_overhead.short_kernel_pct and kernels per step down, ' ||
    'step_time_sum.mean_gpu_idle_pct down.' AS validation,
  0 AS needs_artifact, round(100.0 * lc.saving / t.job_step_ns, 2) AS expected_saving_pct,
  lc.saving AS expected_saving_ns, NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('kernel', name, 'short_instances', short)) FROM (
     SELECT name, short FROM measure_kernel_top WHERE kind = 'kernel' AND short > 0
     ORDER BY short DESC, name LIMIT 3)) AS subjects,
  json_object('sections', json_array('launch_overhead', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'gpu_busy_ns', t.gpu_busy_ns, 'kernels', g.kernels,
      'short_kernels', g.short_kernels, 'launch_call_ns', l.launch_ns,
      'cold_start_call_ns', l.cold_ns, 'first_call_launch_ns', l.first_ns,
      'hidden_call_ns', l.hidden_ns,
      'cold_start_idle_ns', CAST(round(cm.idle_ns) AS INTEGER),
      'idle_outside_other_owners_ns', CAST(round(lc.idle_left) AS INTEGER),
      'replay_removed_ns', CAST(round(lc.replay_ns) AS INTEGER),
      'graph_launches', gr.calls)) AS evidence, 1 AS cut_may_explain
FROM measure_gpu g, measure_time t, measure_launch l, measure_cold cm, measure_graph gr,
  -- (calls and kernels per rank step: the counts of the text)
  (SELECT 1.0 * ranks / max(rank_steps, 1) AS k FROM measure_time) ps,
  (SELECT *, coalesce(ns > binds_above, 0) AS replay_bound,
     iif(ns > binds_above, replay_ns, ns) AS saving
   FROM (SELECT c.*, r.replay_ns, r.binds_above
         FROM measure_launch_claim c LEFT JOIN measure_replay_removed r ON r.kind = 'launch')) lc
WHERE t.rank_step_ns > 0 AND lc.ns > 0;
