-- Title: Findings
-- Question: What should be done first?  Every rule below looks at the
--   figures of the report's sections and, when it applies, emits one
--   finding with the numbers behind it.  Each finding bounds what its fix
--   can save: expected_saving_ns of the analysed step time (time rules)
--   or expected_saving_bytes of the reserved memory (memory rules), and
--   the same bound as a percentage.  Findings sort by that saving (one
--   denominator per report, so by absolute saving), and a resource rule
--   fires only when its bound passes the floor (floor_m below): 1% of the
--   step time and 100 us, or 1% of the reserved memory and 8 MiB
--   (dominant_category and fill_kernels on a GPU busy under half the
--   step: their unbounded saving passes it, to say how little is left).
--   A failure or risk (oom, oom_risk) has a fixed priority (90, 60 or
--   30); findings asking for a missing artifact or option come last.  Rules of confidence 'low'
--   are hypotheses.  Edit, remove or add rules here: each is one SELECT of
--   the UNION ALL.
-- Columns:
--   priority               -      sort key: expected_saving_pct for resource rules, 90 / 60 / 30 for oom and oom_risk, under 1 for missing artifacts
--   id                     -      rule id (same as rule; kept for older scripts)
--   rule                   -      rule id
--   confidence             -      'high', 'medium' or 'low' (a hypothesis)
--   title                  -      one-line statement
--   observation            -      the numbers
--   hypothesis             -      what probably causes it
--   action                 -      what to change
--   expected_impact        -      what the change could save, in words
--   validation             -      what to re-measure, and the value that means success
--   needs_artifact         -      1 when the finding asks for a missing artifact or option
--   expected_saving_pct    %      upper bound of what the fix saves: share of the analysed step time (time rules) or of the reserved memory (memory rules); 0 when it saves neither
--   expected_saving_ns     ns     the same bound in ns of step time (time rules; empty otherwise)
--   expected_saving_bytes  bytes  the same bound in bytes (memory rules; empty otherwise)
--   subjects               json   what it is about: [{"rank": ...}], [{"kernel": ...}], [{"source": ...}], [{"device": ...}], ...
--   evidence               json   {"sections": [section ids], "figures": {name: value}}: what it rests on
WITH
-- The floor a resource finding's saving must pass.
floor_m AS (SELECT 1.0 AS min_pct, 100000 AS min_ns, 8388608 AS min_bytes),
steps AS (SELECT * FROM report_step_time),
-- Per rank step (the mean over the ranks and their analysed steps, so a
-- job with more ranks that behave alike gives the same figures), and the
-- job step (lib/52_job.sql): js, the mean job step, is the denominator
-- of every expected_saving_pct.
time_m AS (
  SELECT 1.0 * sum(wall_ns) / count(*) AS wall, 1.0 * sum(u4) / count(*) AS busy,
    1.0 * sum(u1) / count(*) AS kern,
    1.0 * sum(u6 - u5) / count(*) AS dataloader, 1.0 * sum(u5 - u4) / count(*) AS runtime,
    1.0 * sum(u7 - u6) / count(*) AS cpu, 1.0 * sum(wall_ns - u7) / count(*) AS other,
    count(*) AS n, 1.0 * sum(u2 - u1) / count(*) AS memcpy_exposed,
    sum(step IS NOT NULL) AS steps,
    (SELECT job_step_ns FROM report_job) AS js, (SELECT job_steps FROM report_job) AS job_steps,
    (SELECT longest_ns FROM report_job) AS longest,
    max((SELECT ranks FROM report_job), 1) AS ranks,
    -- crit_bound: the GPU idles over 10% of the rank step, so a kernel-time
    -- saving (dominant_category, fill_kernels, low_gemm_efficiency) is
    -- bounded by that kernel time's share on the critical path (crit_m)
    sum(u4) < 0.9 * sum(wall_ns) AS crit_bound
  FROM steps
),
-- In words: what one job step means here.
job_w AS (
  SELECT printf('mean over %d rank(s) x %d job step(s); a job step, set by its slowest rank, lasts %s',
    t.ranks, t.job_steps, profdb_fmt_ns(t.js)) AS per FROM time_m t
),
-- GPU time per rank step; kernel counts per rank.
gpu_m AS (
  SELECT coalesce(sum(dur), 0) / t.n AS gpu_total, count(*) AS activities,
    coalesce(sum(dur) FILTER (WHERE kind = 'memcpy'), 0) / t.n AS memcpy,
    coalesce(sum(dur) FILTER (WHERE kind = 'kernel' AND is_fill), 0) / t.n AS fill,
    coalesce(sum(dur < 10000) FILTER (WHERE kind = 'kernel'), 0) / t.ranks AS short_kernels,
    coalesce(sum(kind = 'kernel'), 0) / t.ranks AS kernels
  FROM report_gpu, (SELECT 1.0 * max(n, 1) AS n, 1.0 * ranks AS ranks FROM time_m) t
),
-- Copy time by kind (Kineto names each copy "Memcpy HtoD (Pageable ->
-- Device)", "Memcpy DtoD (Device -> Device)", ...): the memcpy rule's
-- advice follows what the copies are (pinning helps only pageable host
-- copies).  Per rank step, as gpu_m.
copy_m AS (
  SELECT coalesce(sum(g.dur), 0) / t.n AS total,
    coalesce(sum(g.dur) FILTER (WHERE n.name GLOB '*DtoD*' OR n.name GLOB '*PtoP*'), 0) / t.n AS dtod,
    coalesce(sum(g.dur) FILTER (WHERE n.name GLOB '*Pageable*'), 0) / t.n AS pageable
  FROM report_gpu g JOIN report_gpu_name n USING (name_id),
    (SELECT 1.0 * max(n, 1) AS n FROM time_m) t
  WHERE g.kind = 'memcpy'
),
top_cat AS (
  SELECT category, sum(dur) / (SELECT 1.0 * max(n, 1) FROM time_m) AS dur FROM report_gpu
  GROUP BY category ORDER BY dur DESC, category LIMIT 1
),
-- Per rank step; calls per rank.
sync_m AS (
  SELECT coalesce(sum(blocked_ns), 0) / t.n AS sync, coalesce(sum(blocked_gpu_idle_ns), 0) / t.n AS idle,
    (SELECT count(DISTINCT event_id) FROM report_clip_sync) / t.ranks AS calls,
    (SELECT json_group_array(json(x)) FROM (
       SELECT json_object('source', source, 'gpu_idle_ns', ns) AS x, ns, 0 AS o, source AS k FROM (
         SELECT source, sum(blocked_gpu_idle_ns) AS ns FROM report_sync_source
         WHERE source <> '(no Python stack)' GROUP BY source ORDER BY ns DESC, source LIMIT 3)
       UNION ALL
       SELECT json_object('call', name, 'gpu_idle_ns', ns), ns, 1, name FROM (
         SELECT name, sum(blocked_gpu_idle_ns) AS ns FROM report_sync_idle WHERE name IS NOT NULL
         GROUP BY name ORDER BY ns DESC, name LIMIT 3)
       ORDER BY o, ns DESC, k)) AS top_calls
  FROM report_sync_idle, (SELECT 1.0 * max(n, 1) AS n, 1.0 * ranks AS ranks FROM time_m) t
  WHERE name IS NULL
),
-- The host-blocking call that leaves the GPU idle longest (per rank
-- step), and whether it is a blocking copy (report_sync_name.is_copy: 2
-- for an async copy to or from pageable memory):
-- the synchronization finding's advice names it.
sync_top AS (
  SELECT i.name, y.is_copy, sum(i.blocked_gpu_idle_ns) / t.n AS idle,
    (SELECT count(DISTINCT event_id) FROM report_clip_sync c WHERE c.name = i.name) / t.ranks AS calls,
    (SELECT max(dur) FROM report_sync r WHERE r.name = i.name) AS max_dur
  FROM report_sync_idle i JOIN report_sync_name y ON y.name = i.name,
    (SELECT 1.0 * max(n, 1) AS n, 1.0 * ranks AS ranks FROM time_m) t
  WHERE i.name NOT IN (SELECT name FROM report_setup_name)
  GROUP BY i.name ORDER BY idle DESC, i.name LIMIT 1
),
-- GEMM kernels (dominant_category), per kernel name: the precision read
-- from the name ('fp4': NVFP4 / MXFP4 / e2m1; 'fp8': e4m3 / e5m2;
-- 'fp16/bf16': tensor-core half precision (h*gemm, *_f16*, bf16,
-- hipBLASLt _HHS_ / _BBS_); 'tf32': s1688 / s16816 tensor-core GEMMs of
-- fp32 data; 'fp32': sgemm / SIMT on CUDA cores; else 'unknown'), the GPU
-- generation it was built for when the name says (sm80 / ampere 80, sm90
-- / hopper 90, sm100 100, volta 70, turing 75), and its time per rank
-- step.  docs/definitions.md, "Dominant category".  An older-generation
-- kernel is looked for on sm90 or newer only, among tensor-core GEMMs
-- (fp32 SIMT kernels have no newer build: ampere_sgemm on an H100 and
-- volta_sgemm on a Turing GPU are what cuBLAS ships).
gemm_kern AS (
  SELECT n.name, g.trace_id, g.device, g.dur / t.n AS dur,
    CASE
      WHEN lower(n.name) GLOB '*nvfp4*' OR lower(n.name) GLOB '*mxfp4*' OR lower(n.name) GLOB '*fp4*'
        OR lower(n.name) GLOB '*e2m1*' THEN 'fp4'
      WHEN lower(n.name) GLOB '*fp8*' OR lower(n.name) GLOB '*e4m3*' OR lower(n.name) GLOB '*e5m2*'
        OR lower(n.name) GLOB '*float8*' THEN 'fp8'
      WHEN lower(n.name) GLOB '*bf16*' OR lower(n.name) GLOB '*bfloat16*' OR lower(n.name) GLOB '*fp16*'
        OR lower(n.name) GLOB '*f16*'
        OR lower(n.name) GLOB '*half*' OR lower(n.name) GLOB '*h884*' OR lower(n.name) GLOB '*h1688*'
        OR lower(n.name) GLOB '*h16816*' OR lower(n.name) GLOB '*hgemm*'
        OR lower(n.name) GLOB 'cijk_*_hhs_*' OR lower(n.name) GLOB 'cijk_*_bbs_*'
        OR lower(n.name) GLOB 'cijk_*_hhh_*' OR lower(n.name) GLOB 'cijk_*_bbb_*' THEN 'fp16/bf16'
      WHEN lower(n.name) GLOB '*tf32*' OR lower(n.name) GLOB '*s1688gemm*'
        OR lower(n.name) GLOB '*s16816gemm*' THEN 'tf32'
      WHEN lower(n.name) GLOB '*sgemm*' OR lower(n.name) GLOB '*simt*' THEN 'fp32'
      ELSE 'unknown' END AS precision,
    CASE
      WHEN lower(n.name) GLOB '*sm100*' OR lower(n.name) GLOB '*sm_100*' THEN 100
      WHEN lower(n.name) GLOB '*sm90*' OR lower(n.name) GLOB '*sm_90*'
        OR lower(n.name) GLOB '*cutlass_90*' OR lower(n.name) GLOB '*hopper*' THEN 90
      WHEN lower(n.name) GLOB '*sm80*' OR lower(n.name) GLOB '*sm_80*'
        OR lower(n.name) GLOB '*cutlass_80*' OR lower(n.name) GLOB 'ampere_*' THEN 80
      WHEN lower(n.name) GLOB '*sm75*' OR lower(n.name) GLOB 'turing_*' THEN 75
      WHEN lower(n.name) GLOB '*sm70*' OR lower(n.name) GLOB 'volta_*' THEN 70 END AS arch
  -- (grouped by name id, named afterwards: the rules read each name once)
  FROM (SELECT name_id, trace_id, device, sum(dur) AS dur FROM report_gpu
        WHERE kind = 'kernel' AND category = 'GEMM' GROUP BY name_id, trace_id, device) g
    JOIN report_name n USING (name_id), (SELECT 1.0 * max(n, 1) AS n FROM time_m) t
),
-- The matrix-multiply operators (op_family 'matmul': aten::mm, addmm, bmm,
-- baddbmm, matmul, linear) whose counted calls bound the GEMMs; not the
-- convolutions and attention calls report_flop_op also counts.
gemm_op AS (
  SELECT id FROM _string WHERE id IN (SELECT name_id FROM report_flop_op)
    AND op_family(value) = 'matmul'
),
-- The GEMMs in one row: the precision with the most time and its share;
-- from the recorded shapes (report_flop_op, outermost counted calls with a
-- known device peak): covered_ns, their GPU time per rank step, peak_pct
-- their achieved share of the peak, and peak_saving_ns what they would
-- save at 60% of the device's peak, the level tuned large GEMMs reach
-- (as low_gemm_efficiency; for fp32 calls 60% of the bf16 peak: the
-- advice is autocast); the device (NVIDIA, compute capability) and the largest
-- GEMM kernel built for an older GPU generation than it.
gemm_dom AS (
  SELECT
    (SELECT precision FROM gemm_kern GROUP BY precision ORDER BY sum(dur) DESC, precision LIMIT 1)
      AS precision,
    (SELECT sum(dur) FROM gemm_kern WHERE precision = (SELECT precision FROM gemm_kern
       GROUP BY precision ORDER BY sum(dur) DESC, precision LIMIT 1)) / max((SELECT sum(dur) FROM gemm_kern), 1)
      AS precision_share,
    x.covered_ns, x.peak_ns, max(x.covered_ns - x.peak_ns, 0) AS peak_saving_ns,
    100.0 * x.own_peak_ns / max(x.covered_ns, 1) AS peak_pct,
    (SELECT p.name FROM report_flop_op f JOIN report_device_peak p ON p.trace_id = f.trace_id
       AND p.device_id = f.device AND p.dtype = f.dtype
     WHERE f.outermost AND f.device_ns > 0 AND f.name_id IN (SELECT id FROM gemm_op) AND p.tflops > 0
     GROUP BY p.name ORDER BY sum(f.device_ns) DESC, p.name LIMIT 1) AS peak_device,
    (SELECT max(p.assumed) FROM report_flop_op f JOIN report_device_peak p ON p.trace_id = f.trace_id
       AND p.device_id = f.device AND p.dtype = f.dtype
     WHERE f.outermost AND f.device_ns > 0 AND f.name_id IN (SELECT id FROM gemm_op) AND p.tflops > 0) AS peak_assumed,
    e.covered_ns AS ev_covered_ns, max(e.covered_ns - e.best_ns, 0) AS ev_saving_ns,
    e.best_tflops AS ev_best_tflops,
    d.name AS device_name, d.cc, o.name AS old_name, o.arch AS old_arch,
    (SELECT sum(k.dur) FROM gemm_kern k WHERE k.arch < d.cc AND d.cc >= 90
       AND k.precision NOT IN ('fp32', 'unknown')) / max((SELECT sum(dur) FROM gemm_kern), 1)
      AS old_share
  FROM (SELECT sum(f.device_ns) / t.n AS covered_ns,
          sum(f.flops / 1000.0 / (0.6 * coalesce(b.tflops, p.tflops))) / t.n AS peak_ns,
          sum(f.flops / 1000.0 / p.tflops) / t.n AS own_peak_ns
        FROM report_flop_op f
        JOIN report_device_peak p ON p.trace_id = f.trace_id AND p.device_id = f.device AND p.dtype = f.dtype
        LEFT JOIN report_device_peak b ON f.dtype = 'fp32' AND b.trace_id = f.trace_id
          AND b.device_id = f.device AND b.dtype = 'bf16',
          (SELECT 1.0 * max(n, 1) AS n FROM time_m) t
        WHERE f.outermost AND f.device_ns > 0 AND f.name_id IN (SELECT id FROM gemm_op) AND p.tflops > 0) x
  -- no known peak: the evidence is the trace's own fastest shape (per
  -- dtype, over at least 100 us of GPU time); covered_ns, the calls of a
  -- device of unknown peak, best_ns their time at that shape's rate
  LEFT JOIN (SELECT sum(f.device_ns) / t.n AS covered_ns,
               sum(f.flops / r.rate) / t.n AS best_ns, max(r.rate) / 1000.0 AS best_tflops
             FROM report_flop_op f
             JOIN (SELECT dtype, max(1.0 * fl / ns) AS rate FROM (
                     SELECT dtype, sum(flops) AS fl, sum(device_ns) AS ns FROM report_flop_op
                     WHERE outermost AND device_ns > 0 AND name_id IN (SELECT id FROM gemm_op)
                     GROUP BY name_id, input_dims, dtype
                     HAVING sum(device_ns) >= 100000) GROUP BY dtype) r ON r.dtype = f.dtype,
               (SELECT 1.0 * max(n, 1) AS n FROM time_m) t
             WHERE f.outermost AND f.device_ns > 0 AND f.name_id IN (SELECT id FROM gemm_op)
               AND NOT EXISTS (SELECT 1 FROM report_device_peak p WHERE p.trace_id = f.trace_id
                               AND p.device_id = f.device AND p.dtype = f.dtype AND p.tflops > 0)) e ON 1
  LEFT JOIN (SELECT dv.name, dv.compute_major * 10 + dv.compute_minor AS cc
             FROM gemm_kern k JOIN device dv ON dv.trace_id = k.trace_id AND dv.device_id = k.device
             WHERE dv.name LIKE 'NVIDIA%' OR dv.name LIKE 'Tesla%'
             GROUP BY dv.name, cc ORDER BY sum(k.dur) DESC LIMIT 1) d ON 1
  LEFT JOIN (SELECT k.name, k.arch, dv.compute_major * 10 + dv.compute_minor AS cc
             FROM gemm_kern k JOIN device dv ON dv.trace_id = k.trace_id AND dv.device_id = k.device
             WHERE k.arch < dv.compute_major * 10 + dv.compute_minor AND dv.compute_major >= 9
               AND k.precision NOT IN ('fp32', 'unknown')
               AND (dv.name LIKE 'NVIDIA%' OR dv.name LIKE 'Tesla%')
             GROUP BY k.name, k.arch, cc ORDER BY sum(k.dur) DESC, k.name LIMIT 1) o ON o.cc = d.cc
),
-- dominant_category's bound (rule 5): for GEMMs whose shapes cover at
-- least half their time, what the covered ones save at 60% of the
-- device's peak, scaled to the category (nothing when they are faster
-- than that; the device's model may be assumed, lib/58_flops.sql); on a
-- device of unknown peak, what the covered ones save at the rate of the
-- trace's fastest shape (ev_*); without shapes half the time (a 2x
-- faster GEMM, a low-confidence guess), except for fp4 GEMMs, which have
-- no lower precision to go to: nothing; other categories: half their
-- time.
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
         WHEN m.precision = 'fp4' THEN 0
         ELSE c.dur / 2 END AS saving0,
    m.*
  FROM top_cat c, gemm_dom m
),
-- When the host, not the GPU, sets the step (the GPU idles most of it), a
-- faster kernel shortens the step only where something waits for it: a
-- host-blocking call (report_clip_sync) or the step's end, when its GPU
-- work runs past the ProfilerStep's CPU range (the span's tail).  The
-- one-time calls (lib/38_claim.sql: start-up, cuDNN / MIOpen autotuning
-- syncs in the first iterations) are left out: they are not the steady
-- state's wait.  crit: the dominant category's kernel time in those
-- windows, per rank step.
crit_win AS (
  SELECT trace_id, a, b FROM report_clip_sync
  WHERE event_id NOT IN (SELECT event_id FROM report_setup_call WHERE NOT repeated)
  UNION ALL
  SELECT trace_id, ts + dur, span_end FROM report_step WHERE span_end > ts + dur
),
-- crit_fill: the same for the fill kernels (fill_kernels); crit_op: for
-- the kernel category of low_gemm_efficiency's operator (gemm_cat), and
-- op_cat_ns: that category's kernel time per rank step.
-- (measured only when the GPU idles over 10% of the rank step, crit_bound:
-- the only case that reads them; each measure holds a trace's kernels of
-- the kind)
crit_m AS (
  SELECT coalesce(sum(x.ns), 0) / t.n AS crit, coalesce(sum(x.fill_ns), 0) / t.n AS crit_fill,
    coalesce(sum(x.op_ns), 0) / t.n AS crit_op, coalesce(sum(x.op_cat_ns), 0) / t.n AS op_cat_ns FROM (
    SELECT k.trace_id, (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.kind = 'kernel'
          AND g.category = (SELECT category FROM top_cat))) AS ns,
      (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.kind = 'kernel' AND g.is_fill)) AS fill_ns,
      (SELECT interval_overlap(a, b, w) FROM (
        SELECT c.a, c.b, 1 AS w FROM crit_win c WHERE c.trace_id = k.trace_id
        UNION ALL
        SELECT g.ts, g.ts + g.dur, 0 FROM report_gpu g
        WHERE g.trace_id = k.trace_id AND g.kind = 'kernel'
          AND g.category = (SELECT category FROM gemm_cat))) AS op_ns,
      (SELECT sum(g.dur) FROM report_gpu g
       WHERE g.trace_id = k.trace_id AND g.kind = 'kernel'
         AND g.category = (SELECT category FROM gemm_cat)) AS op_cat_ns
    FROM (SELECT DISTINCT trace_id FROM report_gpu) k
    WHERE (SELECT crit_bound FROM time_m)) x,
    (SELECT 1.0 * max(n, 1) AS n FROM time_m) t
),
-- Layout transposes among the convolutions (MIOpen's batched_transpose_*,
-- cuDNN's nchwToNhwc / nhwcToNchw), per rank step: channels_last removes
-- them.  (The divisor is a scalar subquery: a joined t.n is NULL when no
-- kernel matches, and the NULL made every Convolution bound NULL.)
conv_tr AS (
  SELECT coalesce(sum(g.dur), 0) / (SELECT 1.0 * max(n, 1) FROM time_m) AS ns
  FROM report_gpu g JOIN report_gpu_name n USING (name_id)
  WHERE g.kind = 'kernel' AND g.category = 'Convolution'
    AND (lower(n.name) GLOB '*batched_transpose_*' OR lower(n.name) GLOB '*nchwtonhwc*'
         OR lower(n.name) GLOB '*nhwctonchw*')
),
-- The bound: with the GPU idle over 10% of the rank step (crit_bound),
-- the same share of the category's time on the critical path (of the
-- larger of saving0 and the layout transposes for Convolution, unless the
-- GPU idles over half the step: host_bound); else saving0 (Convolution:
-- the larger of it and the transposes).
dom_m AS (
  SELECT d.*, t.busy < 0.5 * t.wall AS host_bound, t.crit_bound, cm.crit, ct.ns AS transpose_ns,
    CASE WHEN d.category = 'Convolution' AND t.busy >= 0.5 * t.wall
         THEN max(d.saving0, ct.ns) ELSE d.saving0 END
      * iif(t.crit_bound, min(1.0, cm.crit / max(d.dur, 1)), 1.0) AS saving
  FROM dom_0 d, time_m t, crit_m cm, conv_tr ct
),
-- Top 3 kernels (or copies, fills) of a kind, as subjects.
-- (per rank: a job with more ranks that behave alike names the same
-- figures)
kernel_top AS (
  SELECT g.kind, g.category, g.is_fill, n.name,
    CAST(round(1.0 * g.dur / t.ranks) AS INTEGER) AS dur, g.n / t.ranks AS n,
    round(1.0 * g.short / t.ranks, 1) AS short
  FROM (SELECT kind, category, is_fill, name_id, sum(dur) AS dur, count(*) AS n,
          sum(dur < 10000) AS short
        FROM report_gpu GROUP BY kind, category, is_fill, name_id) g
    JOIN report_name n USING (name_id), (SELECT ranks FROM time_m) t
),
-- Launch calls' CPU time per rank step; calls per rank.  cold_ns: the
-- part in cold-start calls (lib/37_launch.sql: the first launch of a
-- kernel, over 1 ms and 100x the median launch), one-time start-up that
-- neither fusion nor CUDA graphs save; steady_ns: the rest.
launch_m AS (
  SELECT coalesce(sum(l.dur), 0) / t.n AS launch_ns, count(*) / t.ranks AS calls,
    coalesce(sum(l.dur) FILTER (WHERE c.launch_id IS NOT NULL), 0) / t.n AS cold_ns,
    coalesce(sum(l.dur) FILTER (WHERE c.launch_id IS NULL), 0) / t.n AS steady_ns,
    count(c.launch_id) / t.ranks AS cold_calls
  FROM _slice l LEFT JOIN report_cold_launch c ON c.launch_id = l.id,
    (SELECT 1.0 * max(n, 1) AS n, 1.0 * ranks AS ranks FROM time_m) t
  WHERE l.id IN (SELECT launch_id FROM report_gpu WHERE kind = 'kernel')
),
-- The cold start in the analysed spans (lib/37_launch.sql), per rank
-- step: the cold-start calls' time and the GPU idle time during them
-- (capped at the GPU idle time), calls per rank, the largest call and
-- the median launch it is compared with.
cold_m AS (
  SELECT coalesce(c.calls, 0) / t.ranks AS calls, coalesce(c.call_ns, 0) / t.n AS call_ns,
    min(coalesce(c.idle_ns, 0) / t.n, max(coalesce(t.wall - t.busy, 0), 0)) AS idle_ns,
    (SELECT max(l.dur) FROM report_cold_launch l WHERE EXISTS (SELECT 1 FROM report_span s
       WHERE s.trace_id = l.trace_id AND l.ts < s.end_ts AND l.ts + l.dur > s.ts)) AS largest_ns,
    (SELECT max(l.median_ns) FROM report_cold_launch l) AS median_ns
  FROM (SELECT sum(calls) AS calls, sum(call_ns) AS call_ns, sum(idle_ns) AS idle_ns
        FROM report_cold_span) c,
    (SELECT 1.0 * max(n, 1) AS n, 1.0 * ranks AS ranks, wall, busy FROM time_m) t
),
-- Who owns the GPU idle time (lib/38_claim.sql), per rank step: each
-- instant of GPU idle time is claimed by one finding only.  claimed: the
-- sum of all but gpu_idle's and launch_bound's parts (launch_claim).
claim_m AS (
  SELECT coalesce(sum(c.cold_ns), 0) / t.n AS cold, coalesce(sum(c.startup_ns), 0) / t.n AS startup,
    coalesce(sum(c.alloc_ns), 0) / t.n AS alloc, coalesce(sum(c.outside_ns), 0) / t.n AS outside,
    coalesce(sum(c.explicit_ns), 0) / t.n AS explicit, coalesce(sum(c.op_sync_ns), 0) / t.n AS op_sync,
    coalesce(sum(c.dataloader_ns), 0) / t.n AS dataloader,
    coalesce(sum(c.cold_ns + c.startup_ns + c.alloc_ns + c.outside_ns + c.explicit_ns
                  + c.op_sync_ns + c.dataloader_ns), 0) / t.n AS claimed
  FROM (SELECT 1.0 * max(n, 1) AS n FROM time_m) t LEFT JOIN report_idle_claim c ON 1
),
-- Allocator and set-up calls per name (lib/38_claim.sql), per rank: calls
-- and their time, one-time and repeated apart, the autotuning syncs
-- inside convolutions named as such; the innermost operator around the
-- repeated allocator calls comes in setup_op.
setup_m AS (
  SELECT CASE WHEN autotune THEN name || ' inside convolutions (cuDNN / MIOpen autotuning)'
              ELSE name END AS name,
    autotune, repeated, count(DISTINCT event_id) / t.ranks AS calls,
    sum(b - a) / t.n AS call_ns, max(dur) AS max_dur
  FROM report_setup_call, (SELECT 1.0 * max(n, 1) AS n, 1.0 * ranks AS ranks FROM time_m) t
  GROUP BY name, autotune, repeated
),
-- The autotuning syncs inside convolutions that recur through the steps
-- (lib/38_claim.sql): calls per rank and their time per rank step.
autotune_m AS (
  SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(call_ns), 0) AS call_ns
  FROM setup_m WHERE autotune AND repeated
),
setup_op AS (
  SELECT n.value AS op, count(DISTINCT c.event_id) AS calls
  FROM report_setup_call c JOIN _slice_tree t ON t.id = c.event_id
  JOIN _slice s ON s.id = t.parent_id JOIN _string n ON n.id = s.name_id
  WHERE c.repeated AND NOT c.autotune
    AND s.kind IN (SELECT kind FROM _kind WHERE name IN ('cpu_op', 'user_annotation'))
  GROUP BY n.value ORDER BY calls DESC, op LIMIT 3
),
-- What launch_bound takes of the GPU idle time the calls above leave
-- (idle_left), per rank step (ns; 0 when it does not fire): fusion and
-- CUDA graphs remove the steady-state launch calls' CPU time, no more than
-- that idle time.  gpu_idle keeps the rest (rest = idle_left - ns), so
-- the owners' savings add up to the idle time at most.
launch_claim AS (
  SELECT idle_left, ns, idle_left - ns AS rest FROM (
    SELECT i.idle_left,
      CASE WHEN i.kernels > 100 AND i.short_kernels > 0.5 * i.kernels
             AND i.idle_left > 0.2 * i.outside
             AND i.bound >= f.min_pct / 100 * i.js AND i.bound >= f.min_ns
           THEN i.bound ELSE 0 END AS ns
    FROM floor_m f, (
      SELECT t.wall - t.busy - cl.claimed AS idle_left, t.wall - cl.claimed AS outside,
        min(l.steady_ns, t.wall - t.busy - cl.claimed) AS bound, t.js, g.kernels, g.short_kernels
      FROM time_m t, claim_m cl, launch_m l, gpu_m g) i)
),
-- Launch calls in the analysed steps that replay a CUDA/HIP graph: such
-- steps already use CUDA graphs, so no finding advises them.
graph_m AS (
  SELECT count(DISTINCT g.launch_id) AS calls
  FROM report_gpu g JOIN _slice r ON r.id = g.launch_id
  WHERE r.name_id IN (SELECT id FROM _string
                      WHERE value GLOB 'cudaGraphLaunch*' OR value GLOB 'hipGraphLaunch*')
),
-- Reported traces that end early (trace.status = 'truncated', set by the
-- load, which exits 3): events past the cut are missing.  Kineto writes
-- the GPU events after the CPU events, so a cut trace loses its GPU work
-- first; the findings that missing events could explain say so (cut_rule).
cut_m AS (
  SELECT count(*) AS traces,
    group_concat(printf('%s ends at byte %d of its decompressed JSON', t.label, t.truncated_at),
      '; ') AS list
  FROM trace t
  WHERE t.trace_id IN (SELECT trace_id FROM report_trace) AND t.status = 'truncated'
),
cut_rule(rule) AS (
  VALUES ('gpu_idle'), ('launch_bound'), ('synchronization'), ('memcpy'),
    ('startup_calls'), ('allocator_calls'), ('wait_outside_trace'), ('explicit_sync'),
    ('exposed_communication'), ('straggler'), ('cold_start'), ('need_gpu_activity'),
    ('gpu_records_lost'), ('ran_on_cpu'), ('gpu_outside_steps'), ('need_steps')
),
-- Per rank, the share of its analysed time the GPU idles and data loading
-- takes, as subjects (the worst 3 first).
rank_time AS (
  SELECT w.rank, w.label, 100.0 * (sum(t.wall_ns) - sum(t.u4)) / max(sum(t.wall_ns), 1) AS idle_pct,
    100.0 * sum(t.u6 - t.u5) / max(sum(t.wall_ns), 1) AS dataloader_pct
  FROM report_step_time t JOIN report_window w USING (trace_id) GROUP BY t.trace_id
),
ranks_idle AS (
  SELECT json_group_array(json_object('rank', rank, 'label', label, 'gpu_idle_pct', round(idle_pct, 1)))
    AS subjects
  FROM (SELECT * FROM rank_time ORDER BY idle_pct DESC, rank LIMIT 3)
),
ranks_dataloader AS (
  SELECT json_group_array(json_object('rank', rank, 'label', label,
    'dataloader_pct', round(dataloader_pct, 1))) AS subjects
  FROM (SELECT * FROM rank_time WHERE dataloader_pct > 0 ORDER BY dataloader_pct DESC, rank LIMIT 3)
),
-- Collectives per rank step (lib/50_collectives.sql), on the analysed
-- spans' timeline (clipped to them, as time_m): waiting for the
-- last peer is split from transfer; only transfer can be hidden by
-- overlap, so only its exposed part is promised here (the waiting is the
-- straggler rule's), and overlap can hide no more of it than the compute
-- not already running beside transfer (hideable: per trace and device,
-- min(exposed, compute - overlapped)).  peers_missing: the most ranks of
-- one run's world size that are not loaded (their waiting cannot be told
-- from transfer).
comm_m AS (
  SELECT coalesce(sum(comm_ns), 0) / t.n AS comm, coalesce(sum(wait_ns), 0) / t.n AS wait,
    coalesce(sum(transfer_ns), 0) / t.n AS transfer,
    coalesce(sum(unmatched_ns), 0) / t.n AS unmatched,
    coalesce(sum(overlapped_ns), 0) / t.n AS overlap,
    coalesce(sum(exposed_ns), 0) / t.n AS exposed,
    coalesce(sum(compute_ns), 0) / t.n AS compute,
    coalesce(sum(min(exposed_ns, max(compute_ns - overlapped_ns, 0))), 0) / t.n AS hideable,
    (SELECT max(ws - n) FROM (
       SELECT max(x.world_size) AS ws, count(DISTINCT x.rank) AS n
       FROM report_trace x JOIN report_run r USING (trace_id)
       WHERE x.world_size > 1 GROUP BY r.run)) AS peers_missing,
    (SELECT max(x.world_size) FROM report_trace x) AS world_size,
    (SELECT n.name FROM report_gpu g JOIN report_name n USING (name_id)
     WHERE g.category = 'NCCL/communication' GROUP BY n.name ORDER BY sum(g.dur) DESC, n.name
     LIMIT 1) AS top_name
  FROM report_comm, (SELECT 1.0 * max(n, 1) AS n FROM time_m) t
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
    p.peak_allocated, p.peak_reserved, p.end_allocated, c.bytes AS capacity,
    f.reserved AS frag_reserved, f.requested AS frag_requested, f.internal AS frag_internal,
    f.external AS frag_external, f.free_segments AS frag_free_segments
  FROM report_mem_device d LEFT JOIN report_mem_peak p USING (snapshot_id, device)
  LEFT JOIN report_mem_frag_peak f USING (snapshot_id, device), report_capacity c
),
-- Fragmentation at the peak, bounded (rule 11): expandable segments can
-- give back at most the free space inside partly used segments
-- (frag_external), and never more than reserved - requested at the peak
-- (a snapshot whose segments overlap counts their bytes twice);
-- overlaps: the load's snapshot_overlapping_segments count (import_stats);
-- expandable: the snapshot already uses expandable segments (allocator
-- setting or a segment's is_expandable), whose mapping profdb does not
-- model, so no fragmentation is claimed there.
frag_m AS (
  SELECT m.*,
    max(min(m.frag_external, m.frag_reserved - m.frag_requested), 0) AS bound,
    coalesce((SELECT value FROM import_stats i WHERE i.artifact_id = m.snapshot_id
              AND i.artifact = 'snapshot' AND i.name = 'snapshot_overlapping_segments'), 0)
      AS overlaps,
    coalesce(m.expandable_on, 0) = 1
      OR EXISTS (SELECT 1 FROM segment g WHERE g.snapshot_id = m.snapshot_id
                 AND g.device = m.device AND g.is_expandable = 1) AS expandable
  FROM mem_m m
),
source_m AS (
  SELECT l.snapshot_id, l.device, coalesce(f.source, '(no stack)') AS source,
    sum(l.size) AS bytes, count(*) AS n
  FROM report_mem_live l LEFT JOIN report_user_frame f ON f.stack_id = l.stack_id
  GROUP BY l.snapshot_id, l.device, source
),
top_source AS (
  SELECT s.*, p.peak_allocated, p.peak_reserved,
    -- the stack creates parameters or buffers (a module's __init__, weight
    -- initialisation), not activations
    EXISTS (SELECT 1 FROM report_mem_live l JOIN stack_frame f ON f.stack_id = l.stack_id
            WHERE l.snapshot_id = s.snapshot_id AND l.device = s.device
              AND coalesce((SELECT u.source FROM report_user_frame u WHERE u.stack_id = l.stack_id), '(no stack)') = s.source
              AND (f.name IN ('__init__', 'reset_parameters', '_init_weights', 'init_weights',
                              'to_empty', 'load_state_dict', '_apply')
                   OR f.filename LIKE '%torch/nn/init.py')) AS init
  FROM source_m s JOIN report_mem_peak p USING (snapshot_id, device)
  WHERE s.source <> '(no stack)'
  ORDER BY 1.0 * s.bytes / max(p.peak_allocated, 1) DESC, s.source LIMIT 1
),
churn_m AS (
  SELECT snapshot_id, device, size, count(*) AS allocs, size * count(*) AS churn
  FROM alloc_event WHERE action = 'alloc'
    AND snapshot_id IN (SELECT snapshot_id FROM report_mem_device)
  GROUP BY snapshot_id, device, size ORDER BY churn DESC, size DESC LIMIT 1
),
-- GPU work of the reported traces, in the analysed steps or not: the
-- counts below that explain its absence scan the trace only without it
-- (a CASE evaluates its branch only when taken; a guard inside a
-- subquery's WHERE does not stop its scan).
gpu_all_m AS (SELECT count(*) AS gpu_all FROM gpu_activity a JOIN report_trace t USING (trace_id)),
counts AS (
  SELECT (SELECT count(*) FROM report_trace) AS traces,
    (SELECT count(*) FROM report_mem_device) AS mem_devices,
    (SELECT count(*) FROM report_gpu) AS gpu,
    g.gpu_all,
    -- (scanned only when the traces have no CUDA/ROCm GPU work at all)
    CASE WHEN g.gpu_all = 0 THEN (SELECT printf('%d ''%s'' events', n, cat) FROM (
       SELECT c.value AS cat, count(*) AS n FROM _slice e JOIN _string c ON c.id = e.cat_id
       WHERE e.kind = (SELECT kind FROM _kind WHERE name = 'cpu_other') AND e.trace_id IN (SELECT trace_id FROM report_trace)
         AND (c.value GLOB 'mtia*' OR c.value GLOB 'xpu*' OR c.value GLOB 'hpu*'
              OR c.value GLOB 'npu*')
       GROUP BY c.value ORDER BY n DESC, c.value LIMIT 1)) END AS other_device,
    -- (scanned only when the traces have no GPU work at all) runtime calls
    -- that launch GPU work, ac2g flows (CPU-to-GPU links), [memory]
    -- events on the CPU (device type 0) and on a GPU, GPUs listed in
    -- deviceProperties, and whether a cuda_profiler_range event (CUPTI's
    -- range profiler, which records counters per range, not kernels) is there
    CASE WHEN g.gpu_all = 0 THEN (SELECT count(*) FROM _slice r JOIN _string n ON n.id = r.name_id
     WHERE r.kind = (SELECT kind FROM _kind WHERE name = 'runtime')
       AND r.trace_id IN (SELECT trace_id FROM report_trace)
       AND (n.value GLOB '*Launch*' OR n.value GLOB '*MemcpyAsync*'
            OR n.value GLOB '*MemsetAsync*')) ELSE 0 END AS launch_calls,
    CASE WHEN g.gpu_all = 0 THEN (SELECT count(*) FROM _flow f
     WHERE f.trace_id IN (SELECT trace_id FROM report_trace)
       AND f.cat_id = (SELECT id FROM _string WHERE value = 'ac2g')) ELSE 0 END AS ac2g_flows,
    CASE WHEN g.gpu_all = 0 THEN (SELECT max(i.total_allocated) FROM _instant i
     WHERE i.trace_id IN (SELECT trace_id FROM report_trace)
       AND i.kind = (SELECT kind FROM _kind WHERE name = 'memory') AND i.device_type = 0) END AS cpu_mem_peak,
    CASE WHEN g.gpu_all = 0 THEN (SELECT count(*) FROM _instant i
     WHERE i.trace_id IN (SELECT trace_id FROM report_trace)
       AND i.kind = (SELECT kind FROM _kind WHERE name = 'memory') AND i.device_type = 1) ELSE 0 END AS gpu_mem_events,
    (SELECT count(*) FROM device d WHERE d.trace_id IN (SELECT trace_id FROM report_trace)) AS devices,
    CASE WHEN g.gpu_all = 0 THEN (SELECT count(*) > 0 FROM _slice e
     WHERE e.trace_id IN (SELECT trace_id FROM report_trace)
       AND e.cat_id = (SELECT id FROM _string WHERE value = 'cuda_profiler_range')) ELSE 0 END AS range_profiler,
    -- traces from PyTorch's legacy (pre-Kineto) exporter: a bare array of
    -- events without categories (FORMATS.md 1.10); it never writes shapes
    (SELECT count(*) FROM trace t WHERE t.trace_id IN (SELECT trace_id FROM report_trace)
       AND t.layout = 'array'
       AND NOT EXISTS (SELECT 1 FROM _slice e WHERE e.trace_id = t.trace_id AND e.raw_cat_id IS NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM _gpu e WHERE e.trace_id = t.trace_id AND e.raw_cat_id IS NOT NULL))
      AS legacy_traces,
    (SELECT count(*) FROM report_step) AS steps,
    (SELECT count(*) FROM report_step_all) AS all_steps,
    (SELECT coalesce(sum(calls), 0) FROM report_op_stats) AS ops,
    (SELECT coalesce(sum(shaped), 0) FROM report_op_stats) AS ops_with_shapes
  FROM gpu_all_m g
)
,
-- The FLOP-counted operator group (gemm_efficiency: name, shapes, dtype)
-- with the most GPU time, when the device's peak is known.
gemm_m AS (
  SELECT profdb_display_name(n.value) AS name, op_family(n.value) AS family,
    f.input_dims, f.dtype, min(f.source) AS source, d.name AS device_name,
    sum(f.device_ns) / (SELECT 1.0 * max(n, 1) FROM time_m) AS device_ns, p.tflops AS peak_tflops,
    100.0 * sum(f.flops) / 1000.0 / sum(f.device_ns) / p.tflops AS peak_pct,
    (SELECT sum(dur) FROM report_gpu) / (SELECT 1.0 * max(n, 1) FROM time_m) AS gpu_ns
  FROM report_flop_op f JOIN _string n ON n.id = f.name_id
  JOIN device d ON d.trace_id = f.trace_id AND d.device_id = f.device
  JOIN report_device_peak p ON p.trace_id = f.trace_id AND p.device_id = f.device AND p.dtype = f.dtype
  WHERE f.device_ns > 0
  GROUP BY n.value, f.input_dims, f.dtype, d.name, p.tflops
  ORDER BY device_ns DESC, name LIMIT 1
),
-- The kernel category of gemm_m's operator (its op_family), whose share of
-- kernel time on the critical path bounds low_gemm_efficiency (crit_m).
gemm_cat AS (
  SELECT CASE family WHEN 'matmul' THEN 'GEMM' WHEN 'convolution' THEN 'Convolution'
    WHEN 'attention' THEN 'Attention' END AS category FROM gemm_m
),
-- Straggler ranks: late arrival at collectives (lib/50_collectives.sql),
-- with the fields of the findings contract (docs/report-schema.md).
-- The saving is the run's over its job steps, per job step.
straggler_j AS (
  SELECT r.*, CAST(round(1.0 * r.saving_ns / max((SELECT count(*) FROM report_job_step j
    WHERE j.run = r.run), 1)) AS INTEGER) AS step_saving_ns,
    (SELECT max(n, 1) FROM (SELECT count(*) AS n FROM report_job_step j WHERE j.run = r.run)) AS job_steps,
    t.js
  FROM report_straggler_run r, time_m t WHERE t.js > 0
),
straggler_f AS (
SELECT round(100.0 * r.step_saving_ns / r.js, 1) AS priority, 'straggler' AS id,
  'high' AS confidence,
  printf('Rank%s %s reach%s the collectives late; the other ranks wait for %s',
    CASE WHEN json_array_length(r.stragglers) > 1 THEN 's' ELSE '' END,
    -- at most 5 ranks named; the subjects (JSON) list them all
    (SELECT group_concat(x, ', ') || CASE WHEN json_array_length(r.stragglers) > 5
       THEN printf(' and %d more', json_array_length(r.stragglers) - 5) ELSE '' END
     FROM (SELECT j.value ->> 'rank' AS x FROM json_each(r.stragglers) j LIMIT 5)),
    CASE WHEN json_array_length(r.stragglers) > 1 THEN '' ELSE 'es' END,
    CASE WHEN json_array_length(r.stragglers) > 1 THEN 'them' ELSE 'it' END) AS title,
  printf('Over %d ranks of run %s, matched collective calls: %s (rank_sum: late_ns is the time after the median rank''s arrival, mean_wait_ns the peers'' wait inside their collective kernels).',
    r.ranks, r.run,
    -- the 3 latest stragglers (rank_sum has every rank)
    (SELECT group_concat(printf('rank %d arrives %s after the first rank on average, %s after the median in total, last in %d of %d calls',
        s.rank, profdb_fmt_ns(s.mean_lateness_ns), profdb_fmt_ns(s.late_ns), s.last_arrivals, s.collectives), '; ')
       || CASE WHEN json_array_length(r.stragglers) > 3
            THEN printf('; %d more late ranks in rank_sum', json_array_length(r.stragglers) - 3)
            ELSE '' END
     FROM (SELECT * FROM report_straggler s WHERE s.run = r.run AND s.straggler
           ORDER BY s.late_ns DESC, s.rank LIMIT 3) s)) AS observation,
  'The late ranks do more work before the collective (imbalanced data or embedding shards), or their host or GPU is slower (throttling, noisy neighbours, a slow data loader); ranks with the longest steps are the ones that waited.' AS hypothesis,
  'Compare what the late ranks run before the collective (step_time, gpu_kernel_sum with --trace) with the others: input sizes per rank, sharding balance, host load and GPU clocks.' AS action,
  printf('Up to %s per job step (%.1f%% of the %s job step) if the late ranks arrived with the others: the other ranks'' waiting inside their collective kernels (communication.wait_ns), which no other finding claims.',
    profdb_fmt_ns(r.step_saving_ns), 100.0 * r.step_saving_ns / r.js, profdb_fmt_ns(r.js)) AS expected_impact,
  'Re-profile all ranks: rank_sum.straggler is no everywhere and late_ns under 1% of the job step.' AS validation,
  0 AS needs_artifact,
  round(min(100.0 * r.step_saving_ns / r.js, 100), 2) AS expected_saving_pct,
  r.step_saving_ns AS expected_saving_ns, r.stragglers AS subjects,
  json_object('sections', json_array('rank_sum', 'communication'), 'run', r.run,
    'saving_ns', r.saving_ns, 'job_steps', r.job_steps, 'job_step_ns', r.js,
    'analysed_ns', r.analysed_ns,
    'late_ns', (SELECT json_group_object(s.rank, s.late_ns) FROM report_straggler s
                WHERE s.run = r.run AND s.straggler)) AS evidence
FROM straggler_j r, floor_m f WHERE r.analysed_ns > 0 AND r.step_saving_ns >= f.min_ns
  AND 100.0 * r.step_saving_ns / r.js >= f.min_pct
),
rules AS (
-- 1. The GPU waits: low utilization.  The fix (a host that keeps the GPU
-- fed) can save at most the idle time, less the idle time other findings
-- own (lib/38_claim.sql: cold-start launch calls, one-time set-up and
-- repeated allocator calls, host-blocking calls, DataLoader ranges; and
-- launch_bound's bound, launch_claim); a GPU that barely
-- works (under 1% of the window or 100 us) is a CPU-bound run, not an
-- idle GPU.  It fires when the GPU idles over 30% of the time outside
-- those calls.  Steps that already
-- replay CUDA graphs are not told to use them.
SELECT round(100.0 * lc.rest / t.js, 1) AS priority, 'gpu_idle' AS id,
  CASE WHEN (t.wall - t.busy) > 0.5 * t.wall AND t.steps > 0 THEN 'high' ELSE 'medium' END AS confidence,
  printf('The GPU is idle %.0f%% of the analysed time', 100.0 * (t.wall - t.busy) / t.wall) AS title,
  printf('Per rank step (%s): GPU busy %s of %s (%.1f%%); the rest: runtime calls %.1f%%, data loading %.1f%%, other CPU work %.1f%%, nothing recorded %.1f%%.%s',
    CASE WHEN t.steps > 0 THEN j.per
         ELSE 'the whole trace: no ProfilerStep ranges, start-up included' END,
    profdb_fmt_ns(t.busy), profdb_fmt_ns(t.wall),
    100.0 * t.busy / t.wall,
    100.0 * t.runtime / t.wall, 100.0 * t.dataloader / t.wall, 100.0 * t.cpu / t.wall,
    100.0 * t.other / t.wall,
    CASE WHEN cl.claimed + lc.ns > 0 THEN printf(' Of the idle time, %s is promised by other findings (their own actions remove it), not here: %s.',
      profdb_fmt_ns(cl.claimed + lc.ns), rtrim(ltrim(
      CASE WHEN cl.cold > 0 THEN printf(' %s in cold-start launch calls (cold_start);', profdb_fmt_ns(cl.cold)) ELSE '' END
      || CASE WHEN cl.startup > 0 THEN printf(' %s in one-time set-up calls (startup_calls);', profdb_fmt_ns(cl.startup)) ELSE '' END
      || CASE WHEN cl.alloc > 0 THEN printf(' %s in repeated allocator calls (allocator_calls);', profdb_fmt_ns(cl.alloc)) ELSE '' END
      || CASE WHEN cl.outside > 0 THEN printf(' %s blocked on work outside the trace (wait_outside_trace);', profdb_fmt_ns(cl.outside)) ELSE '' END
      || CASE WHEN cl.explicit > 0 THEN printf(' %s in explicit synchronize calls (explicit_sync);', profdb_fmt_ns(cl.explicit)) ELSE '' END
      || CASE WHEN cl.op_sync > 0 THEN printf(' %s in host syncs (synchronization);', profdb_fmt_ns(cl.op_sync)) ELSE '' END
      || CASE WHEN cl.dataloader > 0 THEN printf(' %s in data loading (data_loading);', profdb_fmt_ns(cl.dataloader)) ELSE '' END
      || CASE WHEN lc.ns > 0 THEN printf(' %s for the launch calls'' CPU time (launch_bound);', profdb_fmt_ns(lc.ns)) ELSE '' END), ';'))
    ELSE '' END) AS observation,
  'The host does not feed the GPU fast enough: Python and operator dispatch overhead, many small kernels, data loading or synchronization leave the GPU waiting.' AS hypothesis,
  CASE WHEN gr.calls > 0 THEN printf('Look at the launch overhead, synchronization and GPU idle sections; the steps already replay CUDA graphs (%d graph launches per rank): remove host syncs and CPU work between the replays, capture the work still launched outside the graphs, and overlap data loading with compute.', gr.calls / t.ranks)
       ELSE 'Look at the launch overhead, synchronization and GPU idle sections; remove host syncs from the loop, fuse small operations (torch.compile), capture repeated steps with CUDA graphs, and overlap data loading with compute.' END AS action,
  printf('Up to %s (%.0f%% of the job step) if the GPU were kept busy%s.', profdb_fmt_ns(lc.rest),
    100.0 * lc.rest / t.js,
    CASE WHEN cl.claimed + lc.ns > 0 THEN ', the idle time other findings own left out' ELSE '' END) AS expected_impact,
  'Re-profile: step_time_sum.mean_gpu_idle_pct below 20% and mean_wall_ns down.' AS validation,
  0 AS needs_artifact,
  round(100.0 * lc.rest / t.js, 2) AS saving_pct,
  lc.rest AS saving_ns,
  NULL AS saving_bytes, r.subjects,
  json_object('sections', json_array('step_time_sum', 'gpu_util'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js, 'gpu_busy_ns', t.busy,
      'cold_start_idle_ns', CAST(round(cl.cold) AS INTEGER),
      'other_findings_idle_ns', CAST(round(cl.claimed + lc.ns) AS INTEGER), 'graph_launches', gr.calls)) AS evidence
FROM time_m t, gpu_m g, ranks_idle r, floor_m f, job_w j, claim_m cl, graph_m gr, launch_claim lc
WHERE g.activities > 0 AND t.wall > 0 AND lc.rest > 0.3 * (t.wall - cl.claimed - lc.ns)
  AND t.busy >= f.min_pct / 100 * t.js AND t.busy >= f.min_ns
  AND lc.rest >= f.min_ns
UNION ALL
-- 2. Data loading on the critical path: at most the GPU idle time during
-- enumerate(DataLoader) ranges that no call of a higher owner claims
-- (lib/38_claim.sql).
SELECT round(100.0 * cl.dataloader / t.js, 1), 'data_loading',
  CASE WHEN cl.dataloader > 0.15 * t.wall THEN 'high' ELSE 'medium' END,
  printf('Data loading leaves the GPU idle %.0f%% of the step', 100.0 * cl.dataloader / t.wall),
  printf('enumerate(DataLoader) ranges leave the GPU idle %s of %s per rank step (step_time_sum: data loading %s, with no GPU work nor runtime call running), outside the calls other findings own.',
    profdb_fmt_ns(cl.dataloader), profdb_fmt_ns(t.wall), profdb_fmt_ns(t.dataloader)),
  'The training loop waits for the next batch: too few DataLoader workers, slow preprocessing, or host-to-device copies from pageable memory.',
  'Raise DataLoader num_workers, set pin_memory=True and persistent_workers=True, increase prefetch_factor, and move heavy preprocessing off the critical path.',
  printf('Up to %s (%.0f%% of the job step): the GPU idle time while the loop waits for data.', profdb_fmt_ns(cl.dataloader), 100.0 * cl.dataloader / t.js),
  'Re-profile: step_time.dataloader_ns under 2% of wall_ns.',
  0, round(100.0 * cl.dataloader / t.js, 2), cl.dataloader, NULL, r.subjects,
  json_object('sections', json_array('step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js, 'dataloader_ns', t.dataloader,
      'dataloader_idle_ns', CAST(round(cl.dataloader) AS INTEGER)))
FROM time_m t, ranks_dataloader r, floor_m f, claim_m cl
WHERE t.wall > 0 AND cl.dataloader > 0.05 * t.wall AND cl.dataloader >= f.min_ns
UNION ALL
-- 3. Host-device synchronization.  A wait costs step time only while the
-- GPU has nothing to run: the bound is the blocked time with the
-- process's GPUs idle (sync_sum.gpu_idle_ns), not the blocked time, and
-- only the part of it in calls that an operator makes (lib/38_claim.sql:
-- the frees are allocator_calls', explicit synchronize calls outside
-- operators explicit_sync's, waits on work outside the trace
-- wait_outside_trace's).
SELECT round(100.0 * cl.op_sync / t.js, 1), 'synchronization',
  CASE WHEN s.idle > 0.1 * t.wall THEN 'high' ELSE 'medium' END,
  printf('Host syncs leave the GPU idle %.1f%% of the job step', 100.0 * cl.op_sync / t.wall),
  printf('Host-blocking calls (%d, nested ones included) block the CPU for %s of %s (%.1f%%); during %s of it (%.1f%%) no GPU work of the process was running (sync_sum).',
    s.calls, profdb_fmt_ns(s.sync), profdb_fmt_ns(t.wall), 100.0 * s.sync / t.wall,
    profdb_fmt_ns(s.idle), 100.0 * s.idle / t.wall)
  || CASE WHEN abs(s.idle - cl.op_sync) >= 1 THEN printf(' Of that, %s is in syncs that operators make (.item(), .cpu(), nonzero, blocking copies); the rest is other findings'' (frees, explicit synchronize calls, waits on work outside the trace, one-time autotuning).',
       profdb_fmt_ns(cl.op_sync)) ELSE '' END
  || CASE WHEN au.calls > 0 THEN printf(' %d synchronize call(s) per rank (%s per rank step) are cuDNN / MIOpen autotuning inside convolutions that recurs through the steps: with torch.backends.cudnn.benchmark each new input shape is searched again, so the shapes change from step to step; fix them (pad or bucket the inputs) or set torch.backends.cudnn.benchmark = False.',
       CAST(round(au.calls) AS INTEGER), profdb_fmt_ns(au.call_ns)) ELSE '' END,
  CASE WHEN y.is_copy = 2 AND y.idle >= 0.5 * s.idle
       THEN printf('Most of it is one kind of blocking copy: %s between the device and pageable (not pinned) host memory (%d call(s) per rank, the longest %s, %s of GPU idle per step). An async copy to or from pageable memory blocks the host all the same (CUDA runtime API, "API synchronization behavior"): a copy to pageable memory returns only once the work queued before it on its stream and the copy are done; this is a .cpu(), .item(), .tolist(), .numpy() or .to() of a GPU tensor into ordinary host memory.',
              y.name, CAST(round(y.calls) AS INTEGER), profdb_fmt_ns(y.max_dur), profdb_fmt_ns(y.idle))
       WHEN y.is_copy AND y.idle >= 0.5 * s.idle
       THEN printf('Most of it is one kind of blocking copy: %s (%d call(s) per rank, the longest %s, %s of GPU idle per step). A blocking copy returns only when the work queued before it on its stream and the copy itself are done: a .cpu(), .item(), .tolist() or .numpy() of a GPU tensor, or a copy_ / .to() without non_blocking=True (PyTorch on ROCm issues these as hipMemcpyWithStream; on CUDA they show as cudaMemcpyAsync + cudaStreamSynchronize).',
              y.name, CAST(round(y.calls) AS INTEGER), profdb_fmt_ns(y.max_dur), profdb_fmt_ns(y.idle))
       ELSE 'Values are copied to the host inside the loop (.item(), .cpu(), printing or comparing tensors, data-dependent shapes), so the CPU cannot queue work ahead and the GPU drains.' END,
  CASE WHEN y.is_copy = 2 AND y.idle >= 0.5 * s.idle
       THEN printf('Find the %s call sites (subjects; torch.cuda.set_sync_debug_mode("warn") reports each) and take the copy off the critical path: copy into a pinned host buffer (torch.empty(..., pin_memory=True) or .pin_memory()) with non_blocking=True and record an event, synchronizing on it only when the value is read (a step later); or keep the data on the GPU, or copy once after the loop.', y.name)
       WHEN y.is_copy AND y.idle >= 0.5 * s.idle
       THEN printf('Find the %s call sites (subjects; torch.cuda.set_sync_debug_mode("warn") reports each) and take the copy off the critical path: read the value a step later from a pinned host buffer filled with non_blocking=True and an event (event.synchronize() only when it is needed), keep the data on the GPU, or copy once after the loop.', y.name)
       ELSE 'Remove per-step .item()/.cpu() (log every N steps, accumulate on the GPU), use non_blocking=True copies, and find the remaining syncs with torch.cuda.set_sync_debug_mode("warn").' END,
  printf('Up to %s (%.1f%% of the job step): the time operators block the host while the GPU is idle.', profdb_fmt_ns(cl.op_sync), 100.0 * cl.op_sync / t.js),
  'Re-profile: sync_sum.gpu_idle_pct under 1%.',
  0, round(100.0 * cl.op_sync / t.js, 2), cl.op_sync, NULL, s.top_calls,
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js, 'blocked_ns', s.sync, 'blocked_gpu_idle_ns', s.idle,
      'op_sync_gpu_idle_ns', CAST(round(cl.op_sync) AS INTEGER),
      'top_call', y.name, 'top_call_gpu_idle_ns', y.idle))
FROM sync_m s LEFT JOIN sync_top y ON 1, time_m t, floor_m f, claim_m cl, autotune_m au
WHERE t.wall > 0 AND cl.op_sync >= f.min_pct / 100 * t.js AND cl.op_sync >= f.min_ns
UNION ALL
-- 4. Many short kernels with an idle GPU: launch-bound.  Fusion and CUDA
-- graphs remove launch calls: they save at most the CPU time in
-- steady-state launch calls (each counted once; cold-start calls, one-time
-- module loading, left out: cold_start), and no more than the GPU idle
-- time that the calls and ranges of the other owners leave (launch_claim:
-- fusion removes no sync wait nor data loading); it fires when the GPU
-- idles over 20% of the time outside them.  Steps that already replay CUDA
-- graphs are told to capture what is still launched outside them.
SELECT round(100.0 * lc.ns / t.js, 1),
  'launch_bound', 'medium',
  printf('%.0f%% of kernels run under 10 us while the GPU idles %.0f%%',
    100.0 * g.short_kernels / g.kernels, 100.0 * (t.wall - t.busy) / t.wall),
  printf('%d of %d kernels are shorter than 10 us; %d launch calls take %s of CPU time (launch_overhead)%s.',
    g.short_kernels, g.kernels, l.calls, profdb_fmt_ns(l.launch_ns),
    CASE WHEN l.cold_calls > 0 THEN printf('; %d of them are cold-start calls (the first launch of a kernel, over 1 ms and 100x the median launch: cold_start) taking %s, left out: the other %d take %s',
      l.cold_calls, profdb_fmt_ns(l.cold_ns), l.calls - l.cold_calls, profdb_fmt_ns(l.steady_ns)) ELSE '' END),
  'Kernel launch overhead dominates: the work is split into many tiny kernels.',
  CASE WHEN gr.calls > 0 THEN 'Fuse operations (torch.compile) and increase the work per kernel (larger batch); the steps already replay CUDA graphs, so capture the kernels still launched one by one outside them (launch_overhead).'
       ELSE 'Fuse operations (torch.compile), use CUDA graphs (torch.compile mode="reduce-overhead" or torch.cuda.graphs) for repeated steps, and increase the work per kernel (larger batch).' END,
  printf('Up to %s (%.0f%% of the job step): the steady-state launch calls'' CPU time, bounded by the GPU idle time outside the calls other findings own.',
    profdb_fmt_ns(lc.ns),
    100.0 * lc.ns / t.js),
  'Re-profile: launch_overhead.short_kernel_pct and kernels per step down, step_time_sum.mean_gpu_idle_pct down.',
  0, round(100.0 * lc.ns / t.js, 2),
  lc.ns, NULL,
  (SELECT json_group_array(json_object('kernel', name, 'short_instances', short)) FROM (
     SELECT name, short FROM kernel_top WHERE kind = 'kernel' AND short > 0
     ORDER BY short DESC, name LIMIT 3)),
  json_object('sections', json_array('launch_overhead', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js, 'gpu_busy_ns', t.busy, 'kernels', g.kernels,
      'short_kernels', g.short_kernels, 'launch_call_ns', l.launch_ns,
      'cold_start_call_ns', l.cold_ns, 'cold_start_idle_ns', CAST(round(cm.idle_ns) AS INTEGER),
      'idle_outside_other_owners_ns', CAST(round(lc.idle_left) AS INTEGER),
      'graph_launches', gr.calls))
FROM gpu_m g, time_m t, launch_m l, cold_m cm, graph_m gr, launch_claim lc
WHERE t.wall > 0 AND lc.ns > 0
UNION ALL
-- 4b. Cold start: the analysed time holds cold-start launch calls
-- (lib/37_launch.sql), one-time start-up (lazy module loading on a
-- kernel's first launch) that a longer run pays once.  It saves no step
-- time (expected_saving 0): it says the profile over-states the step by
-- that much, and how to profile the steady state.  Sorted by the share of
-- the job step those calls take.
SELECT round(min(100.0 * cm.call_ns / t.js, 100), 1), 'cold_start', 'high',
  printf('This profile is a cold start: %d first kernel launch(es) per rank take %.0f%% of the analysed time (%s per rank step)',
    cm.calls, 100.0 * cm.call_ns / t.wall, profdb_fmt_ns(cm.call_ns)),
  printf('%d launch call(s) per rank that are the first launch of their kernel take %s per rank step (%s), each over 1 ms and over 100x the median launch call (%s); the largest takes %s; the GPU idles %s per rank step during them (launch_overhead).',
    cm.calls, profdb_fmt_ns(cm.call_ns),
    CASE WHEN t.steps > 0 THEN j.per ELSE 'the whole trace: no ProfilerStep ranges, start-up included' END,
    profdb_fmt_ns(cm.median_ns), profdb_fmt_ns(cm.largest_ns),
    profdb_fmt_ns(cm.idle_ns)),
  'The profiled window starts with the process: CUDA loads each kernel''s module on its first launch (lazy loading, CUDA_MODULE_LOADING=LAZY, the default since CUDA 11.7), and cuDNN/cuBLAS initialize; a long run pays this once, not per step.',
  'Profile the steady state: torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)) with prof.step() every iteration, or run a few iterations before profiling; CUDA_MODULE_LOADING=EAGER moves the loading to start-up.',
  printf('None per step: %s of one-time start-up leaves the measured time; the other findings then show the steady state.',
    profdb_fmt_ns(cm.call_ns)),
  'Re-profile after warm-up: no cold_start finding; launch_overhead without calls over 1 ms.',
  0, 0, 0, NULL,
  (SELECT json_group_array(json_object('kernel', name, 'launch_ns', dur)) FROM (
     SELECT n.value AS name, c.dur FROM report_cold_launch c JOIN _string n ON n.id = c.name_id
     WHERE EXISTS (SELECT 1 FROM report_span s WHERE s.trace_id = c.trace_id
                   AND c.ts < s.end_ts AND c.ts + c.dur > s.ts)
     ORDER BY c.dur DESC, name LIMIT 3)),
  json_object('sections', json_array('launch_overhead', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js,
      'cold_start_calls', cm.calls, 'cold_start_call_ns', CAST(round(cm.call_ns) AS INTEGER),
      'cold_start_idle_ns', CAST(round(cm.idle_ns) AS INTEGER), 'largest_call_ns', cm.largest_ns,
      'median_launch_ns', cm.median_ns))
FROM cold_m cm, time_m t, floor_m f, job_w j
WHERE cm.calls > 0 AND t.wall > 0 AND t.js > 0
  AND cm.call_ns >= f.min_pct / 100 * t.js AND cm.call_ns >= f.min_ns
UNION ALL
-- 4c. One-time set-up calls (lib/38_claim.sql): the first cudaFree
-- (context creation), the first events and streams, module loading.  Like
-- cold_start it saves no step time (expected_saving 0): the profile
-- holds start-up; it says how to profile the steady state.  Sorted by the
-- share of the job step the GPU idles during them.
SELECT round(min(100.0 * cl.startup / t.js, 100), 1), 'startup_calls', 'high',
  printf('This profile includes start-up: one-time set-up calls leave the GPU idle %.0f%% of the analysed time (%s per rank step)',
    100.0 * cl.startup / t.wall, profdb_fmt_ns(cl.startup)),
  printf('Allocator and set-up calls that run once (the first cudaFree / hipFree creates the context; events, streams and modules are created once; cuDNN / MIOpen autotuning synchronizes inside convolutions once per new input shape; each over 1 ms and 100x the median call of its name, or a name that does not recur through the analysed steps: in under half of them or not in the later half; without steps, not in each of the last three tenths of the trace) leave the GPU idle %s per rank step (%s): %s.',
    profdb_fmt_ns(cl.startup),
    CASE WHEN t.steps > 0 THEN j.per ELSE 'the whole trace: no ProfilerStep ranges, start-up included' END,
    (SELECT group_concat(printf('%s %d call(s), %s', name, CAST(round(calls) AS INTEGER), profdb_fmt_ns(call_ns)), '; ')
     FROM (SELECT * FROM setup_m WHERE NOT repeated ORDER BY autotune DESC, call_ns DESC, name LIMIT 3))),
  'The profiled window starts with the process: CUDA/HIP creates its context, events and streams, PyTorch''s caching allocator reserves its first memory, and with torch.backends.cudnn.benchmark cuDNN (MIOpen: its find mode) times every convolution algorithm on each new input shape, once; a long run pays this once, not per step.',
  'Profile the steady state: torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)) with prof.step() every iteration, or run a few iterations before profiling.',
  printf('None per step: %s of one-time set-up leaves the measured time; the other findings then show the steady state.',
    profdb_fmt_ns(cl.startup)),
  'Re-profile after warm-up: no startup_calls finding; sync_sum without cudaFree / hipFree over 1 ms.',
  0, 0, 0, NULL,
  (SELECT json_group_array(json_object('call', name, 'calls', CAST(round(calls) AS INTEGER), 'call_ns', CAST(round(call_ns) AS INTEGER)))
   FROM (SELECT * FROM setup_m WHERE NOT repeated ORDER BY autotune DESC, call_ns DESC, name LIMIT 3)),
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js,
      'startup_idle_ns', CAST(round(cl.startup) AS INTEGER)))
FROM claim_m cl, time_m t, floor_m f, job_w j
WHERE t.wall > 0 AND t.js > 0 AND cl.startup >= f.min_pct / 100 * t.js AND cl.startup >= f.min_ns
UNION ALL
-- 4d. Repeated allocator (and set-up) calls in the steady state
-- (lib/38_claim.sql): PyTorch's caching allocator keeps freed memory for
-- reuse, so steady-state cudaMalloc / cudaFree calls mean it is bypassed
-- (PYTORCH_NO_CUDA_MEMORY_CACHING set, torch.cuda.empty_cache() in the
-- loop, a library allocating its own workspace).  cudaFree also
-- synchronizes the device.  Removing them saves at most the GPU idle time
-- during them.
SELECT round(100.0 * cl.alloc / t.js, 1), 'allocator_calls',
  CASE WHEN cl.alloc > 0.1 * t.wall THEN 'high' ELSE 'medium' END,
  printf('Repeated allocator calls leave the GPU idle %.1f%% of the job step', 100.0 * cl.alloc / t.wall),
  printf('Allocator and set-up calls repeated in the analysed time (%s) leave the GPU idle %s of %s per rank step: %s%s.',
    CASE WHEN t.steps > 0 THEN j.per ELSE 'the whole trace: no ProfilerStep ranges' END,
    profdb_fmt_ns(cl.alloc), profdb_fmt_ns(t.wall),
    (SELECT group_concat(printf('%s %d call(s) per rank, %s per rank step', name, CAST(round(calls) AS INTEGER), profdb_fmt_ns(call_ns)), '; ')
     FROM (SELECT * FROM setup_m WHERE repeated AND NOT autotune ORDER BY call_ns DESC, name LIMIT 3)),
    coalesce((SELECT '; made inside ' || group_concat(printf('%s (%d)', op, calls), ', ') FROM setup_op), '')),
  'Memory is allocated and freed with the device allocator every time instead of being reused: PyTorch''s caching allocator is bypassed (PYTORCH_NO_CUDA_MEMORY_CACHING=1 makes every tensor free a cudaFree / hipFree; torch.cuda.empty_cache() in the loop returns the cache), or a library (cuDNN / MIOpen workspace, a custom extension) allocates outside it. Each cudaFree / hipFree also synchronizes the device.',
  'Check that PYTORCH_NO_CUDA_MEMORY_CACHING is unset and torch.cuda.empty_cache() is not called in the loop; if the calls come from a library inside an operator (subjects, the operators above), give it memory from PyTorch (a cached workspace) or keep its allocations after warm-up (for MIOpen / cuDNN autotuning, torch.backends.cudnn.benchmark with fixed shapes, MIOPEN_FIND_MODE=FAST); create events and streams once, outside the loop.',
  printf('Up to %s (%.1f%% of the job step): the GPU idle time during the repeated calls.', profdb_fmt_ns(cl.alloc), 100.0 * cl.alloc / t.js),
  'Re-profile: sync_sum and launch_overhead without per-step cudaMalloc / cudaFree (hipMalloc / hipFree).',
  0, round(100.0 * cl.alloc / t.js, 2), cl.alloc, NULL,
  (SELECT json_group_array(json_object('call', name, 'calls', CAST(round(calls) AS INTEGER), 'call_ns', CAST(round(call_ns) AS INTEGER)))
   FROM (SELECT * FROM setup_m WHERE repeated AND NOT autotune ORDER BY call_ns DESC, name LIMIT 3)),
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js,
      'allocator_idle_ns', CAST(round(cl.alloc) AS INTEGER)))
