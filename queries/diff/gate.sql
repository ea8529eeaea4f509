-- Title: Gate
-- Question: Does the after run pass the team's regression checks
--   (--fail-if, --gate FILE)?  One row per check, in the order given: the
--   metric before and after, the measured change in the check's units,
--   the limit, and whether it passed.  A check states when to FAIL:
--   'step_time > +5%' fails when the mean step time grew by more than 5%.
--   Metrics (docs/definitions.md, "Diff: gate metrics"; diff_metric) are
--   per analysed step, as in the rest of the diff; busbw[KIND] is the
--   kind's bus bandwidth over its calls (diff_coll_kind, GB/s).
-- Requires: gate_rule
-- Columns:
--   rule       -      the check as written
--   metric     -      metric name (with [argument] for category, kernel and busbw)
--   unit       -      unit of before and after: ns, bytes, %, count, GB/s
--   before     -      the metric, before (NULL when the run has no data for it)
--   after      -      the metric, after
--   change     -      what the limit is compared with: % relative change, points (pt), a change in the metric's unit, or the after value
--   limit      -      the check's limit, in the units of change
--   measured   -      change as text, with its unit ('+51.0%', '+4.02 ms', '-13.4pt')
--   passed     -      1 passed, 0 failed, NULL not evaluated (no data on a side; an after-value check needs only the after run)
--   noise      -      step time checks: the noise test (diff_noise); 'required' checks fail only beyond the spread
--   note       -      why a check was not evaluated
WITH per_step AS (
  -- the per-step divisor of a side with a trace, NULL without one
  SELECT side, CASE WHEN steps > 0 THEN 1.0 * steps END AS steps FROM diff_run
), kernel_named AS (
  -- a kernel[...] argument names a kernel exactly when either run has that
  -- name, else it is a kernel_base()
  SELECT r.ord, EXISTS (SELECT 1 FROM diff_gpu_name g WHERE g.kind = 'kernel' AND g.name = r.arg)
    AS exact
  FROM gate_rule r WHERE r.metric = 'kernel'
), value AS (
  SELECT r.ord, d.side,
    CASE r.metric
      WHEN 'category' THEN
        (SELECT coalesce(sum(g.total_dur), 0) FROM diff_gpu_name g
         WHERE g.side = d.side AND g.category = r.arg) / p.steps
      WHEN 'kernel' THEN
        (SELECT coalesce(sum(g.total_dur), 0) FROM diff_gpu_name g, kernel_named k
         WHERE k.ord = r.ord AND g.side = d.side AND g.kind = 'kernel'
           AND CASE WHEN k.exact THEN g.name = r.arg ELSE g.base = r.arg END) / p.steps
      WHEN 'busbw' THEN
        (SELECT c.busbw_gbps FROM diff_coll_kind c WHERE c.side = d.side AND c.kind = r.arg)
      ELSE (SELECT value FROM diff_metric x WHERE x.side = d.side AND x.metric = r.metric)
    END AS v
  FROM gate_rule r, diff_sides d JOIN per_step p ON p.side = d.side
), known AS (
  -- category and kernel arguments that name something in either run
  SELECT r.ord, CASE r.metric
    WHEN 'category' THEN EXISTS (SELECT 1 FROM diff_gpu_name g WHERE g.category = r.arg)
    WHEN 'kernel' THEN EXISTS (SELECT 1 FROM diff_gpu_name g WHERE g.kind = 'kernel'
                               AND (g.name = r.arg OR g.base = r.arg))
    WHEN 'busbw' THEN EXISTS (SELECT 1 FROM diff_coll_call c WHERE c.kind = r.arg)
    ELSE 1 END AS found
  FROM gate_rule r
), m AS (
  SELECT r.*, b.v AS before, a.v AS after, k.found,
    CASE r.mode
      WHEN 'relative' THEN CASE WHEN b.v <> 0 THEN 100.0 * (a.v - b.v) / abs(b.v)
                                WHEN a.v = b.v THEN 0.0 END
      WHEN 'value' THEN a.v
      ELSE a.v - b.v END AS change
  FROM gate_rule r JOIN value b ON b.ord = r.ord AND b.side = 'before'
  JOIN value a ON a.ord = r.ord AND a.side = 'after' JOIN known k ON k.ord = r.ord
), judged AS (
  SELECT m.*,
    -- the failing condition; a relative change from 0 fails a '>' check
    CASE WHEN after IS NULL OR NOT found OR (before IS NULL AND mode <> 'value') THEN NULL
      WHEN change IS NULL THEN CASE WHEN op IN ('>', '>=') THEN after > before ELSE after < before END
      WHEN op = '>' THEN change > lim WHEN op = '>=' THEN change >= lim
      WHEN op = '<' THEN change < lim ELSE change <= lim END AS crossed,
    CASE WHEN metric LIKE 'step_time%' THEN (SELECT verdict FROM diff_noise) END AS noise_text,
    CASE WHEN metric LIKE 'step_time%' THEN (SELECT significant FROM diff_noise) END AS sig
  FROM m
)
SELECT rule, CASE WHEN arg IS NOT NULL THEN metric || '[' || arg || ']' ELSE metric END AS metric,
  unit,
  CASE WHEN unit IN ('%', 'GB/s') THEN round(before, 4)
       ELSE CAST(round(before) AS INTEGER) END AS before,
  CASE WHEN unit IN ('%', 'GB/s') THEN round(after, 4) ELSE CAST(round(after) AS INTEGER) END
    AS after,
  CASE WHEN change IS NOT NULL THEN round(change, 4) END AS change,
  lim AS "limit",
  CASE
    WHEN crossed IS NULL THEN NULL
    WHEN mode = 'relative' THEN coalesce(printf('%+.1f%%', change), 'from 0')
    WHEN unit = '%' THEN printf(CASE mode WHEN 'change' THEN '%+.1fpt' ELSE '%.1f%%' END, change)
    WHEN unit = 'GB/s' THEN printf(CASE mode WHEN 'change' THEN '%+.2f GB/s' ELSE '%.2f GB/s' END,
                                   change)
    WHEN unit = 'ns' THEN CASE WHEN mode = 'change' AND change >= 0 THEN '+' ELSE '' END
      || CASE WHEN change < 0 THEN '-' || profdb_fmt_ns(-change) ELSE profdb_fmt_ns(change) END
    WHEN unit = 'bytes' THEN CASE WHEN mode = 'change' AND change >= 0 THEN '+' ELSE '' END
      || CASE WHEN change < 0 THEN '-' || profdb_fmt_bytes(-change)
              ELSE profdb_fmt_bytes(change) END
    ELSE printf(CASE mode WHEN 'change' THEN '%+g' ELSE '%g' END, change)
  END AS measured,
  CASE WHEN crossed IS NULL THEN NULL
       WHEN significant THEN NOT (crossed AND coalesce(sig, 0))
       ELSE NOT crossed END AS passed,
  CASE WHEN noise_text IS NOT NULL THEN
    noise_text || CASE WHEN significant THEN '; significance required' ELSE '' END END AS noise,
  CASE WHEN NOT found THEN printf('no %s named ''%s'' in either run', metric, arg)
       WHEN before IS NULL AND after IS NULL THEN 'neither run has data for it'
       WHEN before IS NULL AND mode <> 'value' THEN 'the before run has no data for it'
       WHEN after IS NULL THEN 'the after run has no data for it' END AS note
FROM judged ORDER BY ord;
