-- merge_missing.sql — on the original, with the side database attached:
-- the tables and indexes of the side that the original lacks (one the
-- post-pass creates, or one added since the original was loaded), tables
-- first.  Their SQL, run unqualified on the original, creates them in main.
--   sql         the CREATE statement as the side holds it
SELECT s.sql FROM side.sqlite_schema s
WHERE s.type IN ('table', 'index') AND s.sql IS NOT NULL
  AND s.name NOT LIKE 'sqlite\_%' ESCAPE '\'
  AND NOT EXISTS (SELECT 1 FROM main.sqlite_schema m WHERE m.name = s.name)
ORDER BY s.type = 'index', s.name;
