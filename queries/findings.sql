-- Title: Findings
-- Question: What should be done first?  Every rule below looks at the
--   figures of the report's sections and, when it applies, emits one
--   finding with the numbers behind it.  priority estimates the share of
--   step time (or of memory) a fix could recover, so findings sort by
--   expected impact.  Rules of confidence 'low' are hypotheses.  Edit,
--   remove or add rules here: each is one SELECT of the UNION ALL.
-- Columns:
--   priority         -      expected impact score (0-100, higher first)
--   id               -      rule id
--   confidence       -      'high', 'medium' or 'low' (a hypothesis)
--   title            -      one-line summary
--   observation      -      the numbers
--   hypothesis       -      what probably causes it
--   action           -      what to change
--   expected_impact  -      what the change could save
--   validation       -      what to re-measure, and the value that means success
--   needs_artifact   -      1 when the finding asks for a missing artifact or option
--   rule                 -      the rule's id (the same as id)
--   expected_saving_pct  %      upper bound of the step time a fix can save (0-100)
--   expected_saving_ns   ns     the same bound in ns, over the analysed time
--   subjects             json   what the finding is about, e.g. [{"rank": 7}]
--   evidence             json   the section ids and figures it rests on
WITH
steps AS (SELECT * FROM report_step_time),
time_m AS (
  SELECT sum(wall_ns) AS wall, sum(u4) AS busy, sum(u1) AS kern,
    sum(u6 - u5) AS dataloader, sum(u5 - u4) AS runtime, sum(u7 - u6) AS cpu,
    sum(wall_ns - u7) AS other, count(*) AS spans,
    sum(step IS NOT NULL) AS steps
  FROM steps
),
gpu_m AS (
  SELECT coalesce(sum(dur), 0) AS gpu_total, count(*) AS activities,
    coalesce(sum(dur) FILTER (WHERE kind = 'memcpy'), 0) AS memcpy,
    coalesce(sum(dur) FILTER (WHERE kind = 'kernel' AND is_fill), 0) AS fill,
    coalesce(sum(dur < 10000) FILTER (WHERE kind = 'kernel'), 0) AS short_kernels,
    coalesce(sum(kind = 'kernel'), 0) AS kernels
  FROM report_gpu
),
top_cat AS (
  SELECT category, sum(dur) AS dur FROM report_gpu
  GROUP BY category ORDER BY dur DESC, category LIMIT 1
),
sync_m AS (
  SELECT coalesce(sum(busy), 0) AS sync, coalesce(sum(calls), 0) AS calls,
    (SELECT name FROM report_sync GROUP BY name ORDER BY sum(dur) DESC, name LIMIT 1) AS top_call
  FROM (SELECT interval_union(ts, ts + dur) AS busy, count(*) AS calls
        FROM report_sync GROUP BY trace_id, pid, tid)
),
comm_m AS (
  SELECT coalesce(sum(comm), 0) AS comm, coalesce(sum(overlap), 0) AS overlap FROM (
    SELECT interval_union(ts, ts + dur) FILTER (WHERE category = 'NCCL/communication') AS comm,
      interval_overlap(ts, ts + dur, category = 'NCCL/communication') AS overlap
    FROM report_gpu WHERE kind = 'kernel' GROUP BY trace_id, device)
),
mem_m AS (
  SELECT d.snapshot_id, d.device,
    (SELECT coalesce(sum(total_size), 0) FROM segment g WHERE g.snapshot_id = d.snapshot_id AND g.device = d.device) AS reserved,
    (SELECT coalesce(sum(b.size), 0) FROM block b JOIN segment g USING (segment_id)
      WHERE g.snapshot_id = d.snapshot_id AND g.device = d.device AND b.state = 'inactive') AS inactive,
    (SELECT count(*) FROM segment g WHERE g.snapshot_id = d.snapshot_id AND g.device = d.device) AS segments,
    (SELECT count(*) FROM alloc_event e WHERE e.snapshot_id = d.snapshot_id AND e.device = d.device AND e.action = 'oom') AS ooms,
    (SELECT CASE WHEN value IN (1, 'true', 'True') THEN 1 ELSE 0 END FROM allocator_setting a
      WHERE a.snapshot_id = d.snapshot_id AND a.key = 'expandable_segments') AS expandable_on,
    p.peak_allocated, p.peak_reserved, p.end_allocated, c.bytes AS capacity
  FROM report_mem_device d LEFT JOIN report_mem_peak p USING (snapshot_id, device), report_capacity c
),
source_m AS (
  SELECT l.snapshot_id, l.device, coalesce(f.source, '(no stack)') AS source,
    sum(l.size) AS bytes, count(*) AS n
  FROM report_mem_live l LEFT JOIN report_user_frame f ON f.stack_id = l.stack_id
  GROUP BY l.snapshot_id, l.device, source
),
top_source AS (
  SELECT s.*, p.peak_allocated FROM source_m s JOIN report_mem_peak p USING (snapshot_id, device)
  WHERE s.source <> '(no stack)'
  ORDER BY 1.0 * s.bytes / max(p.peak_allocated, 1) DESC, s.source LIMIT 1
),
churn_m AS (
  SELECT snapshot_id, device, size, count(*) AS allocs, size * count(*) AS churn
  FROM alloc_event WHERE action = 'alloc'
    AND snapshot_id IN (SELECT snapshot_id FROM report_mem_device)
  GROUP BY snapshot_id, device, size ORDER BY churn DESC, size DESC LIMIT 1
),
counts AS (
  SELECT (SELECT count(*) FROM report_trace) AS traces,
    (SELECT count(*) FROM report_mem_device) AS mem_devices,
    (SELECT count(*) FROM report_gpu) AS gpu,
    (SELECT count(*) FROM gpu_activity a JOIN report_trace t USING (trace_id)) AS gpu_all,
    -- (scanned only when the traces have no CUDA/ROCm GPU work at all)
    (SELECT printf('%d ''%s'' events', n, cat) FROM (
       SELECT c.value AS cat, count(*) AS n FROM _slice e JOIN _string c ON c.id = e.cat_id
       WHERE NOT EXISTS (SELECT 1 FROM gpu_activity a JOIN report_trace t USING (trace_id))
         AND e.kind = (SELECT kind FROM _kind WHERE name = 'cpu_other')
         AND e.trace_id IN (SELECT trace_id FROM report_trace)
         AND (c.value GLOB 'mtia*' OR c.value GLOB 'xpu*' OR c.value GLOB 'hpu*'
              OR c.value GLOB 'npu*')
       GROUP BY c.value ORDER BY n DESC, c.value LIMIT 1)) AS other_device,
    (SELECT count(*) FROM report_step) AS steps,
    (SELECT count(*) FROM report_step_all) AS all_steps,
    (SELECT coalesce(sum(calls), 0) FROM report_op_stats) AS ops,
    (SELECT coalesce(sum(shaped), 0) FROM report_op_stats) AS ops_with_shapes
),
-- The FLOP-counted operator group (gemm_efficiency: name, shapes, dtype)
-- with the most GPU time, when the device's peak is known.
gemm_m AS (
  SELECT n.value AS name, f.input_dims, f.dtype, min(f.source) AS source, d.name AS device_name,
    sum(f.device_ns) AS device_ns, p.tflops AS peak_tflops,
    100.0 * sum(f.flops) / 1000.0 / sum(f.device_ns) / p.tflops AS peak_pct,
    (SELECT sum(dur) FROM report_gpu) AS gpu_ns
  FROM report_flop_op f JOIN _string n ON n.id = f.name_id
  JOIN device d ON d.trace_id = f.trace_id AND d.device_id = f.device
  JOIN report_device_peak p ON p.trace_id = f.trace_id AND p.device_id = f.device AND p.dtype = f.dtype
  WHERE f.device_ns > 0
  GROUP BY n.value, f.input_dims, f.dtype, d.name, p.tflops
  ORDER BY device_ns DESC, name LIMIT 1
),
-- Straggler ranks: late arrival at collectives (lib/50_collectives.sql),
-- with the fields of the findings contract (docs/report-schema.md).
straggler_f AS (
SELECT round(100.0 * r.saving_ns / r.analysed_ns, 1) AS priority, 'straggler' AS id,
  'high' AS confidence,
  printf('Rank%s %s reach%s the collectives late; the other ranks wait for %s',
    CASE WHEN json_array_length(r.stragglers) > 1 THEN 's' ELSE '' END,
    (SELECT group_concat(j.value ->> 'rank', ', ') FROM json_each(r.stragglers) j),
    CASE WHEN json_array_length(r.stragglers) > 1 THEN '' ELSE 'es' END,
    CASE WHEN json_array_length(r.stragglers) > 1 THEN 'them' ELSE 'it' END) AS title,
  printf('Over %d ranks of run %s, matched collective calls: %s (rank_sum: late_ns is the time after the median rank''s arrival, mean_wait_ns the peers'' wait inside their collective kernels).',
    r.ranks, r.run,
    (SELECT group_concat(printf('rank %d arrives %s after the first rank on average, %s after the median in total, last in %d of %d calls',
        s.rank, profdb_fmt_ns(s.mean_lateness_ns), profdb_fmt_ns(s.late_ns), s.last_arrivals, s.collectives), '; ')
     FROM report_straggler s WHERE s.run = r.run AND s.straggler)) AS observation,
  'The late ranks do more work before the collective (imbalanced data or embedding shards), or their host or GPU is slower (throttling, noisy neighbours, a slow data loader); ranks with the longest steps are the ones that waited.' AS hypothesis,
  'Compare what the late ranks run before the collective (step_time, gpu_kernel_sum with --trace) with the others: input sizes per rank, sharding balance, host load and GPU clocks.' AS action,
  printf('Up to %s (%.1f%% of the step time) if the late ranks arrived with the others.',
    profdb_fmt_ns(r.saving_ns), 100.0 * r.saving_ns / r.analysed_ns) AS expected_impact,
  'Re-profile all ranks: rank_sum.straggler is no everywhere and late_ns under 1% of the step time.' AS validation,
  0 AS needs_artifact,
  round(100.0 * r.saving_ns / r.analysed_ns, 2) AS expected_saving_pct,
  r.saving_ns AS expected_saving_ns, r.stragglers AS subjects,
  json_object('sections', json_array('rank_sum'), 'run', r.run, 'saving_ns', r.saving_ns,
    'analysed_ns', r.analysed_ns,
    'late_ns', (SELECT json_group_object(s.rank, s.late_ns) FROM report_straggler s
                WHERE s.run = r.run AND s.straggler)) AS evidence
FROM report_straggler_run r WHERE r.analysed_ns > 0
),
found AS (
-- 1. The GPU waits: low utilization.
SELECT round(100.0 * (t.wall - t.busy) / t.wall, 1) AS priority, 'gpu_idle' AS id,
  CASE WHEN (t.wall - t.busy) > 0.5 * t.wall AND t.steps > 0 THEN 'high' ELSE 'medium' END AS confidence,
  printf('The GPU is idle %.0f%% of the analysed time', 100.0 * (t.wall - t.busy) / t.wall) AS title,
  printf('GPU busy %s of %s %s (%.1f%%); the rest: runtime calls %.1f%%, data loading %.1f%%, other CPU work %.1f%%, nothing recorded %.1f%%.',
    profdb_fmt_ns(t.busy), profdb_fmt_ns(t.wall),
    CASE WHEN t.steps > 0 THEN printf('over %d step(s)', t.steps)
         ELSE 'over the whole trace (no ProfilerStep ranges: start-up included)' END,
    100.0 * t.busy / t.wall,
    100.0 * t.runtime / t.wall, 100.0 * t.dataloader / t.wall, 100.0 * t.cpu / t.wall,
    100.0 * t.other / t.wall) AS observation,
  'The host does not feed the GPU fast enough: Python and operator dispatch overhead, many small kernels, data loading or synchronization leave the GPU waiting.' AS hypothesis,
  'Look at the launch overhead, synchronization and GPU idle sections; remove host syncs from the loop, fuse small operations (torch.compile), capture repeated steps with CUDA graphs, and overlap data loading with compute.' AS action,
  printf('Up to %.0f%% of the step time if the GPU were kept busy.', 100.0 * (t.wall - t.busy) / t.wall) AS expected_impact,
  'Re-profile: step_time_sum.mean_gpu_idle_pct below 20% and mean_wall_ns down.' AS validation,
  0 AS needs_artifact
FROM time_m t, gpu_m g
WHERE g.activities > 0 AND t.wall > 0 AND (t.wall - t.busy) > 0.3 * t.wall
UNION ALL
-- 2. Data loading on the critical path.
SELECT round(100.0 * t.dataloader / t.wall, 1), 'data_loading',
  CASE WHEN t.dataloader > 0.15 * t.wall THEN 'high' ELSE 'medium' END,
  printf('Data loading takes %.0f%% of the step', 100.0 * t.dataloader / t.wall),
  printf('enumerate(DataLoader) ranges cover %s of %s, with nothing of higher priority running.',
    profdb_fmt_ns(t.dataloader), profdb_fmt_ns(t.wall)),
  'The training loop waits for the next batch: too few DataLoader workers, slow preprocessing, or host-to-device copies from pageable memory.',
  'Raise DataLoader num_workers, set pin_memory=True and persistent_workers=True, increase prefetch_factor, and move heavy preprocessing off the critical path.',
  printf('Up to %.0f%% of the step time.', 100.0 * t.dataloader / t.wall),
  'Re-profile: step_time.dataloader_ns under 2% of wall_ns.',
  0
FROM time_m t WHERE t.wall > 0 AND t.dataloader > 0.05 * t.wall
UNION ALL
-- 3. Host-device synchronization.
SELECT round(100.0 * s.sync / t.wall, 1), 'synchronization',
  CASE WHEN s.sync > 0.1 * t.wall THEN 'high' ELSE 'medium' END,
  printf('The CPU blocks on the GPU %.0f%% of the time', 100.0 * s.sync / t.wall),
  printf('Synchronizing calls (%d, nested ones included) block the CPU for %s of %s; most of it in %s (sync_sum).',
    s.calls, profdb_fmt_ns(s.sync), profdb_fmt_ns(t.wall), s.top_call),
  'Values are copied to the host inside the loop (.item(), .cpu(), printing or comparing tensors, data-dependent shapes), so the CPU cannot queue work ahead.',
  'Remove per-step .item()/.cpu() (log every N steps, accumulate on the GPU), use non_blocking=True copies, and find the remaining syncs with torch.cuda.set_sync_debug_mode("warn").',
  printf('Up to %.0f%% of the step time, plus better CPU/GPU overlap.', 100.0 * s.sync / t.wall),
  'Re-profile: sync_sum.pct_window under 1%.',
  0
FROM sync_m s, time_m t WHERE t.wall > 0 AND s.sync > 0.05 * t.wall
UNION ALL
-- 4. Many short kernels with an idle GPU: launch-bound.
SELECT round((100.0 * (t.wall - t.busy) / t.wall) * g.short_kernels / g.kernels * 0.5, 1),
  'launch_bound', 'medium',
  printf('%.0f%% of kernels run under 10 us while the GPU idles %.0f%%',
    100.0 * g.short_kernels / g.kernels, 100.0 * (t.wall - t.busy) / t.wall),
  printf('%d of %d kernels are shorter than 10 us.', g.short_kernels, g.kernels),
  'Kernel launch overhead dominates: the work is split into many tiny kernels.',
  'Fuse operations (torch.compile), use CUDA graphs (torch.compile mode="reduce-overhead" or torch.cuda.graphs) for repeated steps, and increase the work per kernel (larger batch).',
  'Part of the idle time; fusion also cuts memory traffic.',
  'Re-profile: launch_overhead.short_kernel_pct and kernels per step down, step_time_sum.mean_gpu_idle_pct down.',
  0
FROM gpu_m g, time_m t
WHERE g.kernels > 100 AND t.wall > 0 AND g.short_kernels > 0.5 * g.kernels
  AND (t.wall - t.busy) > 0.2 * t.wall
UNION ALL
-- 5. One kind of GPU work dominates.
SELECT round(0.25 * 100.0 * c.dur / g.gpu_total, 1), 'dominant_category',
  CASE WHEN c.category IN ('GEMM', 'Attention', 'Elementwise', 'Convolution') THEN 'medium' ELSE 'low' END,
  printf('%s kernels take %.0f%% of GPU time', c.category, 100.0 * c.dur / g.gpu_total),
  printf('%s: %s of %s of GPU activity (kernel_category_sum).', c.category,
    profdb_fmt_ns(c.dur), profdb_fmt_ns(g.gpu_total)),
  CASE c.category
    WHEN 'GEMM' THEN 'Matrix multiplies dominate: the model is compute-bound in GEMMs, so gains come from doing them faster or doing fewer.'
    WHEN 'Attention' THEN 'Attention dominates: long sequences or an attention implementation without fused kernels.'
    WHEN 'Convolution' THEN 'Convolutions dominate: layout conversions or untuned algorithms can cost a large factor.'
    WHEN 'Elementwise' THEN 'Memory-bound elementwise kernels dominate: the work is split into many unfused passes over memory.'
    WHEN 'Normalization' THEN 'Normalization kernels dominate: they are memory-bound and usually fusable.'
    ELSE 'This category is where most GPU time goes; it is the first place to optimize.' END,
  CASE c.category
    WHEN 'GEMM' THEN 'Use bf16/fp16 autocast (or FP8 where supported), keep matrix dimensions multiples of 8/16 for tensor cores, and check the top kernels for small or odd shapes.'
    WHEN 'Attention' THEN 'Use scaled_dot_product_attention / FlashAttention kernels, and consider shorter or packed sequences.'
    WHEN 'Convolution' THEN 'Use channels_last memory format, torch.backends.cudnn.benchmark=True, and autocast.'
    WHEN 'Elementwise' THEN 'Fuse elementwise chains with torch.compile (or fused kernels such as Liger), and avoid needless copies and casts.'
    WHEN 'Normalization' THEN 'Use fused normalization kernels or torch.compile.'
    ELSE 'Open the top kernels of this category and check their shapes and implementations.' END,
  printf('A 2x faster %s would save about %.0f%% of GPU time.', c.category, 50.0 * c.dur / g.gpu_total),
  printf('Re-profile: the %s share in kernel_category_sum drops, and step time with it.', c.category),
  0
FROM top_cat c, gpu_m g
WHERE g.gpu_total > 0 AND c.dur > 0.3 * g.gpu_total AND c.category NOT IN ('NCCL/communication', 'Memcpy', 'Other')
UNION ALL
-- 6. Host-device copies.
SELECT round(100.0 * g.memcpy / g.gpu_total, 1), 'memcpy', 'medium',
  printf('Memory copies take %.0f%% of GPU time', 100.0 * g.memcpy / g.gpu_total),
  printf('Copies: %s of %s of GPU activity (see memcpy_sum for directions and bandwidth).',
    profdb_fmt_ns(g.memcpy), profdb_fmt_ns(g.gpu_total)),
  'Data moves between host and device every step (pageable memory, offloading, or results copied back).',
  'Keep tensors on the device, pin host memory (pin_memory=True) and copy with non_blocking=True, and batch small copies.',
  printf('Up to %.0f%% of GPU time.', 100.0 * g.memcpy / g.gpu_total),
  'Re-profile: memcpy_sum total_dur_ns down, bandwidth (gbps) up for pinned copies.',
  0
FROM gpu_m g WHERE g.gpu_total > 0 AND g.memcpy > 0.1 * g.gpu_total
UNION ALL
-- 7. Fill/zero kernels.
SELECT round(100.0 * g.fill / g.gpu_total, 1), 'fill_kernels', 'medium',
  printf('Fill and zero kernels take %.0f%% of GPU time', 100.0 * g.fill / g.gpu_total),
  printf('FillFunctor/zero kernels: %s of %s (fill_kernel_sum shows the launching ops and shapes).',
    profdb_fmt_ns(g.fill), profdb_fmt_ns(g.gpu_total)),
  'Large tensors are allocated and zeroed every step (torch.zeros, zero_grad without set_to_none, padding buffers).',
  'Reuse buffers across steps, use torch.empty where the values are overwritten, and zero_grad(set_to_none=True).',
  printf('Up to %.0f%% of GPU time.', 100.0 * g.fill / g.gpu_total),
  'Re-profile: fill_kernel_sum total_dur_ns down.',
  0
FROM gpu_m g WHERE g.gpu_total > 0 AND g.fill > 0.05 * g.gpu_total
UNION ALL
-- 8. Communication not hidden behind compute.
SELECT round(100.0 * (c.comm - c.overlap) / t.wall, 1), 'exposed_communication', 'medium',
  printf('Communication on the critical path: %.0f%% of the time', 100.0 * (c.comm - c.overlap) / t.wall),
  printf('Collectives cover %s, %s of it overlapped with compute (%.0f%%).',
    profdb_fmt_ns(c.comm), profdb_fmt_ns(c.overlap), 100.0 * c.overlap / max(c.comm, 1)),
  'Gradient synchronization waits instead of running behind the backward pass.',
  'Overlap communication: tune DDP bucket_cap_mb, use FSDP backward/forward prefetch, and avoid synchronizing collectives between compute.',
  printf('Up to %.0f%% of the step time.', 100.0 * (c.comm - c.overlap) / t.wall),
  'Re-profile: communication.overlap_pct above 80%.',
  0
FROM comm_m c, time_m t WHERE t.wall > 0 AND c.comm > 0 AND (c.comm - c.overlap) > 0.1 * t.wall
UNION ALL
-- 9. Straggler ranks.
SELECT priority, id, confidence, title, observation, hypothesis, action, expected_impact,
  validation, needs_artifact
FROM straggler_f
UNION ALL
-- 10. OOMs recorded.
SELECT 90.0, 'oom', 'high',
  printf('%d out-of-memory event(s) on device %d', m.ooms, m.device),
  printf('Snapshot %d records %d allocation failure(s) (mem_oom has their sizes and sources).', m.snapshot_id, m.ooms),
  'The peak demand exceeds what the device can provide, possibly worsened by fragmentation.',
  'Lower the peak (activation checkpointing, smaller micro-batches, freeing tensors earlier) and set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.',
  'Runs that do not fail.',
  'Record a new snapshot: no oom entries in mem_action_sum.',
  0
FROM mem_m m WHERE m.ooms > 0
UNION ALL
-- 11. Fragmentation.
SELECT round(100.0 * m.inactive / m.reserved / 2, 1), 'fragmentation',
  CASE WHEN m.inactive > 0.3 * m.reserved THEN 'high' ELSE 'medium' END,
  printf('%.0f%% of reserved memory is cached but unused (device %d)', 100.0 * m.inactive / m.reserved, m.device),
  printf('%s inactive of %s reserved in %d segments; expandable segments are %s.',
    profdb_fmt_bytes(m.inactive), profdb_fmt_bytes(m.reserved), m.segments,
    CASE m.expandable_on WHEN 1 THEN 'on' WHEN 0 THEN 'off' ELSE 'not recorded' END),
  'Allocations of varying sizes leave free gaps inside segments that larger requests cannot use.',
  CASE WHEN coalesce(m.expandable_on, 0) = 1 THEN 'Reduce size variation (pad to fixed shapes), or set max_split_size_mb in PYTORCH_CUDA_ALLOC_CONF.'
       ELSE 'Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (segments grow in place), or max_split_size_mb to limit splitting.' END,
  printf('Up to %s of reserved memory returned to use.', profdb_fmt_bytes(m.inactive)),
  'New snapshot: mem_fragmentation.inactive_pct under 10%.',
  0
FROM mem_m m WHERE m.reserved > 0 AND m.segments > 10 AND m.inactive > 0.2 * m.reserved
UNION ALL
-- 12. Little headroom on the device.
SELECT CASE WHEN m.capacity - m.peak_reserved < 1073741824 THEN 60.0 ELSE 30.0 END, 'oom_risk',
  CASE WHEN m.capacity - m.peak_reserved < 1073741824 THEN 'high' ELSE 'medium' END,
  printf('Only %s of headroom on device %d', profdb_fmt_bytes(m.capacity - m.peak_reserved), m.device),
  printf('Peak reserved %s of %s device memory; peak allocated %s.', profdb_fmt_bytes(m.peak_reserved),
    profdb_fmt_bytes(m.capacity), profdb_fmt_bytes(m.peak_allocated)),
  'A longer sequence, a larger batch or more fragmentation will run out of memory.',
  'Lower the peak (checkpointing, smaller micro-batches) or the reserve (expandable_segments:True) before scaling up.',
  'Headroom for growth without OOMs.',
  'New snapshot: capacity - peak_reserved above 2 GiB.',
  0
FROM mem_m m WHERE m.capacity IS NOT NULL AND m.peak_reserved IS NOT NULL
  AND m.capacity - m.peak_reserved < 2147483648
UNION ALL
-- 13. One source holds much of the peak.
SELECT round(100.0 * s.bytes / s.peak_allocated / 3, 1), 'peak_source', 'low',
  printf('%s holds %.0f%% of the peak', s.source, 100.0 * s.bytes / s.peak_allocated),
  printf('%d allocation(s), %s of the %s peak on device %d (mem_peak_sources).', s.n,
    profdb_fmt_bytes(s.bytes), profdb_fmt_bytes(s.peak_allocated), s.device),
  'This line creates the tensors that define the peak (activations saved for backward, a large buffer, or a cache).',
  'Check whether they must all be alive at once: activation checkpointing, freeing (del) earlier, smaller chunks, or lower precision.',
  printf('Up to %s off the peak.', profdb_fmt_bytes(s.bytes)),
  'New snapshot: mem_peak.peak_allocated down, this source smaller in mem_peak_sources.',
  0
FROM top_source s WHERE s.peak_allocated > 0 AND s.bytes > 0.3 * s.peak_allocated
UNION ALL
-- 14. Allocation churn.
SELECT 5.0, 'allocation_churn', 'low',
  printf('%s allocations are made %d times', profdb_fmt_bytes(c.size), c.allocs),
  printf('%d allocations of %s: %s allocated in total (mem_churn has their sources).', c.allocs,
    profdb_fmt_bytes(c.size), profdb_fmt_bytes(c.churn)),
  'The same buffers are allocated and freed repeatedly; the caching allocator absorbs it, but it adds CPU overhead and fragmentation.',
  'Preallocate and reuse these buffers, or use out= variants and in-place operations.',
  'Less allocator overhead and fragmentation.',
  'New snapshot: mem_churn.allocs for this size down.',
  0
FROM churn_m c, mem_m m
WHERE c.snapshot_id = m.snapshot_id AND c.device = m.device AND c.allocs >= 100
  AND c.churn > 10 * max(coalesce(m.peak_allocated, 0), 1)
UNION ALL
-- 15-19. Missing artifacts and options.
SELECT 3.0, 'need_snapshot', 'high', 'Load a memory snapshot to see where GPU memory goes',
  'The database has a profiler trace but no memory snapshot.',
  'Memory questions (peak, fragmentation, OOM risk) need the caching allocator''s snapshot.',
  'In the training process: torch.cuda.memory._record_memory_history(max_entries=100000); run a few steps; json.dump(torch.cuda.memory._snapshot(), open("memory_snapshot.json", "w")); then profdb load memory_snapshot.json -o run.db (same database).',
  'The memory sections and findings.', 'Re-run profdb report: the memory sections are filled.', 1
FROM counts WHERE traces > 0 AND mem_devices = 0
UNION ALL
SELECT 3.0, 'need_trace', 'high', 'Load a profiler trace to see where time goes',
  'The database has a memory snapshot but no profiler trace.',
  'Time questions (step time, GPU utilization, kernels, CPU ops) need a torch.profiler trace.',
  'Profile a few steps with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)) and prof.export_chrome_trace("trace.json.gz"), then profdb load trace.json.gz -o run.db.',
  'The time sections and findings.', 'Re-run profdb report: the time sections are filled.', 1
FROM counts WHERE traces = 0 AND mem_devices > 0
UNION ALL
SELECT 2.0, 'need_gpu_activity', 'high', 'The trace has no GPU activity',
  'No CUDA/ROCm kernels, copies or fills anywhere in the trace.',
  'The profiler recorded the CPU only (or the run did not use a GPU).',
  'Profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] to see GPU time, utilization and launch overhead.',
  'The GPU sections.', 'Re-profile: kernels appear in run_summary.', 1
FROM counts WHERE traces > 0 AND gpu_all = 0 AND other_device IS NULL
UNION ALL
SELECT 2.0, 'unanalysed_device', 'high', 'The device events are not CUDA/ROCm kernels',
  printf('The trace has no CUDA/ROCm GPU events; its %s are kept (event table, kind cpu_other) but not analysed as GPU work.', other_device),
  'The run used another accelerator (e.g. MTIA), whose events the GPU sections do not model.',
  'Query them directly: SELECT name, count(*), sum(dur) FROM event WHERE cat = ''<category>'' GROUP BY name ORDER BY 3 DESC.',
  'The device side of the run.', 'None: the CPU sections still apply.', 0
FROM counts WHERE traces > 0 AND gpu_all = 0 AND other_device IS NOT NULL
UNION ALL
SELECT 2.0, 'gpu_outside_steps', 'high', 'No GPU work in the analysed steps',
  printf('%d kernels, copies or fills ran, all outside the analysed steps (in the warm-up step or outside ProfilerStep ranges).', gpu_all),
  'The profiled window holds too few steps, or the last step was cut short when profiling stopped.',
  'Re-run profdb report with --include-warmup, or profile more steps (schedule(wait=1, warmup=1, active=3)).',
  'The GPU sections.', 'Re-run: kernels in gpu_kernel_sum.', 1
FROM counts WHERE traces > 0 AND gpu = 0 AND gpu_all > 0
UNION ALL
SELECT 2.0, 'need_steps', 'high', 'The trace has no ProfilerStep ranges',
  'Steps cannot be told apart, so warm-up is included and per-step figures cover the whole trace.',
  'prof.step() was not called, or the profiler was used without a schedule.',
  'Use torch.profiler.schedule(wait=1, warmup=1, active=3) and call prof.step() at the end of every iteration.',
  'Per-step figures and warm-up exclusion.', 'Re-profile: steps > 0 in run_summary.', 1
FROM counts WHERE traces > 0 AND all_steps = 0
UNION ALL
SELECT 1.0, 'need_shapes', 'high', 'Input shapes were not recorded',
  'CPU operators carry no Input Dims, so fill kernels and ops cannot be related to tensor shapes.',
  'The profiler ran with record_shapes=False, or its exporter does not write shapes (the legacy, pre-Kineto one).',
  'Re-profile with record_shapes=True.',
  'Shapes in fill_kernel_sum and in the op tables.', 'Re-profile: fill_kernel_sum.input_dims filled.', 1
FROM counts WHERE traces > 0 AND ops > 0 AND ops_with_shapes = 0
UNION ALL
-- The heaviest GEMM / convolution / attention shape runs far below the
-- GPU's peak.  Saving bounded by bringing it to 60% of peak, a level tuned
-- large GEMMs reach; only GPU time is promised, as a share of the steps.
SELECT round(100.0 * m.device_ns * (1 - m.peak_pct / 60) / t.wall, 1), 'low_gemm_efficiency', 'medium',
  printf('%s%s runs at %.1f%% of the %s''s %s peak', m.name,
    CASE WHEN m.source IS NOT NULL THEN ' in ' || m.source ELSE '' END, m.peak_pct, m.device_name, m.dtype),
  printf('gemm_efficiency: the calls of %s with Input Dims %s take %s of GPU time (%.1f%% of all GPU work) at %.1f%% of the %s dense %s peak (%.0f TFLOP/s).',
    m.name, m.input_dims, profdb_fmt_ns(m.device_ns), 100.0 * m.device_ns / m.gpu_ns, m.peak_pct, m.device_name,
    m.dtype, m.peak_tflops),
  'The shapes are too small or badly aligned for the tensor cores (dimensions not multiples of 8/16), the kernel chosen is not the fastest one, or the operator runs in a slower dtype than it could.',
  'Pad the dimensions to multiples of 16 (64 for attention heads), use bf16/fp16 autocast, enable torch.backends.cuda.matmul.allow_tf32 for fp32, try torch.compile (mode="max-autotune") or a fused attention kernel; see op_shape_sum for the exact shapes.',
  printf('Up to %s of GPU time (%.1f%% of the step time) if it reached 60%% of peak; the step saves less where the GPU is not the bottleneck.',
    profdb_fmt_ns(CAST(m.device_ns * (1 - m.peak_pct / 60) AS INTEGER)),
    100.0 * m.device_ns * (1 - m.peak_pct / 60) / t.wall),
  printf('Re-profile: gemm_efficiency.peak_pct of %s above %.0f%%.', m.name, min(60, 2 * m.peak_pct)), 0
FROM gemm_m m, time_m t
WHERE t.wall > 0 AND m.peak_pct < 30 AND m.device_ns >= 0.05 * m.gpu_ns
)
SELECT f.*, f.id AS rule, c.expected_saving_pct, c.expected_saving_ns, c.subjects, c.evidence
FROM found f LEFT JOIN straggler_f c USING (id, title, observation)
ORDER BY f.priority DESC, f.id;
