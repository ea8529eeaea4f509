-- Rule: synchronization
-- 3. Host-device synchronization.  A wait costs step time only while the
-- GPU has nothing to run: the bound is the blocked time with the
-- process's GPUs idle (sync_sum.gpu_idle_ns), not the blocked time, and
-- only the part of it in calls that an operator makes (lib/38_claim.sql:
-- the frees are allocator_calls', explicit synchronize calls outside
-- operators explicit_sync's, waits on work outside the trace
-- wait_outside_trace's).
-- Reads: measure_claim, measure_floor, measure_setup, measure_sync, measure_sync_top,
--   measure_time
WITH
-- The autotuning syncs inside convolutions that recur through the steps
-- (lib/38_claim.sql): calls per rank and their time per rank step.
autotune_m AS (
  SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(call_ns), 0) AS call_ns
  FROM measure_setup WHERE autotune AND repeated
)
SELECT round(100.0 * cl.op_sync / t.job_step_ns, 1) AS priority, 'synchronization' AS rule,
  CASE WHEN s.idle > 0.1 * t.rank_step_ns THEN 'high' ELSE 'medium' END AS confidence,
  printf('Host syncs leave the GPU idle %.1f%% of the job step',
    100.0 * cl.op_sync / t.rank_step_ns) AS title,
  printf('Host-blocking calls (%d, nested ones included) block the CPU for %s of %s (%.1f%%); ' ||
    'during %s of it (%.1f%%) no GPU work of the process was running (sync_sum).',
    s.calls, profdb_fmt_ns(s.sync), profdb_fmt_ns(t.rank_step_ns), 100.0 * s.sync / t.rank_step_ns,
    profdb_fmt_ns(s.idle), 100.0 * s.idle / t.rank_step_ns)
  || CASE WHEN abs(s.idle - cl.op_sync) >= 1 THEN printf(' Of that, %s is in syncs that ' ||
    'operators make (.item(), .cpu(), nonzero, blocking copies); the rest is other ' ||
      'findings'' (frees, explicit synchronize calls, waits on work outside the trace, ' ||
        'one-time autotuning).',
       profdb_fmt_ns(cl.op_sync)) ELSE '' END
  || CASE WHEN au.calls > 0 THEN printf(' %d synchronize call(s) per rank (%s per rank step) ' ||
    'are cuDNN / MIOpen autotuning inside convolutions that recurs through the steps: with ' ||
      'torch.backends.cudnn.benchmark each new input shape is searched again, so the shapes ' ||
        'change from step to step; fix them (pad or bucket the inputs) or set ' ||
          'torch.backends.cudnn.benchmark = False.',
       CAST(round(au.calls) AS INTEGER), profdb_fmt_ns(au.call_ns)) ELSE '' END AS observation,
  CASE WHEN y.is_copy = 2 AND y.idle >= 0.5 * s.idle
       THEN printf('Most of it is one kind of blocking copy: %s between the device and ' ||
         'pageable (not pinned) host memory (%d call(s) per rank, the longest %s, %s of GPU ' ||
           'idle per step). An async copy to or from pageable memory blocks the host all the ' ||
             'same (CUDA runtime API, "API synchronization behavior"): a copy to pageable ' ||
               'memory returns only once the work queued before it on its stream and the copy ' ||
                 'are done; this is a .cpu(), .item(), .tolist(), .numpy() or .to() of a GPU ' ||
                   'tensor into ordinary host memory, or a .to(device) / .cuda() of a host ' ||
                     'tensor that is not pinned (non_blocking=True then still blocks).',
              y.name, CAST(round(y.calls) AS INTEGER), profdb_fmt_ns(y.max_dur),
                profdb_fmt_ns(y.idle))
       WHEN y.is_copy AND y.idle >= 0.5 * s.idle
       THEN printf('Most of it is one kind of blocking copy: %s (%d call(s) per rank, the ' ||
         'longest %s, %s of GPU idle per step). A blocking copy returns only when the work ' ||
           'queued before it on its stream and the copy itself are done: a .cpu(), .item(), ' ||
             '.tolist() or .numpy() of a GPU tensor, or a copy_ / .to() without ' ||
               'non_blocking=True (PyTorch on ROCm issues these as hipMemcpyWithStream; on ' ||
                 'CUDA they show as cudaMemcpyAsync + cudaStreamSynchronize).',
              y.name, CAST(round(y.calls) AS INTEGER), profdb_fmt_ns(y.max_dur),
                profdb_fmt_ns(y.idle))
       ELSE 'Values are copied to the host inside the loop (.item(), .cpu(), printing or ' ||
         'comparing tensors, data-dependent shapes), so the CPU cannot queue work ahead and ' ||
           'the GPU drains.' END AS hypothesis,
  CASE WHEN y.is_copy = 2 AND y.idle >= 0.5 * s.idle
       THEN printf('Find the %s call sites (subjects; torch.cuda.set_sync_debug_mode("warn") ' ||
         'reports each) and take the copy off the critical path: use pinned host memory ' ||
           '(torch.empty(..., pin_memory=True) or .pin_memory(); a DataLoader''s ' ||
             'pin_memory=True for its batches) and copy with non_blocking=True; reading a ' ||
               'value back, record an event and synchronize on it only when the value is read ' ||
                 '(a step later); or keep the data on the GPU, or copy once after the loop.',
         y.name)
       WHEN y.is_copy AND y.idle >= 0.5 * s.idle
       THEN printf('Find the %s call sites (subjects; torch.cuda.set_sync_debug_mode("warn") ' ||
         'reports each) and take the copy off the critical path: read the value a step later ' ||
           'from a pinned host buffer filled with non_blocking=True and an event ' ||
             '(event.synchronize() only when it is needed), keep the data on the GPU, or copy ' ||
               'once after the loop.', y.name)
       ELSE 'Remove per-step .item()/.cpu() (log every N steps, accumulate on the GPU), use ' ||
         'non_blocking=True copies, and find the remaining syncs with ' ||
           'torch.cuda.set_sync_debug_mode("warn").' END AS action,
  printf('Up to %s (%.1f%% of the job step): the time operators block the host while the GPU ' ||
    'is idle.', profdb_fmt_ns(cl.op_sync), 100.0 * cl.op_sync / t.job_step_ns) AS expected_impact,
  'Re-profile: sync_sum.gpu_idle_pct under 1%.' AS validation,
  0 AS needs_artifact, round(100.0 * cl.op_sync / t.job_step_ns, 2) AS expected_saving_pct,
    cl.op_sync AS expected_saving_ns, NULL AS expected_saving_bytes, s.top_calls AS subjects,
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.rank_step_ns) AS INTEGER), 'job_step_ns',
      t.job_step_ns,
      'blocked_ns', s.sync, 'blocked_gpu_idle_ns', s.idle,
      'op_sync_gpu_idle_ns', CAST(round(cl.op_sync) AS INTEGER),
      'top_call', y.name, 'top_call_gpu_idle_ns', y.idle)) AS evidence, 1 AS cut_may_explain
FROM measure_sync s LEFT JOIN measure_sync_top y ON 1, measure_time t, measure_floor f,
  measure_claim cl, autotune_m au
WHERE t.rank_step_ns > 0 AND cl.op_sync >= f.min_pct / 100 * t.job_step_ns AND cl.op_sync >=
  f.min_ns;
