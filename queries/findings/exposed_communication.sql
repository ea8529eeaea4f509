-- Rule: exposed_communication
-- 8. Communication not hidden behind compute; the advice follows the
-- collective that takes most of the time.  Only transfer (after the last
-- peer arrived) that no compute overlaps is promised: overlap cannot hide
-- the waiting for late peers, which rule 9 (straggler) claims.  The
-- subjects count each collective kernel as the figures do: its parts
-- inside the analysed spans (report_comm_kernel), per rank, with their
-- transfer part, not the whole kernels.  A collective whose peers are
-- not loaded counts only its bytes at its group's reference busbw
-- (measure_comm): the rest of its time may be waiting for them.
-- Reads: _gpu, _string, measure_comm, measure_floor, measure_time, report_comm_kernel
SELECT round(100.0 * c.hideable / t.job_step_ns, 1) AS priority, 'exposed_communication' AS rule,
  CASE WHEN c.peers_missing > 0 THEN 'low' ELSE 'medium' END AS confidence,
  printf('Communication transfer on the critical path: %.0f%% of the job step',
    100.0 * c.exposed / t.job_step_ns) AS title,
  printf('Per rank step (%s), collectives cover %s: %s waiting for the last peer to arrive ' ||
    '(rank_sum, straggler), %s transfer%s, %s of the transfer overlapped with compute; %s ' ||
      'exposed; most of the time in %s (communication).',
    j.job_step_words, profdb_fmt_ns(c.comm), profdb_fmt_ns(c.wait), profdb_fmt_ns(c.transfer),
    CASE WHEN c.unmatched > 0 THEN printf(' (%s of it in collectives whose peers are not ' ||
      'loaded: waiting cannot be told from transfer there)',
        profdb_fmt_ns(c.unmatched)) ELSE '' END,
    profdb_fmt_ns(c.overlap), profdb_fmt_ns(c.exposed), c.top_name)
  || printf(' Compute kernels run %s per rank step, %s of it beside transfer already: %s is ' ||
    'left to hide transfer behind.',
    profdb_fmt_ns(c.compute), profdb_fmt_ns(c.overlap), profdb_fmt_ns(max(c.compute - c.overlap,
      0)))
  || CASE WHEN c.allreduce_exposed > 0 THEN printf(' Of the exposed transfer %s is all-reduce ' ||
    'launched in the backward pass (gradient syncs): only the backward pass''s compute can run ' ||
      'beside it ' ||
      '(the optimizer step waits for it, the next forward for the optimizer), and %s of that ' ||
      'compute is not beside transfer yet.',
      profdb_fmt_ns(c.allreduce_exposed), profdb_fmt_ns(c.backward_free)) ELSE '' END
  || CASE WHEN c.activation_exposed > 0 THEN printf(' %s of the exposed transfer is in ranks ' ||
    'with no backward pass and no FSDP: their collectives carry activations (tensor, sequence ' ||
      'or pipeline parallelism), each feeding the next layer or fed by the last, so no ' ||
        'setting overlaps them with compute.', profdb_fmt_ns(c.activation_exposed)) ELSE '' END
  || CASE WHEN c.peers_missing > 0 THEN printf(' Only %d of the job''s %d ranks loaded: the ' ||
    'other %d peer(s) are not, so waiting for them cannot be told from transfer (load every ' ||
      'rank for the split).',
       c.world_size - c.peers_missing, c.world_size, c.peers_missing) ELSE '' END AS observation,
  CASE WHEN c.activation_exposed > 0 AND c.hideable = 0
       THEN 'The collectives move activations between the ranks of a model split across ' ||
         'them: each layer waits for its exchange.'
       WHEN c.advice = 'exchange'
       THEN 'All-to-all exchanges (embedding or expert sharding) wait for every peer: ' ||
         'imbalanced shards or a slow peer, with nothing scheduled behind them.'
       WHEN c.advice = 'shard'
       THEN 'Parameter all-gathers and gradient reduce-scatters (FSDP / ZeRO) run without ' ||
         'compute behind them.'
       ELSE 'Gradient all-reduces wait instead of running behind the backward pass.' END AS
         hypothesis,
  CASE WHEN c.activation_exposed > 0 AND c.hideable = 0
       THEN 'Send less or faster: a lower tensor-parallel degree or one within a node (NVLink), ' ||
         'fewer collectives per layer (sequence parallelism fuses them), or overlap by ' ||
           'restructuring (asynchronous tensor parallelism: torch._inductor''s micro-pipeline ' ||
             'TP, or micro-batches); gather only the rows you need at the end.'
       WHEN c.advice = 'exchange'
       THEN 'Balance the shards across ranks (rank_sum), pipeline the exchange with compute ' ||
         '(split the batch, overlap the next input''s all-to-all with this one''s compute), ' ||
           'and check for a late rank.'
       WHEN c.advice = 'shard'
       THEN 'Enable FSDP forward/backward prefetch, tune the wrap granularity, and keep ' ||
         'limit_all_gathers so compute overlaps the next gather.'
       ELSE 'Overlap the all-reduces with backward: tune DDP bucket_cap_mb, avoid ' ||
         'synchronizing the stream between buckets, and check for a late rank.' END
  || CASE WHEN c.hideable < 0.5 * c.exposed AND c.hideable > 0 THEN printf(' Overlap can hide at most %s of the ' ||
    '%s exposed per rank step (the compute there is to hide it behind): send less as well ' ||
      '(lower-precision or compressed gradients and parameters: a DDP communication hook, ' ||
      'FSDP mixed precision) or use a faster link.',
      profdb_fmt_ns(c.hideable), profdb_fmt_ns(c.exposed)) ELSE '' END AS action,
  CASE WHEN c.hideable = 0 THEN printf('None from overlap: the %s of exposed transfer ' ||
    'carries activations (observation); only sending less or faster shortens it.',
    profdb_fmt_ns(c.activation_exposed)) ELSE
  printf('Up to %s per job step (%.0f%% of the job step): the transfer not overlapped with ' ||
    'compute, %s, bounded by the compute time not already beside it, %s%s: overlap cannot ' ||
      'hide more than the compute there is; the waiting is not counted here%s.',
    profdb_fmt_ns(c.hideable), 100.0 * c.hideable / t.job_step_ns, profdb_fmt_ns(c.exposed),
    profdb_fmt_ns(max(c.compute - c.overlap, 0)),
    CASE WHEN c.allreduce_exposed > 0 THEN printf(', and the %s of all-reduce by the backward ' ||
      'pass''s, %s', profdb_fmt_ns(c.allreduce_exposed), profdb_fmt_ns(c.backward_free))
      ELSE '' END,
    CASE WHEN c.unmatched_exposed > c.unmatched_sized
         THEN printf('; of the %s exposed in collectives whose peers are not loaded only %s ' ||
           'counts: %s', profdb_fmt_ns(c.unmatched_exposed), profdb_fmt_ns(c.unmatched_sized),
           CASE WHEN c.unmatched_sized > 0
                THEN 'their bytes at the best bus bandwidth their process group reaches; ' ||
                  'the rest may be waiting for those peers'
                ELSE 'their sizes are not recorded and their time may be waiting for those ' ||
                  'peers (load every rank to split waiting from transfer)' END)
         WHEN c.peers_missing > 0 THEN printf(', but with %d peer(s) not loaded part of the ' ||
      'transfer may be waiting', c.peers_missing) ELSE '' END) END AS expected_impact,
  CASE WHEN c.hideable = 0
       THEN 'Re-profile: communication''s exposed transfer per step down.'
       ELSE 'Re-profile: communication.overlap_pct above 80%.' END AS validation,
  0 AS needs_artifact, round(min(100.0 * c.hideable / t.job_step_ns, 100),
    2) AS expected_saving_pct,
    c.hideable AS expected_saving_ns, NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('kernel', name, 'dur_ns', dur, 'transfer_ns', tr)) FROM (
     SELECT profdb_display_name(n.value) AS name,
       CAST(round(sum(k.b - k.a) / r.ranks) AS INTEGER) AS dur,
       CAST(round(sum(k.b - k.wait_end) / r.ranks) AS INTEGER) AS tr
     FROM report_comm_kernel k JOIN _gpu g ON g.id = k.event_id
       JOIN _string n ON n.id = g.name_id, (SELECT 1.0 * max(ranks, 1) AS ranks FROM measure_time) r
     GROUP BY n.value ORDER BY dur DESC, name LIMIT 3)) AS subjects,
  json_object('sections', json_array('communication'),
    'figures', json_object('job_step_ns', t.job_step_ns, 'comm_ns', c.comm, 'wait_ns', c.wait,
      'transfer_ns', c.transfer, 'unmatched_ns', c.unmatched, 'overlapped_ns', c.overlap,
      'exposed_ns', c.exposed, 'compute_ns', c.compute, 'hideable_ns', c.hideable,
      'unmatched_exposed_ns', c.unmatched_exposed, 'unmatched_counted_ns', c.unmatched_sized,
      'allreduce_exposed_ns', c.allreduce_exposed, 'backward_free_ns', c.backward_free,
      'peers_not_loaded', c.peers_missing)) AS evidence, 1 AS cut_may_explain
FROM measure_comm c, measure_time t, measure_floor f, measure_time j
WHERE t.job_step_ns > 0 AND c.comm > 0 AND c.exposed > 0.1 * t.job_step_ns
  AND max(c.hideable, c.activation_exposed) >= f.min_pct / 100 * t.job_step_ns
  AND max(c.hideable, c.activation_exposed) >= f.min_ns;
