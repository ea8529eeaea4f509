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
  SELECT 'after' AS side, n.value AS name, coalesce(os.value, '') AS op,
    coalesce(o.input_dims, '') AS shapes, coalesce(ps.value, '') AS parent,
    count(*) AS instances, sum(g.dur) AS total_dur
  FROM main._gpu g JOIN main._gpu_link l ON l.id = g.id JOIN main._string n ON n.id = g.name_id
  LEFT JOIN main._slice o ON o.id = l.op_id LEFT JOIN main._string os ON os.id = o.name_id
  LEFT JOIN main._slice_tree t ON t.id = l.op_id LEFT JOIN main._slice p ON p.id = t.parent_id
  LEFT JOIN main._string ps ON ps.id = p.name_id
  WHERE g.kind = (SELECT kind FROM main._kind WHERE name = 'kernel') AND g.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM diff_scope s WHERE s.side = 'after'
                AND s.trace_id = g.trace_id AND s.step = coalesce(l.step, -1))
  GROUP BY 1, 2, 3, 4, 5
  UNION ALL
  SELECT 'before', n.value, coalesce(os.value, ''), coalesce(o.input_dims, ''),
    coalesce(ps.value, ''), count(*), sum(g.dur)
  FROM base._gpu g JOIN base._gpu_link l ON l.id = g.id JOIN base._string n ON n.id = g.name_id
  LEFT JOIN base._slice o ON o.id = l.op_id LEFT JOIN base._string os ON os.id = o.name_id
  LEFT JOIN base._slice_tree t ON t.id = l.op_id LEFT JOIN base._slice p ON p.id = t.parent_id
  LEFT JOIN base._string ps ON ps.id = p.name_id
  WHERE g.kind = (SELECT kind FROM base._kind WHERE name = 'kernel') AND g.dur IS NOT NULL
    AND EXISTS (SELECT 1 FROM diff_scope s WHERE s.side = 'before'
                AND s.trace_id = g.trace_id AND s.step = coalesce(l.step, -1))
  GROUP BY 1, 2, 3, 4, 5
)
SELECT side, name, kernel_base(name) AS base, kernel_category(name) AS category, op, shapes,
  parent, instances, total_dur
FROM k;

-- CPU operators of the analysed steps per name and input shapes, both
-- sides in one row: calls and total time (ns, children included).
--   shapes: Input Dims as JSON text, '' when not recorded
CREATE TEMP TABLE diff_op_shape AS
WITH o AS (
  -- the load's totals per (name, shapes, types): _attr_shape
  SELECT 'after' AS side, n.value AS name, coalesce(s.input_dims, '') AS shapes,
    sum(a.calls) AS calls, sum(a.total_dur) AS dur
  FROM main._attr_shape a JOIN main._slice s ON s.id = a.shape_id
  JOIN main._string n ON n.id = s.name_id
  WHERE EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'after' AND k.trace_id = a.trace_id
                AND k.step = coalesce(a.step, -1))
  GROUP BY 2, 3
  UNION ALL
  SELECT 'before', n.value, coalesce(s.input_dims, ''), sum(a.calls), sum(a.total_dur)
  FROM base._attr_shape a JOIN base._slice s ON s.id = a.shape_id
  JOIN base._string n ON n.id = s.name_id
  WHERE EXISTS (SELECT 1 FROM diff_scope k WHERE k.side = 'before' AND k.trace_id = a.trace_id
                AND k.step = coalesce(a.step, -1))
  GROUP BY 2, 3
)
SELECT name, shapes,
  coalesce(sum(calls) FILTER (WHERE side = 'before'), 0) AS before_calls,
  coalesce(sum(calls) FILTER (WHERE side = 'after'), 0) AS after_calls,
  coalesce(sum(dur) FILTER (WHERE side = 'before'), 0) AS before_dur,
  coalesce(sum(dur) FILTER (WHERE side = 'after'), 0) AS after_dur
FROM o GROUP BY name, shapes;
