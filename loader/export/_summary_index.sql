-- _summary_index.sql — the exported database's indexes, in a rank's
-- summary (profdb export), attached as "src": their definitions only.  A
-- summary holds no index (a tenth to a fifth of its size); `profdb report
-- DIR` builds them once in the job's database after appending every
-- summary (loader/export_summary.c), which is also faster than keeping
-- them up to date through the appends.

CREATE TABLE _summary_index(
  -- the index's name in the exported database
  name TEXT PRIMARY KEY,
  -- its CREATE INDEX statement
  sql TEXT NOT NULL
);

INSERT INTO _summary_index(name, sql)
SELECT name, sql FROM src.sqlite_schema
WHERE type = 'index' AND sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\';
