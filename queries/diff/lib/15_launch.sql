-- profdb diff, what launched each kernel: the operator-based matching of
-- kernels across GPUs and library versions (docs/definitions.md, "Kernel
-- matching").  See lib/10_sides.sql for the conventions.

-- Kernels of the analysed steps per side, name and launch context: the
-- CPU operator that launched them (_gpu_link.op_id: same External id, else
-- the innermost operator around the launch), its input shapes, its parent
-- slice (where it sits in the operator tree) and the kernel's category.
--   op, shapes, parent: '' when unknown (no launching operator, shapes not
--   recorded, operator at the top of its thread)
CREATE TEMP TABLE diff_gpu_launch AS
WITH k AS (
  -- grouped by name ids, named after (a name is read once per group)
  SELECT 'after' AS side, g.name_id, o.name_id AS op_name_id,
    coalesce(o.input_dims, '') AS shapes, p.name_id AS parent_name_id,
    count(*) AS instances, sum(g.dur) AS total_dur
  FROM main._gpu g JOIN main._gpu_link l ON l.id = g.id
  LEFT JOIN main._slice o ON o.id = l.op_id
  LEFT JOIN main._slice_tree t ON t.id = l.op_id LEFT JOIN main._slice p ON p.id = t.parent_id
  WHERE g.kind = (SELECT kind FROM main._kind WHERE name = 'kernel') AND g.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM diff_scope s WHERE s.side = 'after'
                AND s.trace_id = g.trace_id AND s.step = coalesce(l.step, -1))
  GROUP BY 2, 3, 4, 5
), kb AS (
  SELECT 'before' AS side, g.name_id, o.name_id AS op_name_id,
    coalesce(o.input_dims, '') AS shapes, p.name_id AS parent_name_id,
    count(*) AS instances, sum(g.dur) AS total_dur
  FROM base._gpu g JOIN base._gpu_link l ON l.id = g.id
  LEFT JOIN base._slice o ON o.id = l.op_id
  LEFT JOIN base._slice_tree t ON t.id = l.op_id LEFT JOIN base._slice p ON p.id = t.parent_id
  WHERE g.kind = (SELECT kind FROM base._kind WHERE name = 'kernel') AND g.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM diff_scope s WHERE s.side = 'before'
                AND s.trace_id = g.trace_id AND s.step = coalesce(l.step, -1))
  GROUP BY 2, 3, 4, 5
), named AS MATERIALIZED (
  SELECT k.side, profdb_display_name(n.value) AS name,
    coalesce(profdb_display_name(os.value), '') AS op, k.shapes,
    coalesce(profdb_display_name(ps.value), '') AS parent, k.instances, k.total_dur
  FROM k JOIN main._string n ON n.id = k.name_id
  LEFT JOIN main._string os ON os.id = k.op_name_id
  LEFT JOIN main._string ps ON ps.id = k.parent_name_id
  UNION ALL
  SELECT kb.side, profdb_display_name(n.value), coalesce(profdb_display_name(os.value), ''),
    kb.shapes, coalesce(profdb_display_name(ps.value), ''), kb.instances, kb.total_dur
  FROM kb JOIN base._string n ON n.id = kb.name_id
  LEFT JOIN base._string os ON os.id = kb.op_name_id
  LEFT JOIN base._string ps ON ps.id = kb.parent_name_id
)
SELECT side, name, kernel_base(name) AS base, kernel_category(name) AS category, op, shapes,
  parent, instances, total_dur
FROM named;

-- CPU operators of the analysed steps per name and input shapes, both
-- sides in one row: calls and total time (ns, children included).
--   shapes: Input Dims as JSON text, '' when not recorded
CREATE TEMP TABLE diff_op_shape AS
WITH ids AS (
  -- the load's totals per (name, shapes, types): _attr_shape, grouped by
  -- name id (each name is read once, after grouping)
  SELECT 'after' AS side, s.name_id, coalesce(s.input_dims, '') AS shapes,
    sum(a.calls) AS calls, sum(a.total_dur) AS dur
  FROM main._attr_shape a JOIN main._slice s ON s.id = a.shape_id
  WHERE EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'after' AND k.trace_id = a.trace_id
                AND k.step = coalesce(a.step, -1))
  GROUP BY 2, 3
), ids_b AS (
  SELECT 'before' AS side, s.name_id, coalesce(s.input_dims, '') AS shapes,
    sum(a.calls) AS calls, sum(a.total_dur) AS dur
  FROM base._attr_shape a JOIN base._slice s ON s.id = a.shape_id
  WHERE EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'before' AND k.trace_id = a.trace_id
                AND k.step = coalesce(a.step, -1))
  GROUP BY 2, 3
), o AS MATERIALIZED (
  SELECT i.side, profdb_display_name(n.value) AS name, i.shapes, i.calls, i.dur
  FROM ids i JOIN main._string n ON n.id = i.name_id
  UNION ALL
  SELECT i.side, profdb_display_name(n.value), i.shapes, i.calls, i.dur
  FROM ids_b i JOIN base._string n ON n.id = i.name_id
)
SELECT name, shapes,
  coalesce(sum(calls) FILTER (WHERE side = 'before'), 0) AS before_calls,
  coalesce(sum(calls) FILTER (WHERE side = 'after'), 0) AS after_calls,
  coalesce(sum(dur) FILTER (WHERE side = 'before'), 0) AS before_dur,
  coalesce(sum(dur) FILTER (WHERE side = 'after'), 0) AS after_dur
FROM o GROUP BY name, shapes;