FROM claim_m cl, time_m t, floor_m f, job_w j
WHERE t.wall > 0 AND t.js > 0 AND cl.alloc >= f.min_pct / 100 * t.js AND cl.alloc >= f.min_ns
UNION ALL
-- 4e. The host blocks while the GPU stays idle (lib/38_claim.sql,
-- 'outside'): the wait is for work this trace does not hold, so no
-- change to the profiled code is known to save it (expected_saving 0).
SELECT round(min(100.0 * cl.outside / t.js, 100), 1), 'wait_outside_trace', 'medium',
  printf('The GPU waits on work outside this trace for %.0f%% of the analysed time', 100.0 * cl.outside / t.wall),
  printf('Host-blocking calls wait %s per rank step (%s) while no GPU work of the process runs (over 1 ms and over 90%% of each call): %s.',
    profdb_fmt_ns(cl.outside),
    CASE WHEN t.steps > 0 THEN j.per ELSE 'the whole trace: no ProfilerStep ranges' END,
    (SELECT group_concat(printf('%s of %s', name, profdb_fmt_ns(b - a)), '; ')
     FROM (SELECT name, a, b FROM report_sync_class WHERE class = 'outside' ORDER BY b - a DESC, name LIMIT 3))),
  'The blocked call waits for GPU work the trace does not show: its stream waits for an event recorded by work outside the profiled window or process (another process or thread not traced, a producer that ran before the window), or the GPU records were lost.',
  'The GPU waits on work outside this trace: profile a longer window that holds the producer (or profile the producing process / thread), then act on what it shows.',
  'None promised: the cause is not in this trace.',
  'Re-profile with the producer in the window: no wait_outside_trace finding.',
  0, 0, 0, NULL,
  (SELECT json_group_array(json_object('call', c.name, 'source', y.source, 'blocked_ns', c.b - c.a))
   FROM (SELECT * FROM report_sync_class WHERE class = 'outside' ORDER BY b - a DESC, name LIMIT 3) c
   LEFT JOIN report_sync_sourced y USING (event_id)),
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js,
      'outside_idle_ns', CAST(round(cl.outside) AS INTEGER)))
