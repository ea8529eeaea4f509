-- Title: Verdict
-- Question: What got faster or slower, by how much, and how far can the
--   comparison be trusted?  One line per topic, in this order: step time,
--   where the change is (host or GPU), faster and slower kinds of GPU
--   work, the kernels that moved most, GPU utilization, memory, caveats.
--   Lines without data are left out, and changes under 0.5% of the before
--   step time are not worth a mention.  The step time line says whether
--   the change exceeds the step-to-step spread (diff_noise: a Mann-Whitney
--   U test of the steps' times).  'Where': when the step time moved by 5%
--   or more and the GPU busy time per step by at most a quarter of that,
--   the change is on the host (CPU) side (docs/definitions.md, "Diff:
--   verdict").  'Kernels': when the GPUs differ (diff_env), kernels that
--   vanished or are new with no counterpart are the other GPU's libraries'
--   kernels, said so, never the largest gain or loss.  'Collectives': each
--   kind whose bus bandwidth fell by more than 10% (diff_coll_kind, the
--   gate's busbw[KIND]: bus bytes per ns of transfer over the kind's calls;
--   docs/definitions.md#collective-bandwidth), the largest drop first.
-- Parameters: :include_warmup
-- Columns:
--   topic      -      what the line is about
--   statement  -      the verdict, with its numbers
WITH r AS (
  SELECT b.job_steps AS bs, a.job_steps AS as_, b.mean_wall AS bw, a.mean_wall AS aw,
    b.traces AS bt, a.traces AS at_, b.devices AS bd, a.devices AS ad
  FROM diff_run b, diff_run a WHERE b.side = 'before' AND a.side = 'after'
), cat AS (
  SELECT category, (a - b) AS delta, CASE WHEN a > 0 AND b > 0 THEN b / a END AS speedup
  FROM (SELECT category,
          1.0 * coalesce(sum(total_dur) FILTER (WHERE side = 'before'), 0)
            / (SELECT steps FROM diff_per_step WHERE side = 'before') AS b,
          1.0 * coalesce(sum(total_dur) FILTER (WHERE side = 'after'), 0)
            / (SELECT steps FROM diff_per_step WHERE side = 'after') AS a
        FROM diff_gpu_name GROUP BY category)
), noise AS (
  -- the smallest per-step change worth a mention
  SELECT 0.005 * coalesce((SELECT mean_wall FROM diff_run WHERE side = 'before'), 0) AS ns
), gpus AS (
  -- the GPUs of each side when both recorded them and they differ
  SELECT b.value AS before_gpus, a.value AS after_gpus
  FROM diff_env b JOIN diff_env a ON a.fact = b.fact AND a.side = 'after'
  WHERE b.fact = 'GPUs' AND b.side = 'before' AND a.value <> b.value
), kern AS (
  -- other_gpu: a kernel without counterpart when the GPU changed
  SELECT kernel_base(kernel) AS kernel, matched_by, after_per_step - before_per_step AS delta,
    matched_by IN ('vanished', 'new') AND EXISTS (SELECT 1 FROM gpus) AS other_gpu
  FROM diff_kernel
), busy AS (
  -- GPU busy time per step and device (queries/diff/gpu.sql's gpu_busy_ns
  -- over the devices a rank uses: the same figure with one GPU per rank)
  SELECT d.side, 1.0 * (SELECT sum(busy_ns) * count(DISTINCT trace_id) / count(*)
                        FROM diff_gpu_busy g WHERE g.side = d.side) / p.steps AS ns
  FROM diff_sides d JOIN diff_per_step p USING (side)
), host AS (
  -- the step time moved by 5% or more, the GPU busy time by a quarter of
  -- that at most: the change is on the host side
  SELECT r.bw, r.aw, b.ns AS bg, a.ns AS ag
  FROM r, busy b, busy a
  WHERE b.side = 'before' AND a.side = 'after' AND r.bs > 0 AND r.as_ > 0
    AND b.ns > 0 AND a.ns > 0 AND abs(r.aw - r.bw) >= 0.05 * r.bw
    AND abs(a.ns - b.ns) <= 0.25 * abs(r.aw - r.bw)
), util AS (
  SELECT side, 100.0 * sum(busy_ns) / max(sum(wall), 1) AS util FROM (
    SELECT b.side, b.busy_ns, (SELECT sum(s.wall_ns) FROM diff_step s
                               WHERE s.side = b.side AND s.trace_id = b.trace_id) AS wall
    FROM diff_gpu_busy b) GROUP BY side
), mem AS (
  SELECT a.device, b.peak_allocated AS bp, a.peak_allocated AS ap, b.ooms AS bo, a.ooms AS ao
  FROM diff_mem a JOIN diff_mem b ON b.device = a.device AND b.side = 'before'
  WHERE a.side = 'after'
), lines(ord, topic, statement) AS (
  -- 1. Step time
  SELECT 1, 'Step time',
    CASE
      WHEN r.bs = 0 OR r.bw IS NULL THEN 'The before run has no profiler trace: no step time to compare.'
      WHEN r.as_ = 0 OR r.aw IS NULL THEN 'The after run has no profiler trace: no step time to compare.'
      WHEN abs(r.aw - r.bw) < 0.01 * r.bw THEN
        printf('%s -> %s per job step (mean over %d -> %d job steps): about the same (%+.1f%%).',
               profdb_fmt_ns(r.bw), profdb_fmt_ns(r.aw), r.bs, r.as_, 100.0 * (r.aw - r.bw) / r.bw)
      ELSE printf('%s -> %s per job step (mean over %d -> %d job steps): %+.1f%%, %.2fx %s.',
                  profdb_fmt_ns(r.bw), profdb_fmt_ns(r.aw), r.bs, r.as_,
                  100.0 * (r.aw - r.bw) / r.bw,
                  CASE WHEN r.aw < r.bw THEN r.bw / r.aw ELSE r.aw / r.bw END,
                  CASE WHEN r.aw < r.bw THEN 'faster' ELSE 'slower' END)
    END || coalesce((SELECT ' ' || upper(substr(verdict, 1, 1)) || substr(verdict, 2) || '.'
                     FROM diff_noise WHERE r.bs > 0 AND r.as_ > 0), '')
  FROM r
  UNION ALL
  -- 1.5 Where the change is: on the host when the GPU time did not move
  SELECT 1.5, 'Where',
    printf('GPU busy time per step %s (%s -> %s, %+.1f%%) while the step time %s %s: the %s is '
           || 'on the host (CPU) side, where the GPU %s for the CPU (input pipeline, operator '
           || 'dispatch, host syncs); compare the CPU operators (cpu_op).',
           CASE WHEN abs(ag - bg) <= 0.05 * bg THEN 'unchanged' ELSE 'changed little' END,
           profdb_fmt_ns(bg), profdb_fmt_ns(ag), 100.0 * (ag - bg) / bg,
           CASE WHEN aw < bw THEN 'fell' ELSE 'grew' END, profdb_fmt_ns(abs(aw - bw)),
           CASE WHEN aw < bw THEN 'gain' ELSE 'loss' END,
           CASE WHEN aw < bw THEN 'waited less' ELSE 'now waits longer' END)
  FROM host
  UNION ALL
  -- 2-3. GPU work that got faster / slower (per step)
  SELECT 2, 'Faster', group_concat(printf('%s %s/step%s', category, profdb_fmt_ns(delta),
    CASE WHEN speedup IS NOT NULL THEN printf(' (%.2fx)', speedup) ELSE ' (gone)' END), '; ')
  FROM (SELECT * FROM cat WHERE delta < -(SELECT ns FROM noise) ORDER BY delta LIMIT 3)
  HAVING count(*) > 0
  UNION ALL
  SELECT 3, 'Slower', group_concat(printf('%s +%s/step%s', category, profdb_fmt_ns(delta),
    CASE WHEN speedup IS NOT NULL THEN printf(' (%.2fx)', 1 / speedup) ELSE ' (new)' END), '; ')
  FROM (SELECT * FROM cat WHERE delta > (SELECT ns FROM noise) ORDER BY delta DESC LIMIT 3)
  HAVING count(*) > 0
  UNION ALL
  -- 4. The kernels that moved most, each way
  SELECT 4, 'Kernels', group_concat(line, '; ') FROM (
    SELECT printf('largest gain %s %s/step%s', kernel, profdb_fmt_ns(delta),
                  CASE matched_by WHEN 'vanished' THEN ' (vanished)' ELSE '' END) AS line
    FROM (SELECT * FROM kern WHERE delta < -(SELECT ns FROM noise) AND NOT other_gpu
          ORDER BY delta LIMIT 1)
    UNION ALL
    SELECT printf('largest loss %s +%s/step%s', kernel, profdb_fmt_ns(delta),
                  CASE matched_by WHEN 'new' THEN ' (new)' ELSE '' END)
    FROM (SELECT * FROM kern WHERE delta > (SELECT ns FROM noise) AND NOT other_gpu
          ORDER BY delta DESC LIMIT 1)
    UNION ALL
    -- the largest vanished and new kernels of a change of GPU, each way
    SELECT printf('the GPU changed (%s before, %s after): %s, kernels of the other GPU''s '
                  || 'libraries, not a gain or a loss', before_gpus, after_gpus,
                  group_concat(part, ' and '))
    FROM gpus, (
      SELECT * FROM (
        SELECT printf('%s vanished (-%s/step)', kernel, profdb_fmt_ns(-delta)) AS part
        FROM kern WHERE other_gpu AND matched_by = 'vanished'
          AND delta < -(SELECT ns FROM noise) ORDER BY delta LIMIT 1)
      UNION ALL
      SELECT * FROM (
        SELECT printf('%s is new (+%s/step)', kernel, profdb_fmt_ns(delta))
        FROM kern WHERE other_gpu AND matched_by = 'new'
          AND delta > (SELECT ns FROM noise) ORDER BY delta DESC LIMIT 1))
    HAVING count(part) > 0)
  HAVING count(*) > 0
  UNION ALL
  -- 4.5 Collectives whose bus bandwidth fell by more than 10%
  SELECT 4.5, 'Collectives', group_concat(printf('%s bus bandwidth %.2f -> %.2f GB/s (%+.1f%%)',
    kind, bb, ba, 100.0 * (ba - bb) / bb), '; ') || '.'
  FROM (SELECT b.kind, b.busbw_gbps AS bb, a.busbw_gbps AS ba
        FROM diff_coll_kind b JOIN diff_coll_kind a ON a.kind = b.kind AND a.side = 'after'
        WHERE b.side = 'before' AND b.busbw_gbps > 0 AND a.busbw_gbps < 0.9 * b.busbw_gbps
        ORDER BY (a.busbw_gbps - b.busbw_gbps) / b.busbw_gbps)
  HAVING count(*) > 0
  UNION ALL
  -- 5. GPU utilization
  SELECT 5, 'GPU utilization', printf('%.1f%% -> %.1f%% of the step time (%+.1f points).',
    b.util, a.util, a.util - b.util)
  FROM util b, util a WHERE b.side = 'before' AND a.side = 'after'
  UNION ALL
  -- 6. Memory
  SELECT 6, 'Memory', group_concat(printf('device %d: peak allocated %s -> %s (%+.1f%%)%s',
    device, profdb_fmt_bytes(bp), profdb_fmt_bytes(ap), 100.0 * (ap - bp) / max(bp, 1),
    CASE WHEN ao <> bo THEN printf(', OOMs %d -> %d', bo, ao) ELSE '' END), '; ')
  FROM mem HAVING count(*) > 0
  UNION ALL
  SELECT 6, 'Memory', printf('only the %s run has a memory snapshot; nothing to compare.', side)
  FROM (SELECT DISTINCT side FROM diff_mem)
  WHERE (SELECT count(DISTINCT side) FROM diff_mem) = 1
  UNION ALL
  -- 7. Caveats
  SELECT 7, 'Caveats', group_concat(c, '; ') FROM (
    SELECT printf('the runs have different numbers of analysed job steps (%d before, %d after): per-step figures are averages', bs, as_) AS c
    FROM r WHERE bs <> as_ AND bs > 0 AND as_ > 0
    UNION ALL
    SELECT printf('different ranks (%d traces before, %d after)', bt, at_) FROM r WHERE bt <> at_
    UNION ALL
    SELECT printf('different %s (%s before, %s after)', f.fact, coalesce(b.value, 'none recorded'),
                  coalesce(a.value, 'none recorded'))
    FROM (SELECT DISTINCT fact FROM diff_env) f
    LEFT JOIN diff_env b ON b.fact = f.fact AND b.side = 'before'
    LEFT JOIN diff_env a ON a.fact = f.fact AND a.side = 'after'
    WHERE b.value IS NOT a.value AND EXISTS (SELECT 1 FROM r WHERE r.bt > 0 AND r.at_ > 0)
    UNION ALL
    SELECT printf('only the %s run has a profiler trace', CASE WHEN bt > 0 THEN 'before' ELSE 'after' END)
    FROM r WHERE (bt > 0) <> (at_ > 0)
    UNION ALL
    SELECT printf('kernel names differ: %.0f%% of the after kernel time matched by operator, %.0f%% is new (see How the kernels were matched)',
                  100.0 * sum(after_per_step) FILTER (WHERE matched_by LIKE 'operator%') / sum(after_per_step),
                  100.0 * coalesce(sum(after_per_step) FILTER (WHERE matched_by = 'new'), 0) / sum(after_per_step))
    -- only when the names differ for 1% of the after kernel time or more
    -- (a 0.14% operator match read "0% matched by operator")
    FROM diff_kernel
    HAVING sum(after_per_step) FILTER (WHERE matched_by LIKE 'operator%')
      >= 0.01 * sum(after_per_step)
    UNION ALL
    SELECT 'the warm-up steps are included (--include-warmup)' WHERE :include_warmup)
  HAVING count(*) > 0
)
SELECT topic, statement FROM lines WHERE statement IS NOT NULL ORDER BY ord;
