-- interval_union, interval_overlap
CREATE TABLE i(s, e, k);
INSERT INTO i VALUES (0, 10, 1), (5, 15, 0), (20, 30, 1), (25, 26, 0), (40, 40, 1), (NULL, 5, 0);
SELECT 'union_01', interval_union(s, e) FROM i;
SELECT 'union_02', interval_union(s, e) FROM i WHERE k = 1;
SELECT 'union_03', interval_union(s, e) IS NULL FROM i WHERE k = 9;
SELECT 'union_04', interval_union(s, e) FROM (SELECT 0.5 AS s, 1.75 AS e);
SELECT 'union_05', interval_union(s, e) FROM (SELECT 3 AS s, 3 AS e);
SELECT 'union_06', interval_union(s, e) FROM (SELECT 5 AS s, 1 AS e);
SELECT 'union_07', interval_union(s, e) FROM (SELECT 'a' AS s, 1 AS e);
SELECT 'union_08', interval_union(1, 2, 3);
SELECT 'union_09', interval_union(s, e) FROM (SELECT 0 AS s, 4611686018427387904 AS e
  UNION ALL SELECT 4611686018427387904, 4611686018427387905);
SELECT 'overlap_01', interval_overlap(s, e, k) FROM i;
SELECT 'overlap_02', interval_overlap(s, e, k) FROM i WHERE k = 1;
SELECT 'overlap_03', interval_overlap(s, e, k) IS NULL FROM i WHERE k = 9;
SELECT 'overlap_04', interval_overlap(s, e, 'x') FROM i;
SELECT 'overlap_05', interval_overlap(s, e, NULL) IS NULL FROM i;
-- interval_layers: the lowest layer present wins; parts sum to the union
CREATE TABLE l(s, e, k);
INSERT INTO l VALUES (0, 10, 1), (5, 15, 0), (20, 30, 2), (22, 25, 2), (28, 40, 1), (50, 50, 0),
  (NULL, 3, 0);
SELECT 'layers_01', interval_layers(s, e, k) FROM l;
SELECT 'layers_02', interval_layers(s, e, k, 4) FROM l;
SELECT 'layers_03', (SELECT interval_union(s, e) FROM l) =
  (SELECT sum(value) FROM json_each((SELECT interval_layers(s, e, k) FROM l)));
SELECT 'layers_04', interval_layers(s, e, k) IS NULL FROM l WHERE k = 9;
SELECT 'layers_05', interval_layers(0, 4611686018427387904, 0) FROM (SELECT 1);
SELECT 'layers_06', interval_layers(s, e, k, 2) FROM l;
SELECT 'layers_07', interval_layers(0.5, 1, 0);
SELECT 'layers_08', interval_layers(5, 1, 0);
SELECT 'layers_09', interval_layers(0, 1, 64);
SELECT 'layers_10', interval_layers(0, 1, 0, 0);
-- rows in start order (an integer interval that starts inside the last one
-- kept extends it): the union and overlap of 2,000 overlapping, nested and
-- touching intervals equal those of the same rows in another order, and
-- the union equals the islands counted in SQL
CREATE TABLE r AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000)
  SELECT x, (x * 7919) % 10007 AS s, (x * 7919) % 10007 + (x * 31) % 97 AS e, x % 3 = 0 AS k
  FROM n;
CREATE VIEW r_islands AS
  WITH o AS (SELECT s, e, max(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING
                                        AND 1 PRECEDING) AS before FROM r),
  g AS (SELECT s, e, sum(before IS NULL OR s > before) OVER (ORDER BY s, e ROWS UNBOUNDED
                                                             PRECEDING) AS island FROM o)
  SELECT sum(len) AS total FROM (SELECT max(e) - min(s) AS len FROM g GROUP BY island);
SELECT 'union_10', (SELECT interval_union(s, e) FROM (SELECT * FROM r ORDER BY s)),
  (SELECT interval_union(s, e) FROM (SELECT * FROM r ORDER BY x)), (SELECT total FROM r_islands);
SELECT 'overlap_06', (SELECT interval_overlap(s, e, k) FROM (SELECT * FROM r ORDER BY s)) =
  (SELECT interval_overlap(s, e, k) FROM (SELECT * FROM r ORDER BY x)),
  (SELECT interval_overlap(s, e, k) FROM (SELECT * FROM r ORDER BY s)) > 0;
-- integer rows extended in start order, then a REAL bound: REAL, the same union
SELECT 'union_11', interval_union(s, e) FROM (SELECT 0 AS s, 10 AS e UNION ALL SELECT 5, 20
  UNION ALL SELECT 30, 40.5 UNION ALL SELECT 2, 3);
-- a row skipped (NULL set) leaves the result as the rows used make it: integer
SELECT 'overlap_07', interval_overlap(s, e, k), typeof(interval_overlap(s, e, k))
FROM (SELECT 0 AS s, 10 AS e, 1 AS k UNION ALL SELECT 5, 15, 0 UNION ALL SELECT 1.5, 2, NULL);