FROM claim_m cl, time_m t, floor_m f, job_w j
WHERE t.wall > 0 AND t.js > 0 AND cl.outside >= f.min_pct / 100 * t.js AND cl.outside >= f.min_ns
UNION ALL
-- 4f. Explicit synchronize calls outside any operator (lib/38_claim.sql,
-- 'explicit'): a torch.cuda.synchronize() / event.synchronize() in the
-- loop, often the benchmark harness's.  Removing them saves at most the
-- GPU idle time during them.
SELECT round(100.0 * cl.explicit / t.js, 1), 'explicit_sync', 'medium',
  printf('Explicit synchronize calls leave the GPU idle %.1f%% of the job step', 100.0 * cl.explicit / t.wall),
  printf('Synchronize calls outside any operator (%s) leave the GPU idle %s of %s per rank step.',
    (SELECT group_concat(printf('%s x%d', name, n), ', ') FROM (
       SELECT name, count(DISTINCT event_id) AS n FROM report_sync_class WHERE class = 'explicit'
       GROUP BY name ORDER BY n DESC, name LIMIT 3)),
    profdb_fmt_ns(cl.explicit), profdb_fmt_ns(t.wall)),
  'An explicit synchronize (e.g. the benchmark harness''s torch.cuda.synchronize(), or event.synchronize()) waits for all queued GPU work, so the CPU cannot queue the next work ahead; no operator of the model makes it.',
  'An explicit synchronize (e.g. the benchmark harness''s torch.cuda.synchronize()): remove it from the timed loop, or ignore this time if it is only the harness measuring the step (subjects: where it is called).',
  printf('Up to %s (%.1f%% of the job step): the GPU idle time during those calls.', profdb_fmt_ns(cl.explicit), 100.0 * cl.explicit / t.js),
  'Re-profile: sync_sum without cudaDeviceSynchronize / hipDeviceSynchronize in the steps.',
  0, round(100.0 * cl.explicit / t.js, 2), cl.explicit, NULL,
  -- subjects: the three (source, call) pairs blocked longest over the
  -- analysed spans, ties by source, then call (the total only ranks them:
  -- it adds ranks and steps, so it is no figure of the finding)
  (SELECT json_group_array(json_object('source', source, 'call', name))
   FROM (SELECT coalesce(y.source, '(no Python stack)') AS source, c.name, sum(c.b - c.a) AS ns
         FROM report_sync_class c LEFT JOIN report_sync_sourced y USING (event_id)
         WHERE c.class = 'explicit' GROUP BY 1, 2 ORDER BY ns DESC, source, c.name LIMIT 3)),
  json_object('sections', json_array('sync_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js,
      'explicit_sync_idle_ns', CAST(round(cl.explicit) AS INTEGER)))
