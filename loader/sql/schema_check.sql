-- schema_check.sql — does the database attached as "r" hold profdb's
-- schema, as "main" holds it (main: created from profdb's own DDL)?  Read
-- before profdb reads anything of an input it did not write itself (a
-- dataset's summary, a database given to profdb export): every table of
-- main must be a table of r with the same columns and declared types in
-- the same order, and every view of main a view of r with the same text,
-- so that no SQL text stored in the input ever runs (a view is SQL text)
-- and every INSERT ... SELECT reads the columns it names.  r's other
-- objects (tables, views, triggers of its own) are ignored: profdb never
-- reads them.  Only sqlite_schema and pragma_table_xinfo of tables are read,
-- so checking runs nothing of r either (a CASE evaluates in order: the
-- columns are read only once the name is known to be a table).
-- Columns are compared one by one (name, declared type, NOT NULL, primary
-- key) from pragma_table_xinfo, which also lists generated columns: a
-- generated column in r (whose expression a SELECT would run) or any other
-- hidden one is a mismatch, as is a column that differs in any part.
-- Output (the first mismatch; no row when r matches):
--   name   the table or view of profdb's schema that r lacks or differs in
--   what   what is wrong, for the message
SELECT m.name,
  CASE
    WHEN s.type IS NULL THEN 'missing ' || m.type
    WHEN s.type <> m.type THEN 'a ' || s.type || ', not a ' || m.type
    WHEN m.type = 'view' AND s.sql IS NOT m.sql THEN 'a view that is not profdb''s'
    -- (the same CREATE TABLE text defines the same columns: the usual case,
    -- a summary profdb wrote, decided without reading its columns)
    WHEN m.type = 'table' AND s.sql IS m.sql THEN NULL
    WHEN m.type = 'table' AND EXISTS
      (SELECT 1 FROM pragma_table_xinfo(m.name, 'r') c WHERE c.hidden <> 0)
      THEN 'a generated or hidden column, which profdb''s tables have not'
    WHEN m.type = 'table' AND
      (SELECT json_group_array(json_array(c.name, c.type, c."notnull", c.pk))
       FROM (SELECT * FROM pragma_table_xinfo(m.name, 'main') ORDER BY cid) c) IS NOT
      (SELECT json_group_array(json_array(c.name, c.type, c."notnull", c.pk))
       FROM (SELECT * FROM pragma_table_xinfo(m.name, 'r') ORDER BY cid) c)
      THEN 'other columns than profdb''s'
  END AS what
FROM main.sqlite_schema m
LEFT JOIN r.sqlite_schema s ON s.name = m.name
WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
  AND what IS NOT NULL
ORDER BY m.type, m.name
LIMIT 1;
