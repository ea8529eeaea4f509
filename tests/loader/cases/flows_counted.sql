-- unmatched flows counted while loading (integer ids only: flows.c, not
-- the SQL) equal the grouping of the stored flows by (category, id):
-- starts ac2g 2, 4 (twice), 6 (with a step), fwdbwd without id, 9 without
-- category; finishes fwdbwd 2 (ac2g 2 is another flow), ac2g 3, ac2g 9.
SELECT name, value FROM import_stats WHERE name LIKE 'flow%' ORDER BY name;
SELECT sum(s AND NOT f) AS starts, sum(f AND NOT s) AS finishes
FROM (SELECT max(ph = 's') AS s, max(ph = 'f') AS f FROM flow_event GROUP BY cat, flow_id);