FROM claim_m cl, time_m t, floor_m f
WHERE t.wall > 0 AND t.js > 0 AND cl.explicit >= f.min_pct / 100 * t.js AND cl.explicit >= f.min_ns
UNION ALL
-- 5. One kind of GPU work dominates (dom_m above): GEMMs are bounded by
-- the device's peak where shapes allow, and advised by the precision
-- their kernels run in (and an older-generation kernel is named); other
-- categories: a 2x faster implementation saves at most half their time.
-- With the GPU idle over 10% of the step the bound is the critical path's
-- share (crit_m); the finding then fires when the unbounded saving passes
-- the floor, to say that faster kernels save little (its own saving may
-- be under the floor: it sorts last); over half the step, the host sets
-- the step (host_bound) and the finding says so.
SELECT round(100.0 * c.saving / t.js, 1), 'dominant_category',
  CASE WHEN c.category = 'GEMM' AND NOT c.shaped THEN 'low' WHEN c.host_bound THEN 'low'
       WHEN c.category IN ('GEMM', 'Attention', 'Elementwise', 'Convolution') THEN 'medium' ELSE 'low' END,
  printf('%s kernels take %.0f%% of GPU time%s', c.category, 100.0 * c.dur / g.gpu_total,
    CASE WHEN c.host_bound THEN printf(', but the GPU idles %.0f%% of the step: faster kernels save little', 100.0 * (t.wall - t.busy) / t.wall) ELSE '' END),
  printf('%s: %s of %s of GPU activity (kernel_category_sum), in %s of analysed time.%s', c.category,
    profdb_fmt_ns(c.dur), profdb_fmt_ns(g.gpu_total), profdb_fmt_ns(t.wall),
    CASE WHEN c.category <> 'GEMM' THEN ''
      ELSE printf(' %.0f%% of it in %s kernels (from their names)%s.', 100.0 * c.precision_share, c.precision,
        CASE WHEN c.shaped THEN printf('; where shapes were recorded they reach %.0f%% of the %s peak (gemm_efficiency)%s', c.peak_pct, c.peak_device,
               CASE WHEN c.peak_assumed THEN printf(' - the model is assumed: the GPU work ran on a device the trace''s deviceProperties do not list, and they list only %s', c.peak_device) ELSE '' END)
             WHEN c.ev_shaped THEN printf('; the device''s peak is unknown (its model is not in deviceProperties or not in the peak table): where shapes were recorded the fastest shape reaches %.1f TFLOP/s (gemm_efficiency)', c.ev_best_tflops)
             ELSE '' END) END)
    || CASE WHEN c.host_bound THEN printf(' The GPU is idle %.0f%% of the rank step: the host sets the step, and only %s of the %s time per rank step runs while something waits for it (a host-blocking call, or the step''s GPU work past its CPU range).',
         100.0 * (t.wall - t.busy) / t.wall, profdb_fmt_ns(c.crit), c.category)
       WHEN c.crit_bound THEN printf(' The GPU is idle %.0f%% of the rank step, so a faster kernel shortens the step only where something waits for it (a host-blocking call, or the step''s GPU work past its CPU range): %s of the %s time per rank step (%.0f%%).',
         100.0 * (t.wall - t.busy) / t.wall, profdb_fmt_ns(c.crit), c.category, 100.0 * min(1.0, c.crit / max(c.dur, 1))) ELSE '' END
    || CASE WHEN c.category = 'Convolution' AND c.transpose_ns >= 0.1 * c.dur
         THEN printf(' %.0f%% of it (%s) is layout transposes (batched_transpose / nchwToNhwc kernels) between NCHW tensors and NHWC convolution kernels.', 100.0 * c.transpose_ns / c.dur, profdb_fmt_ns(c.transpose_ns)) ELSE '' END,
  CASE WHEN c.host_bound
         THEN printf('The host, not the GPU, sets the step: the GPU waits for the CPU to launch work %.0f%% of the time (gpu_idle), so how fast the %s kernels run barely changes the step.', 100.0 * (t.wall - t.busy) / t.wall, c.category)
    WHEN c.category = 'GEMM' AND c.shaped AND c.peak_pct >= 60
         THEN printf('The GEMMs already run at %.0f%% of the device''s peak in %s: they are near their limit, so gains come from doing fewer or smaller ones, not from faster kernels.', c.peak_pct, c.precision)
    ELSE CASE c.category
    WHEN 'GEMM' THEN 'Matrix multiplies dominate: the model is compute-bound in GEMMs, so gains come from doing them faster or doing fewer.'
    WHEN 'Attention' THEN 'Attention dominates: long sequences or an attention implementation without fused kernels.'
    WHEN 'Convolution' THEN CASE WHEN c.transpose_ns >= 0.1 * c.dur
      THEN 'Convolutions dominate, and the model''s tensors are NCHW while the convolution kernels run NHWC: every convolution transposes its inputs and outputs.'
      ELSE 'Convolutions dominate: layout conversions or untuned algorithms can cost a large factor.' END
    WHEN 'Elementwise' THEN 'Memory-bound elementwise kernels dominate: the work is split into many unfused passes over memory.'
    WHEN 'Normalization' THEN 'Normalization kernels dominate: they are memory-bound and usually fusable.'
    ELSE 'This category is where most GPU time goes; it is the first place to optimize.' END END,
  CASE WHEN c.host_bound THEN 'First keep the GPU busy (gpu_idle, data_loading, launch_bound, synchronization: input pipeline, fewer and larger kernels, CUDA graphs, no host syncs); only then do faster kernels shorten the step. For the kernels themselves: ' ELSE '' END
  || CASE WHEN c.category = 'GEMM' THEN
    CASE WHEN c.old_name IS NOT NULL AND c.old_share >= 0.2
      THEN printf('%.0f%% of GEMM time runs in kernels built for an older GPU than this %s (sm%d): the largest is %s (sm%d). cuBLAS falls back to them for shapes its newer kernels do not take, or the library that launches them was built without sm%d: update PyTorch / cuBLAS (or rebuild that library for sm%d), keep dimensions multiples of 16, and try torch.compile(mode="max-autotune"). ',
        100.0 * c.old_share, c.device_name, c.cc, c.old_name, c.old_arch, c.cc, c.cc) ELSE '' END
    || CASE c.precision
      WHEN 'fp32' THEN 'These GEMMs run in fp32 on CUDA cores: use bf16/fp16 autocast (torch.autocast("cuda", dtype=torch.bfloat16)), or TF32 (torch.set_float32_matmul_precision("high")) on Ampere or newer; keep matrix dimensions multiples of 8/16.'
      WHEN 'tf32' THEN 'These GEMMs run in TF32 on tensor cores: bf16/fp16 autocast doubles the tensor-core peak; keep matrix dimensions multiples of 8/16.'
      WHEN 'fp16/bf16' THEN 'These GEMMs already run on tensor cores in fp16/bf16 (autocast changes nothing): check the top kernels for small or odd shapes (dimensions multiples of 16, batch many small GEMMs or use grouped GEMMs), fuse their epilogues (torch.compile), and on Hopper or newer consider FP8 (Transformer Engine, torchao float8).'
      WHEN 'fp8' THEN 'These GEMMs already run in FP8: check the top kernels for small or odd shapes and fuse the scaling and epilogues; NVFP4 / MXFP4 only on Blackwell, where accuracy allows.'
      WHEN 'fp4' THEN 'These GEMMs already run in 4-bit floating point (NVFP4 / MXFP4), the lowest precision tensor cores offer: gains come from their shapes (tile-friendly dimensions, grouped GEMMs), fusing quantization and epilogues, or doing fewer GEMMs.'
      ELSE 'Check the top kernels: their precision (fp32 GEMMs gain from bf16/fp16 autocast or TF32), and small or odd shapes (keep dimensions multiples of 8/16).' END
  ELSE CASE c.category
    WHEN 'Attention' THEN 'Use scaled_dot_product_attention / FlashAttention kernels, and consider shorter or packed sequences.'
    WHEN 'Convolution' THEN CASE WHEN c.transpose_ns >= 0.1 * c.dur
      THEN printf('Convert the model and its inputs to channels_last: model = model.to(memory_format=torch.channels_last) and x = x.to(memory_format=torch.channels_last) for each input; that removes the layout transposes (%s per rank step). Then torch.backends.cudnn.benchmark=True.', profdb_fmt_ns(c.transpose_ns))
      ELSE 'Use channels_last memory format, torch.backends.cudnn.benchmark=True, and autocast.' END
    WHEN 'Elementwise' THEN 'Fuse elementwise chains with torch.compile (or fused kernels such as Liger), and avoid needless copies and casts.'
    WHEN 'Normalization' THEN 'Use fused normalization kernels or torch.compile.'
    ELSE 'Open the top kernels of this category and check their shapes and implementations.' END END,
  CASE WHEN c.category = 'GEMM' AND c.shaped
         THEN printf('Up to %s (%.0f%% of the job step): the GEMMs'' time above what their FLOPs take at 60%% of the %s''s dense peak (for fp32 calls its bf16 peak), the level tuned large GEMMs reach; from the recorded shapes%s.',
           profdb_fmt_ns(c.saving), 100.0 * c.saving / t.js, c.peak_device,
           CASE WHEN c.peak_assumed THEN printf('; assumed: the device is the %s, the one model the trace lists', c.peak_device) ELSE '' END)
       WHEN c.category = 'GEMM' AND c.ev_shaped
         THEN printf('Up to %s (%.0f%% of the job step): the GEMMs'' time above what their FLOPs take at %.1f TFLOP/s, the rate of this trace''s fastest GEMM shape; assumed: the device''s peak is unknown, so what this device is seen to reach stands in for it.',
           profdb_fmt_ns(c.saving), 100.0 * c.saving / t.js, c.ev_best_tflops)
       WHEN c.category = 'Convolution' AND c.transpose_ns >= 0.1 * c.dur AND NOT c.host_bound
         THEN printf('Up to %s (%.0f%% of the job step): channels_last removes the %s of layout transposes; beyond them, a 2x faster Convolution (cudnn.benchmark picking faster algorithms) is a guess.',
           profdb_fmt_ns(c.saving), 100.0 * c.saving / t.js, profdb_fmt_ns(c.transpose_ns))
       ELSE printf('A 2x faster %s would save at most %s (%.0f%% of the job step).%s', c.category,
         profdb_fmt_ns(c.saving), 100.0 * c.saving / t.js,
         CASE WHEN c.category = 'GEMM' THEN ' A guess: no recorded shapes tell how fast these GEMMs already are (record_shapes=True, gemm_efficiency).' ELSE '' END) END
    || CASE WHEN c.crit_bound AND (c.host_bound OR c.crit < c.dur) THEN printf(' Bounded by the critical path: the GPU idles %.0f%% of the rank step, so a faster %s saves the same share of only its %s per rank step that something waits for, not of all its %s%s.',
         100.0 * (t.wall - t.busy) / t.wall, c.category, profdb_fmt_ns(c.crit), profdb_fmt_ns(c.dur),
         iif(c.host_bound, '; the host-side findings (gpu_idle, data_loading, launch_bound, synchronization) come first', '')) ELSE '' END,
  printf('Re-profile: the %s share in kernel_category_sum drops, and step time with it.', c.category),
  0, round(min(100.0 * c.saving / t.js, 100), 2), c.saving, NULL,
  (SELECT json_group_array(json_object('kernel', name, 'dur_ns', dur)) FROM (
     SELECT name, sum(dur) AS dur, coalesce(name = c.old_name, 0) AS older
     FROM kernel_top WHERE category = c.category
     GROUP BY name ORDER BY older DESC, dur DESC, name LIMIT 3)),
  json_object('sections', json_array('kernel_category_sum', 'gpu_kernel_sum', 'gemm_efficiency'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js, 'category', c.category, 'category_ns', c.dur,
      'gpu_total_ns', g.gpu_total, 'precision', iif(c.category = 'GEMM', c.precision, NULL),
      'shaped_ns', iif(c.category = 'GEMM', c.covered_ns, NULL),
      'peak_pct', iif(c.category = 'GEMM', round(c.peak_pct, 1), NULL),
      'older_kernel', iif(c.category = 'GEMM' AND c.old_share >= 0.2, c.old_name, NULL),
      'peak_device', iif(c.category = 'GEMM' AND c.shaped, c.peak_device, NULL),
      'peak_model_assumed', iif(c.category = 'GEMM' AND c.shaped, c.peak_assumed, NULL),
      'evidence_tflops', iif(c.category = 'GEMM' AND c.ev_shaped, round(c.ev_best_tflops, 2), NULL),
      'gpu_idle_pct', round(100.0 * (t.wall - t.busy) / t.wall, 1),
      'critical_path_ns', iif(c.crit_bound, CAST(round(c.crit) AS INTEGER), NULL),
      'transpose_ns', iif(c.category = 'Convolution', CAST(round(c.transpose_ns) AS INTEGER), NULL)))
