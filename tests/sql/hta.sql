-- hta_ts, hta_end, hta_busy, hta_span: HTA's µs arithmetic (sqlext/hta.c).
-- Expected values derived by hand:
--   1.5 µs rounded up is 2; 1.5 + 0.3 = 1.8 rounded down is 1 (an event of
--   0.3 µs inside one microsecond ends before it starts);
--   1700000000000000.120 µs is the double 1700000000000000.0 (doubles there
--   are 0.25 apart, .120 is nearer .0 than .25): ceil keeps it; .130 is
--   nearer .25: ceil gives ...001.
SELECT 'ts_01', hta_ts(1500, 1);
SELECT 'ts_02', hta_ts(1500, 0);
SELECT 'ts_03', hta_ts(2000, 1);
SELECT 'ts_04', printf('%.3f', hta_ts(1700000000000000120, 1));
SELECT 'ts_05', printf('%.3f', hta_ts(1700000000000000130, 1));
SELECT 'ts_06', hta_ts(-1500, 1);
SELECT 'ts_07', hta_ts(NULL, 1) IS NULL;
SELECT 'ts_08', hta_ts(1.5, 1);
SELECT 'end_01', hta_end(1500, 300, 1, 0);
SELECT 'end_02', hta_end(1500, 300, 0, 1);
SELECT 'end_03', hta_end(1500, 1700, 1, 1);
SELECT 'end_04', hta_end(1500, NULL, 1, 0) IS NULL;
SELECT 'end_05', hta_end(1500, 300, 1, 'x');
-- merge: [0,10] and [5,20] one group (20), [30,29] alone (-1), [40,50] (10)
CREATE TABLE i(s, e);
INSERT INTO i VALUES (0, 10), (5, 20), (30, 29), (40, 50), (NULL, 3);
SELECT 'busy_01', hta_busy(s, e), hta_span(s, e) FROM i;
-- touching intervals join: 20
SELECT 'busy_02', hta_busy(s, e) FROM (SELECT 0 AS s, 10 AS e UNION ALL SELECT 10, 20);
-- equal starts keep the rows' order: a backwards interval first is a group
-- of its own (-1 + 4 = 3); after a longer one it is swallowed (4)
SELECT 'busy_03', hta_busy(s, e) FROM (SELECT 5 AS s, 4 AS e UNION ALL SELECT 5, 9);
SELECT 'busy_04', hta_busy(s, e) FROM (SELECT 5 AS s, 9 AS e UNION ALL SELECT 5, 4);
SELECT 'busy_05', hta_busy(s, e) IS NULL, hta_span(s, e) IS NULL FROM i WHERE s > 100;
SELECT 'busy_06', hta_busy(s, e) FROM (SELECT 'a' AS s, 1 AS e);
-- hta_start_ns, hta_end_ns: the same as integer ns (the critical path's):
-- a rounded trace's whole µs x 1000 (ts 1.5 µs -> 2000, its end at 1.5 +
-- 0.7 µs -> 2000: a 0 ns event HTA drops); else the ns as they are.
SELECT 'ns_01', hta_start_ns(1500, 1), hta_end_ns(1500, 700, 1), hta_start_ns(1500, 0),
  hta_end_ns(1500, 700, 0);
-- at an epoch timestamp the double nearest ...300.122 µs is ...300.0
SELECT 'ns_02', hta_start_ns(1712195495603300122, 1), hta_end_ns(1712195495603300122, 1000, 1);
SELECT 'ns_03', hta_start_ns(NULL, 1) IS NULL, hta_end_ns(1, NULL, 1) IS NULL,
  typeof(hta_end_ns(9223372036854775807, 10, 0));
SELECT 'ns_04', hta_start_ns(1.5, 1);
