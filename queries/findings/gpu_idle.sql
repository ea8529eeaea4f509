-- Rule: gpu_idle
-- 1. The GPU waits: low utilization.  The fix (a host that keeps the GPU
-- fed) can save at most the idle time, less the idle time other findings
-- own (lib/38_claim.sql: cold-start launch calls, one-time set-up calls and
-- operators' first calls holding one-time work,
-- repeated allocator calls, host-blocking calls, DataLoader ranges, gaps
-- that began with GPU work already queued, a whole trace's start and end
-- around its GPU work and its first iteration (Optimizer.step ranges); and
-- launch_bound's bound, launch_claim); a GPU that barely
-- works (under 1% of the window or 100 us) is a CPU-bound run, not an
-- idle GPU.  It fires when the GPU idles over 30% of the time outside
-- those calls.  Steps that already
-- replay CUDA graphs are not told to use them.  A GPU-only capture (no
-- host record) promises nothing to the host: need_host_activity.
-- Reads: measure_claim, measure_counts, measure_floor, measure_gpu, measure_graph,
--   measure_launch_claim, measure_rank_time, measure_time
WITH
ranks_idle AS (
  SELECT json_group_array(json_object('rank', rank, 'label', label, 'gpu_idle_pct',
    round(idle_pct, 1)))
    AS subjects
  FROM (SELECT * FROM measure_rank_time ORDER BY idle_pct DESC, rank LIMIT 3)
)
SELECT round(100.0 * lc.rest / t.job_step_ns, 1) AS priority, 'gpu_idle' AS rule,
  CASE WHEN (t.rank_step_ns - t.gpu_busy_ns) > 0.5 * t.rank_step_ns AND t.steps > 0 THEN 'high'
    ELSE 'medium' END AS
    confidence,
  printf('The GPU is idle %.0f%% of the analysed time',
    100.0 * (t.rank_step_ns - t.gpu_busy_ns) / t.rank_step_ns) AS title,
  printf('Per rank step (%s): GPU busy %s of %s (%.1f%%); the rest: runtime calls %.1f%%, ' ||
    'data loading %.1f%%, other CPU work %.1f%%, nothing recorded %.1f%%.%s',
    CASE WHEN t.steps > 0 THEN j.job_step_words
         ELSE 'the whole trace: no ProfilerStep ranges, start-up included' END,
    profdb_fmt_ns(t.gpu_busy_ns), profdb_fmt_ns(t.rank_step_ns),
    100.0 * t.gpu_busy_ns / t.rank_step_ns,
    100.0 * t.runtime_ns / t.rank_step_ns, 100.0 * t.dataloader_ns / t.rank_step_ns,
      100.0 * t.cpu_ns / t.rank_step_ns,
    100.0 * t.unrecorded_ns / t.rank_step_ns,
    CASE WHEN cl.queued > 0 THEN printf(' %s of the idle time began with GPU work already ' ||
      'queued (launched, not started: the GPU waited on another stream, an event or work ' ||
      'outside the trace, not on the host): feeding the GPU sooner fills none of it.',
      profdb_fmt_ns(cl.queued)) ELSE '' END ||
    CASE WHEN cl.edges > 0 THEN printf(' %s of it lies before the first and after the last ' ||
      'GPU work of the trace (no ProfilerStep ranges: the profile''s start and end, not a ' ||
        'step): not promised.', profdb_fmt_ns(cl.edges)) ELSE '' END ||
    CASE WHEN cl.warm > 0 THEN printf(' %s of it lies in the trace''s first iteration (no ' ||
      'ProfilerStep ranges: until the first of its Optimizer.step ranges ends; the first call of ' ||
        'each operator, the warm-up a ProfilerStep schedule leaves out): not promised.',
      profdb_fmt_ns(cl.warm)) ELSE '' END ||
    CASE WHEN cl.graph > 0 THEN printf(' %s of it lies inside CUDA/HIP graph launch calls ' ||
      '(the one call a replay costs: only fewer, larger graphs shorten it): not promised.',
      profdb_fmt_ns(cl.graph)) ELSE '' END ||
    CASE WHEN cl.by_others + lc.ns > 0 THEN printf(' Of the idle ' ||
      'time, %s is left to other rules, not promised here (their own actions remove it; each ' ||
      'promises only what its own bounds allow, in a finding of its own above the floor): %s.',
      profdb_fmt_ns(cl.by_others + lc.ns), rtrim(ltrim(
      CASE WHEN cl.cold > 0 THEN printf(' %s in cold-start launch calls (cold_start);',
        profdb_fmt_ns(cl.cold)) ELSE '' END
      || CASE WHEN cl.startup > 0 THEN printf(' %s in one-time set-up calls (startup_calls);',
        profdb_fmt_ns(cl.startup)) ELSE '' END
      || CASE WHEN cl.alloc > 0 THEN printf(' %s in repeated allocator calls ' ||
        '(allocator_calls);', profdb_fmt_ns(cl.alloc)) ELSE '' END
      || CASE WHEN cl.outside > 0 THEN printf(' %s blocked on work outside the trace ' ||
        '(wait_outside_trace);', profdb_fmt_ns(cl.outside)) ELSE '' END
      || CASE WHEN cl.explicit > 0 THEN printf(' %s in explicit synchronize calls ' ||
        '(explicit_sync);', profdb_fmt_ns(cl.explicit)) ELSE '' END
      || CASE WHEN cl.op_sync > 0 THEN printf(' %s in host syncs (synchronization);',
        profdb_fmt_ns(cl.op_sync)) ELSE '' END
      || CASE WHEN cl.dataloader > 0 THEN printf(' %s in data loading (data_loading);',
        profdb_fmt_ns(cl.dataloader)) ELSE '' END
      || CASE WHEN lc.ns > 0 THEN printf(' %s for the launch calls'' CPU time (launch_bound);',
        profdb_fmt_ns(lc.ns)) ELSE '' END), ';'))
    ELSE '' END) AS observation,
  'The host does not feed the GPU fast enough: Python and operator dispatch overhead, many ' ||
    'small kernels, data loading or synchronization leave the GPU waiting.' AS hypothesis,
  CASE WHEN gr.calls > 0 THEN printf('Look at the launch overhead, synchronization and GPU ' ||
    'idle sections; the steps already replay CUDA graphs (%d graph launches per rank): remove ' ||
      'host syncs and CPU work between the replays, capture the work still launched outside ' ||
        'the graphs, and overlap data loading with compute.', gr.calls / t.ranks)
       ELSE 'Look at the launch overhead, synchronization and GPU idle sections; remove host ' ||
         'syncs from the loop, fuse small operations (torch.compile), capture repeated steps ' ||
           'with CUDA graphs, and overlap data loading with compute.' END AS action,
  printf('Up to %s (%.0f%% of the job step) if the GPU were kept busy%s.', profdb_fmt_ns(lc.rest),
    100.0 * lc.rest / t.job_step_ns,
    CASE WHEN cl.queued > 0 THEN ', the idle time with GPU work queued and that other ' ||
      'findings own left out'
      WHEN cl.warm > 0 THEN ', the idle time of the first iteration and that other findings ' ||
      'own left out'
      WHEN cl.edges > 0 THEN ', the idle time at the trace''s start and end and that other ' ||
      'findings own left out'
      WHEN cl.graph > 0 THEN ', the idle time in graph launch calls and that other findings ' ||
      'own left out'
      WHEN cl.claimed + lc.ns > 0 THEN ', the idle time other findings own left out' ELSE ''
      END) AS expected_impact,
  'Re-profile: step_time_sum.mean_gpu_idle_pct below 20% and mean_wall_ns down.' AS validation,
  0 AS needs_artifact,
  round(100.0 * lc.rest / t.job_step_ns, 2) AS expected_saving_pct,
  lc.rest AS expected_saving_ns,
  NULL AS expected_saving_bytes, r.subjects AS subjects,
  json_object('sections', json_array('step_time_sum', 'gpu_util'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'gpu_busy_ns', t.gpu_busy_ns,
      'cold_start_idle_ns', CAST(round(cl.cold) AS INTEGER),
      'queued_idle_ns', CAST(round(cl.queued) AS INTEGER),
      'edge_idle_ns', CAST(round(cl.edges) AS INTEGER),
      'graph_launch_idle_ns', CAST(round(cl.graph) AS INTEGER),
      'warm_up_idle_ns', CAST(round(cl.warm) AS INTEGER),
      'other_findings_idle_ns', CAST(round(cl.by_others + lc.ns) AS INTEGER),
      'graph_launches',
        gr.calls)) AS evidence, 1 AS cut_may_explain
FROM measure_time t, measure_gpu g, ranks_idle r, measure_floor f, measure_time j,
  measure_claim cl, measure_graph gr, measure_launch_claim lc, measure_counts hc
WHERE g.activities > 0 AND hc.host_recorded AND t.rank_step_ns > 0 AND lc.rest > 0.3 * (t.rank_step_ns - cl.claimed -
  lc.ns)
  AND t.gpu_busy_ns >= f.min_pct / 100 * t.job_step_ns AND t.gpu_busy_ns >= f.min_ns
  AND lc.rest >= f.min_ns;