FROM dom_m c, gpu_m g, time_m t, floor_m f
WHERE g.gpu_total > 0 AND t.wall > 0 AND c.dur > 0.3 * g.gpu_total
  AND c.category NOT IN ('NCCL/communication', 'Memcpy', 'Other')
  AND (CASE WHEN c.crit_bound THEN c.saving0 ELSE c.saving END) >= f.min_pct / 100 * t.js
  AND (CASE WHEN c.crit_bound THEN c.saving0 ELSE c.saving END) >= f.min_ns
UNION ALL
-- 6. Host-device copies: at most the copy time with no kernel running
-- (step_time memcpy_ns); copies behind compute cost no step time.
SELECT round(100.0 * t.memcpy_exposed / t.js, 1), 'memcpy', 'medium',
  printf('Memory copies take %.0f%% of GPU time, %.0f%% of the job step with no kernel running',
    100.0 * g.memcpy / g.gpu_total, 100.0 * t.memcpy_exposed / t.wall),
  printf('Copies: %s of %s of GPU activity (see memcpy_sum for directions and bandwidth); %s of the %s analysed time had copies and no kernel running (step_time_sum).',
    profdb_fmt_ns(g.memcpy), profdb_fmt_ns(g.gpu_total), profdb_fmt_ns(t.memcpy_exposed), profdb_fmt_ns(t.wall)),
  CASE WHEN c.dtod >= 0.5 * c.total THEN printf('Most copy time (%.0f%%) is device-to-device: tensors copied on the GPU (.contiguous(), clone, torch.cat, dtype or memory-format changes), not host transfers.', 100.0 * c.dtod / c.total)
    WHEN c.pageable >= 0.5 * (c.total - c.dtod) THEN 'Data moves between host and device every step from pageable memory (offloading, inputs, or results copied back).'
    ELSE 'Data moves between host and device every step; the host side is already pinned memory, yet nothing runs on the GPU beside the copies.' END,
  CASE WHEN c.dtod >= 0.5 * c.total THEN 'Find the operators that launch these copies (op_gpu_sum, memcpy_sum) and avoid them: keep views instead of .contiguous() copies, one memory format end to end (channels_last), in-place ops, preallocated outputs instead of torch.cat. Pinning host memory does not help device-to-device copies.'
    WHEN c.pageable >= 0.5 * (c.total - c.dtod) THEN 'Keep tensors on the device, pin host memory (pin_memory=True) and copy with non_blocking=True, and batch small copies.'
    ELSE 'Overlap the copies with compute: issue them earlier on a side stream (prefetch the next batch while this one runs), or keep the data on the device between steps; batch small copies.' END,
  printf('Up to %s (%.0f%% of the job step): the copy time not hidden behind kernels.', profdb_fmt_ns(t.memcpy_exposed), 100.0 * t.memcpy_exposed / t.js),
  'Re-profile: step_time_sum memcpy share down, memcpy_sum bandwidth (gbps) up for pinned copies.',
  0, round(100.0 * t.memcpy_exposed / t.js, 2), t.memcpy_exposed, NULL,
  (SELECT json_group_array(json_object('copy', name, 'dur_ns', dur)) FROM (
     SELECT name, sum(dur) AS dur FROM kernel_top WHERE kind = 'memcpy'
     GROUP BY name ORDER BY dur DESC, name LIMIT 3)),
  json_object('sections', json_array('memcpy_sum', 'step_time_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js, 'memcpy_ns', g.memcpy,
      'memcpy_exposed_ns', t.memcpy_exposed, 'gpu_total_ns', g.gpu_total,
      'dtod_copy_ns', c.dtod, 'pageable_copy_ns', c.pageable))
