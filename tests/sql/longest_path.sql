-- profdb_longest_path: the longest path of a DAG as its edges' ids
-- (sqlext/longest_path.c).  Expected values derived by hand.
-- 1 -5-> 2 -(-7)-> 3 -2-> 4, 1 -1-> 3: dist(2) = 5, dist(3) = max(-2, 1) =
-- 1 (edge 3), dist(4) = 3: the longest path is edge 1 alone.
CREATE TABLE e(s, d, w, id);
INSERT INTO e VALUES (1, 2, 5, 1), (2, 3, -7, 2), (1, 3, 1, 3), (3, 4, 2, 4);
SELECT 'lp_01', profdb_longest_path(s, d, w, id) FROM e;
-- a chain 10 -> 20 -> 30 (3 + 4) beats 10 -> 30 (6): [11,12]
SELECT 'lp_02', profdb_longest_path(s, d, w, id)
FROM (SELECT 10 AS s, 20 AS d, 3 AS w, 11 AS id UNION ALL SELECT 20, 30, 4, 12
      UNION ALL SELECT 10, 30, 6, 13);
-- ties: the first predecessor in edge-id order wins (edge 21 before 22),
-- whatever order the rows come in
SELECT 'lp_03', profdb_longest_path(s, d, w, id)
FROM (SELECT 2 AS s, 3 AS d, 5 AS w, 22 AS id UNION ALL SELECT 1, 3, 5, 21);
-- only zero or negative weights: the empty path
SELECT 'lp_04', profdb_longest_path(s, d, w, id) FROM (SELECT 1 AS s, 2 AS d, -1 AS w, 1 AS id);
-- no rows: NULL
SELECT 'lp_05', profdb_longest_path(s, d, w, id) IS NULL FROM e WHERE 0;
-- a cycle, a non-integer argument: errors
SELECT 'lp_06', profdb_longest_path(s, d, w, id)
FROM (SELECT 1 AS s, 2 AS d, 1 AS w, 1 AS id UNION ALL SELECT 2, 1, 1, 2);
SELECT 'lp_07', profdb_longest_path(s, d, 'x', id) FROM e;
SELECT 'lp_08', profdb_longest_path(s, d, 1.5, id) FROM e;
-- a path whose length passes 64 bits: an error, not a wrapped sum
SELECT 'lp_09', profdb_longest_path(s, d, w, id)
FROM (SELECT 1 AS s, 2 AS d, 4611686018427387904 AS w, 1 AS id
      UNION ALL SELECT 2, 3, 4611686018427387904, 2);
