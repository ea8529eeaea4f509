-- postpass_attr.sql — the texts of the attribution rows the nesting pass
-- has just written (postpass.c): each new path's name (without
-- 'nn.Module: ' for modules) and its full path (the names from the
-- outermost range, joined by ' > '), and each new (context, operator,
-- shapes) row's "Input Dims", read from the operator call it names.
-- The tables are small: one row per distinct path or context.

UPDATE _attr_path SET name = (
  SELECT CASE _attr_path.tree WHEN 'module' THEN substr(n.value, 12) ELSE n.value END
  FROM _string n WHERE n.id = _attr_path.name_id)
WHERE name IS NULL;

CREATE TEMP TABLE _attr_path_text AS
WITH RECURSIVE down(id, path) AS (
  SELECT id, name FROM _attr_path WHERE path IS NULL AND parent_id IS NULL
  UNION ALL
  SELECT a.id, down.path || ' > ' || a.name FROM down JOIN _attr_path a ON a.parent_id = down.id
)
SELECT id, path FROM down;
CREATE UNIQUE INDEX temp._attr_path_text_by_id ON _attr_path_text(id);
UPDATE _attr_path SET path = (SELECT t.path FROM _attr_path_text t WHERE t.id = _attr_path.id)
WHERE path IS NULL;
DROP TABLE temp._attr_path_text;

UPDATE _attr_ctx_shape SET input_dims = (SELECT s.input_dims FROM _slice s WHERE s.id = op_id)
WHERE input_dims IS NULL;