FROM gpu_m g, time_m t, floor_m f, copy_m c
WHERE g.gpu_total > 0 AND t.wall > 0 AND g.memcpy > 0.1 * g.gpu_total
  AND t.memcpy_exposed >= f.min_pct / 100 * t.js AND t.memcpy_exposed >= f.min_ns
UNION ALL
-- 7. Fill/zero kernels: at most their GPU time; with the GPU idle over
-- 10% of the step, their time on the critical path (crit_m.crit_fill, as
-- dominant_category), and the finding fires when their GPU time passes
-- the floor, to say so.
SELECT round(100.0 * x.saving / t.js, 1), 'fill_kernels', iif(x.host_bound, 'low', 'medium'),
  printf('Fill and zero kernels take %.0f%% of GPU time%s', 100.0 * g.fill / g.gpu_total,
    CASE WHEN x.host_bound THEN printf(', but the GPU idles %.0f%% of the step: removing them saves little', 100.0 * (t.wall - t.busy) / t.wall) ELSE '' END),
  printf('FillFunctor/zero kernels: %s of %s of GPU activity (fill_kernel_sum shows the launching ops and shapes), in %s of analysed time.%s',
    profdb_fmt_ns(g.fill), profdb_fmt_ns(g.gpu_total), profdb_fmt_ns(t.wall),
    CASE WHEN x.host_bound THEN printf(' The GPU is idle %.0f%% of the rank step: the host sets the step, and only %s of the fill kernels'' time per rank step runs while something waits for it (a host-blocking call, or the step''s GPU work past its CPU range).',
      100.0 * (t.wall - t.busy) / t.wall, profdb_fmt_ns(x.saving))
    WHEN x.crit_bound THEN printf(' The GPU is idle %.0f%% of the rank step, so removing them shortens the step only where something waits for them (a host-blocking call, or the step''s GPU work past its CPU range): %s of the fill kernels'' time per rank step.',
      100.0 * (t.wall - t.busy) / t.wall, profdb_fmt_ns(x.saving)) ELSE '' END),
  'Large tensors are allocated and zeroed every step (torch.zeros, zero_grad without set_to_none, padding buffers).',
  CASE WHEN x.host_bound THEN 'First keep the GPU busy (gpu_idle, data_loading, launch_bound, synchronization); the fills cost step time only where the host waits for them. ' ELSE '' END
  || 'Reuse buffers across steps, use torch.empty where the values are overwritten, and zero_grad(set_to_none=True).',
  printf('Up to %s (%.0f%% of the job step)%s.', profdb_fmt_ns(x.saving), 100.0 * x.saving / t.js,
    CASE WHEN x.host_bound OR (x.crit_bound AND x.saving < g.fill) THEN printf(': bounded by the critical path, the part of their %s per rank step that something waits for', profdb_fmt_ns(g.fill)) ELSE '' END),
  'Re-profile: fill_kernel_sum total_dur_ns down.',
  0, round(min(100.0 * x.saving / t.js, 100), 2), x.saving, NULL,
  (SELECT json_group_array(json_object('kernel', name, 'dur_ns', dur)) FROM (
     SELECT name, sum(dur) AS dur FROM kernel_top WHERE kind = 'kernel' AND is_fill
     GROUP BY name ORDER BY dur DESC, name LIMIT 3)),
  json_object('sections', json_array('fill_kernel_sum'),
    'figures', json_object('rank_step_ns', CAST(round(t.wall) AS INTEGER), 'job_step_ns', t.js, 'fill_ns', g.fill, 'gpu_total_ns', g.gpu_total,
      'critical_path_ns', iif(x.crit_bound, CAST(round(x.saving) AS INTEGER), NULL)))
