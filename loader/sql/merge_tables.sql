-- merge_tables.sql — the tables of one schema (?1: 'main' on the side
-- database itself, 'side' where it is attached to the original) whose rows
-- an append moves: every table but SQLite's own, from the schema itself so
-- that a table added to the DDL is covered.
--   name        the table
--   columns     its columns in order, each quoted: "a", "b", ...
--   wr          1 for a WITHOUT ROWID table
SELECT l.name,
  (SELECT group_concat(format('"%w"', c.name), ', ') FROM pragma_table_info(l.name, ?1) c),
  l.wr
FROM pragma_table_list l
WHERE l.schema = ?1 AND l.type = 'table' AND l.name NOT LIKE 'sqlite\_%' ESCAPE '\'
ORDER BY l.name;
