-- profdb diff, kernels matched across the runs (docs/definitions.md,
-- "Kernel matching").  Each kernel time of one run is paired with the
-- other run's by the first rule that pairs it:
--   1. 'name': the same kernel name in both runs;
--   2. 'base name': the same kernel_base() (template arguments differ);
--   3. 'operator': launched by the same CPU operator with the same input
--      shapes under the same parent slice, and of the same kernel_category()
--      (a GEMM of aten::mm [[8,512],[512,512]] under aten::linear): what a
--      different GPU or library version renames;
--   4. 'operator name': the same operator and category, shapes or parent
--      differing;
--   else 'new' (after only) or 'vanished' (before only), by base name.
-- An exact name comes first: it is the strongest evidence, and on the same
-- hardware it keeps each kernel its own row.  Times per step (ns).

-- One row per matched pair (or unmatched kernel).
--   kernel: the name, the base name, or the operator key for operator
--   matches ('aten::mm [[8,512],[512,512]] in aten::linear: GEMM')
--   before_kernels, after_kernels: base names on each side, for operator
--   matches (what was paired), else NULL
CREATE TEMP TABLE diff_kernel AS
WITH per AS (
  SELECT side, name, base FROM diff_gpu_launch GROUP BY side, name
), both_names AS (
  SELECT name FROM per GROUP BY name HAVING count(DISTINCT side) = 2
), both_bases AS (
  SELECT base FROM per WHERE name NOT IN (SELECT name FROM both_names)
  GROUP BY base HAVING count(DISTINCT side) = 2
), rest AS (
  -- launch rows of kernels that neither name nor base name pairs
  SELECT * FROM diff_gpu_launch
  WHERE name NOT IN (SELECT name FROM both_names) AND base NOT IN (SELECT base FROM both_bases)
), op_keys AS (
  SELECT op, shapes, parent, category FROM rest WHERE op <> ''
  GROUP BY op, shapes, parent, category HAVING count(DISTINCT side) = 2
), rest2 AS (
  SELECT r.* FROM rest r WHERE NOT EXISTS (
    SELECT 1 FROM op_keys k WHERE k.op = r.op AND k.shapes = r.shapes AND k.parent = r.parent
      AND k.category = r.category)
), op_name_keys AS (
  SELECT op, category FROM rest2 WHERE op <> ''
  GROUP BY op, category HAVING count(DISTINCT side) = 2
), matched(kernel, matched_by, category, side, base, n, t) AS (
  SELECT name, 'name', category, side, base, instances, total_dur FROM diff_gpu_launch
  WHERE name IN (SELECT name FROM both_names)
  UNION ALL
  SELECT base, 'base name', category, side, base, instances, total_dur FROM diff_gpu_launch
  WHERE name NOT IN (SELECT name FROM both_names) AND base IN (SELECT base FROM both_bases)
  UNION ALL
  SELECT r.op || CASE WHEN r.shapes <> '' THEN ' ' || r.shapes ELSE '' END
      || CASE WHEN r.parent <> '' THEN ' in ' || r.parent ELSE '' END || ': ' || r.category,
    'operator', r.category, r.side, r.base, r.instances, r.total_dur
  FROM rest r JOIN op_keys k ON k.op = r.op AND k.shapes = r.shapes AND k.parent = r.parent
    AND k.category = r.category
  UNION ALL
  SELECT r.op || ': ' || r.category, 'operator name', r.category, r.side, r.base, r.instances,
    r.total_dur
  FROM rest2 r JOIN op_name_keys k ON k.op = r.op AND k.category = r.category
  UNION ALL
  SELECT r.base, CASE r.side WHEN 'after' THEN 'new' ELSE 'vanished' END, r.category, r.side,
    r.base, r.instances, r.total_dur
  FROM rest2 r WHERE NOT EXISTS (
    SELECT 1 FROM op_name_keys k WHERE k.op = r.op AND k.category = r.category)
), steps AS (
  SELECT (SELECT steps FROM diff_per_step WHERE side = 'before') AS sb,
    (SELECT steps FROM diff_per_step WHERE side = 'after') AS sa
)
SELECT m.kernel, m.matched_by, min(m.category) AS category,
  coalesce(sum(m.n) FILTER (WHERE m.side = 'before'), 0) AS before_instances,
  coalesce(sum(m.n) FILTER (WHERE m.side = 'after'), 0) AS after_instances,
  coalesce(sum(m.t) FILTER (WHERE m.side = 'before'), 0) / (SELECT 1.0 * sb FROM steps)
    AS before_per_step,
  coalesce(sum(m.t) FILTER (WHERE m.side = 'after'), 0) / (SELECT 1.0 * sa FROM steps)
    AS after_per_step,
  CASE WHEN m.matched_by LIKE 'operator%' THEN
    (SELECT group_concat(base, ', ') FROM (SELECT DISTINCT x.base FROM matched x
     WHERE x.kernel = m.kernel AND x.matched_by = m.matched_by AND x.side = 'before'
     ORDER BY x.base)) END AS before_kernels,
  CASE WHEN m.matched_by LIKE 'operator%' THEN
    (SELECT group_concat(base, ', ') FROM (SELECT DISTINCT x.base FROM matched x
     WHERE x.kernel = m.kernel AND x.matched_by = m.matched_by AND x.side = 'after'
     ORDER BY x.base)) END AS after_kernels
FROM matched m GROUP BY m.kernel, m.matched_by;