FROM gpu_m g, time_m t, floor_m f,
  (SELECT t2.busy < 0.5 * t2.wall AS host_bound, t2.crit_bound,
     CASE WHEN t2.crit_bound THEN min(cm.crit_fill, g2.fill) ELSE g2.fill END AS saving
   FROM time_m t2, crit_m cm, gpu_m g2) x
WHERE g.gpu_total > 0 AND t.wall > 0 AND g.fill > 0.05 * g.gpu_total
  AND g.fill >= f.min_pct / 100 * t.js AND g.fill >= f.min_ns
UNION ALL
-- 8. Communication not hidden behind compute; the advice follows the
-- collective that takes most of the time.  Only transfer (after the last
-- peer arrived) that no compute overlaps is promised: overlap cannot hide
-- the waiting for late peers, which rule 9 (straggler) claims.
SELECT round(100.0 * c.hideable / t.js, 1), 'exposed_communication',
  CASE WHEN c.peers_missing > 0 THEN 'low' ELSE 'medium' END,
  printf('Communication transfer on the critical path: %.0f%% of the job step', 100.0 * c.exposed / t.js),
  printf('Per rank step (%s), collectives cover %s: %s waiting for the last peer to arrive (rank_sum, straggler), %s transfer%s, %s of the transfer overlapped with compute; %s exposed; most of the time in %s (communication).',
    j.per, profdb_fmt_ns(c.comm), profdb_fmt_ns(c.wait), profdb_fmt_ns(c.transfer),
    CASE WHEN c.unmatched > 0 THEN printf(' (%s of it in collectives whose peers are not loaded: waiting cannot be told from transfer there)', profdb_fmt_ns(c.unmatched)) ELSE '' END,
    profdb_fmt_ns(c.overlap), profdb_fmt_ns(c.exposed), c.top_name)
  || printf(' Compute kernels run %s per rank step, %s of it beside transfer already: %s is left to hide transfer behind.',
    profdb_fmt_ns(c.compute), profdb_fmt_ns(c.overlap), profdb_fmt_ns(max(c.compute - c.overlap, 0)))
  || CASE WHEN c.peers_missing > 0 THEN printf(' Only %d of the job''s %d ranks loaded: the other %d peer(s) are not, so waiting for them cannot be told from transfer (load every rank for the split).',
       c.world_size - c.peers_missing, c.world_size, c.peers_missing) ELSE '' END,
  CASE WHEN lower(c.top_name) GLOB '*alltoall*' OR lower(c.top_name) GLOB '*all_to_all*'
         OR lower(c.top_name) GLOB '*sendrecv*'
       THEN 'All-to-all exchanges (embedding or expert sharding) wait for every peer: imbalanced shards or a slow peer, with nothing scheduled behind them.'
       WHEN lower(c.top_name) GLOB '*allgather*' OR lower(c.top_name) GLOB '*reducescatter*'
       THEN 'Parameter all-gathers and gradient reduce-scatters (FSDP / ZeRO) run without compute behind them.'
       ELSE 'Gradient all-reduces wait instead of running behind the backward pass.' END,
  CASE WHEN lower(c.top_name) GLOB '*alltoall*' OR lower(c.top_name) GLOB '*all_to_all*'
         OR lower(c.top_name) GLOB '*sendrecv*'
       THEN 'Balance the shards across ranks (rank_sum), pipeline the exchange with compute (split the batch, overlap the next input''s all-to-all with this one''s compute), and check for a late rank.'
       WHEN lower(c.top_name) GLOB '*allgather*' OR lower(c.top_name) GLOB '*reducescatter*'
       THEN 'Enable FSDP forward/backward prefetch, tune the wrap granularity, and keep limit_all_gathers so compute overlaps the next gather.'
       ELSE 'Overlap the all-reduces with backward: tune DDP bucket_cap_mb, avoid synchronizing the stream between buckets, and check for a late rank.' END,
  printf('Up to %s per job step (%.0f%% of the job step): the transfer not overlapped with compute, %s, bounded by the compute time not already beside it, %s: overlap cannot hide more than the compute there is; the waiting is not counted here%s.',
    profdb_fmt_ns(c.hideable), 100.0 * c.hideable / t.js, profdb_fmt_ns(c.exposed),
    profdb_fmt_ns(max(c.compute - c.overlap, 0)),
    CASE WHEN c.peers_missing > 0 THEN printf(', but with %d peer(s) not loaded part of the transfer may be waiting', c.peers_missing) ELSE '' END),
  'Re-profile: communication.overlap_pct above 80%.',
  0, round(min(100.0 * c.hideable / t.js, 100), 2), c.hideable, NULL,
  (SELECT json_group_array(json_object('kernel', name, 'dur_ns', dur)) FROM (
     SELECT name, sum(dur) AS dur FROM kernel_top WHERE category = 'NCCL/communication'
     GROUP BY name ORDER BY dur DESC, name LIMIT 3)),
  json_object('sections', json_array('communication'),
    'figures', json_object('job_step_ns', t.js, 'comm_ns', c.comm, 'wait_ns', c.wait,
      'transfer_ns', c.transfer, 'unmatched_ns', c.unmatched, 'overlapped_ns', c.overlap,
      'exposed_ns', c.exposed, 'compute_ns', c.compute, 'hideable_ns', c.hideable,
      'peers_not_loaded', c.peers_missing))
FROM comm_m c, time_m t, floor_m f, job_w j
WHERE t.js > 0 AND c.comm > 0 AND c.exposed > 0.1 * t.js
  AND c.hideable >= f.min_pct / 100 * t.js AND c.hideable >= f.min_ns
UNION ALL
-- 9. Straggler ranks: late arrival at collectives (straggler_f above);
-- the saving is the wait of the ranks that were on time.
SELECT priority, id, confidence, title, observation, hypothesis, action, expected_impact,
  validation, needs_artifact, expected_saving_pct, expected_saving_ns, NULL, subjects, evidence
FROM straggler_f
UNION ALL
-- 10. OOMs recorded: a failure, not a saving.
SELECT 90.0, 'oom', 'high',
  printf('%d out-of-memory event(s) on device %d', m.ooms, m.device),
  printf('Snapshot %d records %d allocation failure(s) (mem_oom has their sizes and sources).', m.snapshot_id, m.ooms),
  'The peak demand exceeds what the device can provide, possibly worsened by fragmentation.',
  'Lower the peak (activation checkpointing, smaller micro-batches, freeing tensors earlier) and set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.',
  'Runs that do not fail.',
  'Record a new snapshot: no oom entries in mem_action_sum.',
  0, 0, NULL, NULL, json_array(json_object('snapshot', m.snapshot_id, 'device', m.device)),
  json_object('sections', json_array('mem_oom', 'mem_action_sum'), 'figures', json_object('ooms', m.ooms))
FROM mem_m m WHERE m.ooms > 0
UNION ALL
-- 11. Fragmentation at the peak (frag_m above): the saving is the free
-- space inside partly used segments at the peak, bounded by reserved -
-- requested there; whole free segments are cached, not fragmented, and
-- the end-of-run state does not matter for an OOM.  Low confidence when
-- segments overlap; not on expandable-segment snapshots (not modelled).
SELECT round(100.0 * m.bound / m.frag_reserved, 1), 'fragmentation',
  CASE WHEN m.overlaps > 0 THEN 'low' WHEN m.bound > 0.2 * m.frag_reserved THEN 'high' ELSE 'medium' END,
  printf('%.0f%% of the memory reserved at the peak is free space inside used segments (device %d)',
    100.0 * m.bound / m.frag_reserved, m.device),
  printf('At the allocation peak: %s reserved, %s requested; the %s difference is %s free inside segments that hold allocations, %s of rounding inside blocks, %s in segments holding nothing; expandable segments are %s (mem_fragmentation).%s',
    profdb_fmt_bytes(m.frag_reserved), profdb_fmt_bytes(m.frag_requested),
    profdb_fmt_bytes(m.frag_reserved - m.frag_requested), profdb_fmt_bytes(m.frag_external),
    profdb_fmt_bytes(m.frag_internal), profdb_fmt_bytes(m.frag_free_segments),
    CASE m.expandable_on WHEN 1 THEN 'on' WHEN 0 THEN 'off' ELSE 'not recorded' END,
    CASE WHEN m.overlaps > 0 THEN printf(' %d segment(s) overlap another one (import_stats snapshot_overlapping_segments): the snapshot is inconsistent and counts their bytes twice, so these figures are bounds.', m.overlaps)
         ELSE '' END),
  'Allocations of varying sizes leave free gaps inside segments that larger requests cannot use.',
  'Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (segments grow in place), or max_split_size_mb to limit splitting.',
  printf('Up to %s (%.1f%% of the memory reserved at the peak) returned to use: the free space inside used segments, at most reserved - requested at the peak.',
    profdb_fmt_bytes(m.bound), 100.0 * m.bound / m.frag_reserved),
  'New snapshot: mem_fragmentation.peak_external under 3% of peak_reserved.',
  0, round(100.0 * m.bound / m.frag_reserved, 2), NULL, m.bound,
  json_array(json_object('snapshot', m.snapshot_id, 'device', m.device)),
  json_object('sections', json_array('mem_fragmentation', 'mem_peak'),
    'figures', json_object('peak_reserved', m.frag_reserved, 'peak_requested', m.frag_requested,
      'peak_internal', m.frag_internal, 'peak_external', m.frag_external,
      'peak_free_segments', m.frag_free_segments, 'overlapping_segments', m.overlaps))
FROM frag_m m, floor_m f
WHERE m.frag_reserved > 0 AND m.segments > 10 AND NOT m.expandable
  AND m.bound > 0.03 * m.frag_reserved AND m.bound >= f.min_bytes
UNION ALL
-- 12. Little headroom on the device: a risk, not a saving.
SELECT CASE WHEN m.capacity - m.peak_reserved < 1073741824 THEN 60.0 ELSE 30.0 END, 'oom_risk',
  CASE WHEN m.capacity - m.peak_reserved < 1073741824 THEN 'high' ELSE 'medium' END,
  printf('Only %s of headroom on device %d', profdb_fmt_bytes(m.capacity - m.peak_reserved), m.device),
  printf('Peak reserved %s of %s device memory; peak allocated %s (requested sizes).', profdb_fmt_bytes(m.peak_reserved),
    profdb_fmt_bytes(m.capacity), profdb_fmt_bytes(m.peak_allocated)),
  'A longer sequence, a larger batch or more fragmentation will run out of memory.',
  'Lower the peak (checkpointing, smaller micro-batches) or the reserve (expandable_segments:True) before scaling up.',
  'Headroom for growth without OOMs.',
  'New snapshot: capacity - peak_reserved above 2 GiB.',
  0, 0, NULL, NULL, json_array(json_object('snapshot', m.snapshot_id, 'device', m.device)),
  json_object('sections', json_array('mem_fragmentation', 'mem_peak'),
    'figures', json_object('capacity', m.capacity, 'peak_reserved', m.peak_reserved))
FROM mem_m m WHERE m.capacity IS NOT NULL AND m.peak_reserved IS NOT NULL
  AND m.capacity - m.peak_reserved < 2147483648
UNION ALL
-- 13. One source holds much of the peak: freeing all of it earlier saves
-- at most its bytes.  A stack that creates parameters is not activations.
SELECT round(100.0 * s.bytes / max(s.peak_reserved, s.peak_allocated), 1), 'peak_source', 'low',
  printf('%s holds %.0f%% of the peak', s.source, 100.0 * s.bytes / s.peak_allocated),
  printf('%d allocation(s), %s of the %s peak (requested sizes) on device %d (mem_peak_sources).', s.n,
    profdb_fmt_bytes(s.bytes), profdb_fmt_bytes(s.peak_allocated), s.device),
  CASE WHEN s.init THEN 'This line creates model parameters or buffers (the stack passes through a module''s __init__ or weight initialisation): they live for the whole run.'
       ELSE 'This line creates the tensors that define the peak (activations saved for backward, a large buffer, or a cache).' END,
  CASE WHEN s.init THEN 'Shard the parameters (FSDP, ZeRO), keep them in lower precision, or offload them; activation checkpointing does not help here.'
       ELSE 'Check whether they must all be alive at once: activation checkpointing, freeing (del) earlier, smaller chunks, or lower precision.' END,
  printf('Up to %s off the peak.', profdb_fmt_bytes(s.bytes)),
  'New snapshot: mem_peak.peak_allocated down, this source smaller in mem_peak_sources.',
  0, round(min(100.0 * s.bytes / max(s.peak_reserved, s.peak_allocated), 100), 2), NULL, s.bytes,
  json_array(json_object('snapshot', s.snapshot_id, 'source', s.source, 'device', s.device)),
  json_object('sections', json_array('mem_peak_sources', 'mem_peak'),
    'figures', json_object('source_bytes', s.bytes, 'peak_allocated', s.peak_allocated,
      'peak_reserved', s.peak_reserved))
FROM top_source s, floor_m f WHERE s.peak_allocated > 0 AND s.bytes > 0.3 * s.peak_allocated
  AND s.bytes >= f.min_bytes
UNION ALL
-- 14. Allocation churn: allocator overhead, no bound in time or memory.
SELECT 0.5, 'allocation_churn', 'low',
  printf('%s allocations are made %d times', profdb_fmt_bytes(c.size), c.allocs),
  printf('%d allocations of %s: %s allocated in total (mem_churn has their sources).', c.allocs,
    profdb_fmt_bytes(c.size), profdb_fmt_bytes(c.churn)),
  'The same buffers are allocated and freed repeatedly; the caching allocator absorbs it, but it adds CPU overhead and fragmentation.',
  'Preallocate and reuse these buffers, or use out= variants and in-place operations.',
  'Less allocator overhead and fragmentation.',
  'New snapshot: mem_churn.allocs for this size down.',
  0, 0, NULL, NULL, json_array(json_object('snapshot', c.snapshot_id, 'size', c.size, 'device', c.device)),
  json_object('sections', json_array('mem_churn'),
    'figures', json_object('allocs', c.allocs, 'churn_bytes', c.churn, 'peak_allocated', m.peak_allocated))
FROM churn_m c, mem_m m
WHERE c.snapshot_id = m.snapshot_id AND c.device = m.device AND c.allocs >= 100
  AND c.churn > 10 * max(coalesce(m.peak_allocated, 0), 1)
UNION ALL
-- 14b. The heaviest GEMM / convolution / attention shape runs far below
-- the GPU's peak.  Saving bounded by bringing it to 60% of peak, a level
-- tuned large GEMMs reach; only its GPU time is promised, and with the
-- GPU idle over 10% of the step (crit_bound) only the share of its
-- kernel category's time on the critical path (crit_m.crit_op /
-- op_cat_ns, as dominant_category).  The finding fires when the unbounded
-- saving (s0) passes the floor, to say how little is left.
SELECT round(100.0 * x.saving / t.js, 1), 'low_gemm_efficiency', iif(x.share < 0.5, 'low', 'medium'),
  printf('%s%s runs at %.1f%% of the %s''s %s peak', m.name,
    CASE WHEN m.source IS NOT NULL THEN ' in ' || m.source ELSE '' END, m.peak_pct, m.device_name, m.dtype),
  printf('gemm_efficiency: the calls of %s with Input Dims %s take %s of GPU time (%.1f%% of all GPU work) at %.1f%% of the %s dense %s peak (%.0f TFLOP/s).',
    m.name, m.input_dims, profdb_fmt_ns(m.device_ns), 100.0 * m.device_ns / m.gpu_ns, m.peak_pct, m.device_name,
    m.dtype, m.peak_tflops)
    || CASE WHEN x.bounded THEN printf(' The GPU is idle %.0f%% of the rank step, so a faster kernel shortens the step only where something waits for it (a host-blocking call, or the step''s GPU work past its CPU range): %s of the %s kernels'' %s per rank step (%.0f%%).',
         100.0 * (t.wall - t.busy) / t.wall, profdb_fmt_ns(x.crit), x.category, profdb_fmt_ns(x.cat_ns), 100.0 * x.share) ELSE '' END,
  'The shapes are too small or badly aligned for the tensor cores (dimensions not multiples of 8/16), the kernel chosen is not the fastest one, or the operator runs in a slower dtype than it could.',
  CASE WHEN x.share < 0.5 THEN 'First keep the GPU busy (gpu_idle, data_loading, launch_bound, synchronization); only then do faster kernels shorten the step. For the kernels themselves: ' ELSE '' END
  || 'Pad the dimensions to multiples of 16 (64 for attention heads), use bf16/fp16 autocast, enable torch.backends.cuda.matmul.allow_tf32 for fp32, try torch.compile (mode="max-autotune") or a fused attention kernel; see op_shape_sum for the exact shapes.',
  CASE WHEN x.bounded AND x.share < 1
    THEN printf('Up to %s (%.1f%% of the job step): of the %s of GPU time it would save at 60%% of peak, the %.0f%% share of %s kernel time on the critical path.',
      profdb_fmt_ns(CAST(x.saving AS INTEGER)), 100.0 * x.saving / t.js, profdb_fmt_ns(CAST(x.s0 AS INTEGER)), 100.0 * x.share, x.category)
    ELSE printf('Up to %s of GPU time (%.1f%% of the job step) if it reached 60%% of peak; the step saves less where the GPU is not the bottleneck.',
      profdb_fmt_ns(CAST(x.saving AS INTEGER)), 100.0 * x.saving / t.js) END,
  printf('Re-profile: gemm_efficiency.peak_pct of %s above %.0f%%.', m.name, min(60, 2 * m.peak_pct)), 0,
  round(100.0 * x.saving / t.js, 2), CAST(x.saving AS INTEGER), NULL,
  json_array(CASE WHEN m.source IS NULL
    THEN json_object('operator', m.name, 'input_dims', m.input_dims, 'dtype', m.dtype)
    ELSE json_object('operator', m.name, 'input_dims', m.input_dims, 'dtype', m.dtype,
      'source', m.source) END),
  json_object('sections', json_array('gemm_efficiency', 'op_shape_sum'),
    'figures', json_object('device_ns', m.device_ns, 'peak_pct', round(m.peak_pct, 2),
      'peak_tflops', m.peak_tflops, 'device', m.device_name,
      'gpu_idle_pct', round(100.0 * (t.wall - t.busy) / t.wall, 1),
      'critical_path_ns', iif(x.bounded, CAST(round(x.crit) AS INTEGER), NULL),
      'category_ns', iif(x.bounded, CAST(round(x.cat_ns) AS INTEGER), NULL)))
FROM gemm_m m, time_m t, floor_m f,
  (SELECT s0, bounded, crit, cat_ns, category, iif(bounded, min(1.0, crit / cat_ns), 1.0) AS share,
     s0 * iif(bounded, min(1.0, crit / cat_ns), 1.0) AS saving
   FROM (SELECT m2.device_ns * (1 - m2.peak_pct / 60) AS s0, gc.category,
           t2.crit_bound AND coalesce(cm.op_cat_ns, 0) > 0 AS bounded,
           cm.crit_op AS crit, cm.op_cat_ns AS cat_ns
         FROM gemm_m m2, time_m t2, crit_m cm, gemm_cat gc)) x
WHERE t.wall > 0 AND m.peak_pct < 30 AND m.device_ns >= 0.05 * m.gpu_ns
  AND x.s0 >= f.min_ns AND 100.0 * x.s0 / t.js >= f.min_pct
UNION ALL
-- 15-21. Missing artifacts and options: they save nothing themselves.
-- A memory snapshot is asked for only when the trace used a CUDA/ROCm GPU.
SELECT 0.3, 'need_snapshot', 'high', 'A memory snapshot would show where GPU memory goes',
  'The database has a profiler trace with GPU work but no memory snapshot.',
  'Memory questions (peak, fragmentation, OOM risk) need the caching allocator''s snapshot.',
  'In the training process: torch.cuda.memory._record_memory_history(max_entries=100000); run a few steps; json.dump(torch.cuda.memory._snapshot(), open("memory_snapshot.json", "w")); then profdb load memory_snapshot.json -o run.db (same database).',
  'The memory sections and findings.', 'Re-run profdb report: the memory sections are filled.', 1,
  0, NULL, NULL, json_array(), json_object('sections', json_array('mem_summary'), 'figures', json_object('gpu_activities', gpu_all))
FROM counts WHERE traces > 0 AND mem_devices = 0 AND gpu_all > 0
UNION ALL
SELECT 0.3, 'need_trace', 'high', 'A profiler trace would show where time goes',
  'The database has a memory snapshot but no profiler trace.',
  'Time questions (step time, GPU utilization, kernels, CPU ops) need a torch.profiler trace.',
  'Profile a few steps with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)) and prof.export_chrome_trace("trace.json.gz"), then profdb load trace.json.gz -o run.db.',
  'The time sections and findings.', 'Re-run profdb report: the time sections are filled.', 1,
  0, NULL, NULL, json_array(), json_object('sections', json_array('run_summary'), 'figures', json_object('traces', 0))
FROM counts WHERE traces = 0 AND mem_devices > 0
UNION ALL
SELECT 0.2, 'need_gpu_activity', 'high', 'The trace has no GPU activity',
  'No CUDA/ROCm kernels, copies or fills anywhere in the trace.',
  CASE WHEN cut.traces > 0 THEN 'The file is cut before its GPU events: Kineto writes every CPU event first, so a trace cut early (a job killed while writing, an incomplete copy) can hold CPU events only.'
       ELSE 'The profiler recorded the CPU only (or the run did not use a GPU).' END,
  CASE WHEN cut.traces > 0 THEN 'Load the complete file (copy it again, or let the job finish writing it); if the complete file has no GPU events either, profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA].'
       ELSE 'Profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] to see GPU time, utilization and launch overhead.' END,
  'The GPU sections.', 'Re-profile: kernels appear in run_summary.', 1,
  0, NULL, NULL, json_array(), json_object('sections', json_array('run_summary'), 'figures', json_object('gpu_activities', 0))
FROM counts n, cut_m cut WHERE n.traces > 0 AND gpu_all = 0 AND other_device IS NULL
  AND launch_calls = 0 AND ac2g_flows = 0 AND NOT range_profiler
  AND NOT (coalesce(cpu_mem_peak, 0) > 0 AND gpu_mem_events = 0)
UNION ALL
-- CUDA activity was on (runtime launch calls, ac2g flows to GPU work) but
-- no GPU record arrived: re-profiling "with CUDA" would not help.
SELECT 0.2, 'gpu_records_lost', 'high',
  'The GPU records were lost: the trace launches GPU work but holds none',
  printf('%d runtime call(s) that launch GPU work (cudaLaunchKernel, cudaMemcpyAsync, ...) and %d ac2g flow event(s) linking them to GPU work, but no kernel, copy or fill anywhere in the trace%s.',
    launch_calls, ac2g_flows,
    CASE WHEN range_profiler THEN '; the trace has cuda_profiler_range events' ELSE '' END),
  CASE WHEN range_profiler
    THEN 'The trace was recorded with CUPTI''s range profiler (performance counters per range, the cuda_profiler_range events), which replaces the kernel activity records: CUDA activity was on, but the kernels are not recorded in this mode.'
    ELSE 'CUDA activity was on (CUPTI recorded the runtime calls), but the GPU activity records never reached the trace: CUPTI''s activity buffers filled up and records were dropped (a long profiled window), the profiler stopped before the buffers were flushed (the process exited or crashed inside the profiled region, or stopped without a torch.cuda.synchronize()), or another CUPTI client (Nsight Systems / Compute, DCGM profiling) held the GPU activity kinds.' END,
  CASE WHEN range_profiler
    THEN 'Profile again in the default (activity) mode, without the CUPTI range-profiler settings, to record kernels; keep the range profile for its counters.'
    ELSE 'Profile fewer steps (schedule(wait=1, warmup=1, active=2)), call torch.cuda.synchronize() before the profiler stops and let it exit normally, run no other CUPTI tool at the same time, and check the profiler''s log for dropped CUPTI records.' END,
  'The GPU sections.', 'Re-profile: kernels appear in run_summary.', 1,
  0, NULL, NULL, json_array(),
  json_object('sections', json_array('run_summary'), 'figures', json_object('gpu_activities', 0,
    'launch_calls', launch_calls, 'ac2g_flows', ac2g_flows, 'range_profiler', range_profiler))
FROM counts WHERE traces > 0 AND gpu_all = 0 AND other_device IS NULL
  AND (launch_calls > 0 OR ac2g_flows > 0 OR range_profiler)
UNION ALL
-- No GPU work and no runtime call, but the [memory] events show tensors
-- allocated on the CPU: the run itself used the CPU.
SELECT 0.2, 'ran_on_cpu', CASE WHEN devices > 0 THEN 'high' ELSE 'medium' END,
  printf('The run used the CPU, not a GPU: up to %s allocated on the CPU', profdb_fmt_bytes(cpu_mem_peak)),
  printf('No kernel, copy or fill and no CUDA/HIP runtime call; the profiler''s [memory] events show up to %s allocated on the CPU (device type 0) and none on a GPU%s.',
    profdb_fmt_bytes(cpu_mem_peak),
    CASE WHEN devices > 0 THEN printf(', although the trace lists %d GPU(s) (deviceProperties)', devices) ELSE '' END),
  'The model and its inputs stayed on the CPU: no .to("cuda") / .cuda(), a device chosen from torch.cuda.is_available() that was False (CUDA_VISIBLE_DEVICES, a CPU-only PyTorch build), or a map_location="cpu" checkpoint.',
  'If the run should use the GPU, move the model and each batch to it (model.to("cuda"), batch.to("cuda", non_blocking=True)) and check torch.cuda.is_available() in the job; then profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA].',
  'The GPU sections.', 'Re-profile: kernels appear in run_summary, [memory] events on device type 1.', 1,
  0, NULL, NULL, json_array(),
  json_object('sections', json_array('run_summary', 'op_memory_sum'), 'figures', json_object('gpu_activities', 0,
    'cpu_memory_peak_bytes', cpu_mem_peak, 'gpus_listed', devices))
FROM counts WHERE traces > 0 AND gpu_all = 0 AND other_device IS NULL
  AND launch_calls = 0 AND ac2g_flows = 0 AND NOT range_profiler
  AND cpu_mem_peak > 0 AND gpu_mem_events = 0
UNION ALL
SELECT 0.2, 'unanalysed_device', 'high', 'The device events are not CUDA/ROCm kernels',
  printf('The trace has no CUDA/ROCm GPU events; its %s are kept (event table, kind cpu_other) but not analysed as GPU work.', other_device),
  'The run used another accelerator (e.g. MTIA), whose events the GPU sections do not model.',
  'Query them directly: SELECT name, count(*), sum(dur) FROM event WHERE cat = ''<category>'' GROUP BY name ORDER BY 3 DESC.',
  'The device side of the run.', 'None: the CPU sections still apply.', 0,
  0, NULL, NULL, json_array(), json_object('sections', json_array('run_summary'), 'figures', json_object('other_device', other_device))
FROM counts WHERE traces > 0 AND gpu_all = 0 AND other_device IS NOT NULL
UNION ALL
SELECT 0.2, 'gpu_outside_steps', 'high', 'No GPU work in the analysed steps',
  printf('%d kernels, copies or fills ran, all outside the analysed steps (in the warm-up step or outside ProfilerStep ranges).', gpu_all),
  'The profiled window holds too few steps, or the last step was cut short when profiling stopped.',
  'Re-run profdb report with --include-warmup, or profile more steps (schedule(wait=1, warmup=1, active=3)).',
  'The GPU sections.', 'Re-run: kernels in gpu_kernel_sum.', 1,
  0, NULL, NULL, json_array(), json_object('sections', json_array('run_summary'), 'figures', json_object('gpu_activities', gpu_all, 'analysed', gpu))
FROM counts WHERE traces > 0 AND gpu = 0 AND gpu_all > 0
UNION ALL
SELECT 0.2, 'need_steps', 'high', 'The trace has no ProfilerStep ranges',
  'Steps cannot be told apart, so warm-up is included and per-step figures cover the whole trace.',
  'prof.step() was not called, or the profiler was used without a schedule.',
  'Use torch.profiler.schedule(wait=1, warmup=1, active=3) and call prof.step() at the end of every iteration.',
  'Per-step figures and warm-up exclusion.', 'Re-profile: steps > 0 in run_summary.', 1,
  0, NULL, NULL, json_array(), json_object('sections', json_array('run_summary'), 'figures', json_object('steps', 0))
FROM counts WHERE traces > 0 AND all_steps = 0
UNION ALL
-- (A trace from the legacy exporter is not told to set record_shapes:
-- that exporter writes no shapes whatever the option.)
SELECT 0.1, 'need_shapes', 'high', 'Input shapes were not recorded',
  'CPU operators carry no Input Dims, so fill kernels and ops cannot be related to tensor shapes.',
  CASE WHEN legacy_traces > 0 THEN printf('%d trace(s) come from PyTorch''s legacy (pre-Kineto) exporter (a bare array of events without categories), which writes no shapes even with record_shapes=True.', legacy_traces)
       ELSE 'The profiler ran with record_shapes=False.' END,
  CASE WHEN legacy_traces > 0 THEN 'Profile with torch.profiler.profile(record_shapes=True) on a PyTorch with Kineto (1.8.1 or later; torch.profiler.kineto_available() is True) and export with prof.export_chrome_trace(); record_shapes alone does not help with this exporter.'
       ELSE 'Re-profile with record_shapes=True.' END,
  'Shapes in fill_kernel_sum and in the op tables.', 'Re-profile: fill_kernel_sum.input_dims filled.', 1,
  0, NULL, NULL, json_array(), json_object('sections', json_array('cpu_op_self_sum'), 'figures', json_object('ops', ops, 'ops_with_shapes', 0))
FROM counts WHERE traces > 0 AND ops > 0 AND ops_with_shapes = 0
)
-- A finding that a cut trace could explain (cut_rule) says so first and
-- loses one level of confidence.
SELECT r.priority, r.id, r.id AS rule,
  CASE WHEN c.list IS NULL THEN r.confidence
       WHEN r.confidence = 'high' THEN 'medium' ELSE 'low' END AS confidence,
  r.title,
  CASE WHEN c.list IS NULL THEN r.observation
       ELSE printf('The trace is cut (%s; profdb load exits 3): the events after the cut are missing, the GPU work first (Kineto writes it after the CPU events), so the cut may explain this. ',
         c.list) || r.observation END AS observation,
  r.hypothesis, r.action,
  r.expected_impact, r.validation, r.needs_artifact, r.saving_pct AS expected_saving_pct,
  CAST(round(r.saving_ns) AS INTEGER) AS expected_saving_ns, r.saving_bytes AS expected_saving_bytes,
  r.subjects,
  CASE WHEN c.list IS NULL THEN r.evidence
       ELSE json_set(r.evidence, '$.truncated', c.list) END AS evidence
FROM rules r
LEFT JOIN (SELECT m.list, u.rule FROM cut_m m, cut_rule u WHERE m.traces > 0) c ON c.rule = r.id
ORDER BY r.priority DESC, coalesce(r.saving_ns, r.saving_bytes, 0) DESC, r.id;
