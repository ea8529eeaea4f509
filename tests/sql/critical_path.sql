-- profdb_critical_path: HTA's critical-path graph of one span and its
-- longest path (sqlext/critical_path.c).  Expected values derived by hand.
-- Columns of an 'ev' row: id, start, end, gpu, pid, tid, lock, blocking,
-- parent, NULL; of an 'edge' row: t, o, sub, src, src_end, dst, dst_end,
-- w, type, attributed event.
--
-- cp_01: one thread (µs): aten::foo (1) [10, 30] launches K (3, on the GPU
-- at [40, 90]) by cudaLaunchKernel (2, takes the lock) [12, 16]; a
-- blocking stream sync (4) [35, 95]; aten::bar (5) [100, 110].  Given: K's
-- run (50), its launch (28, from the call's start), the sync (0, K's end
-- to the call's end).  Graph: the lock edge 2.s -> 2.e (4, operator);
-- the stack foo.s -> 2.s (2), 2.e -> foo.e (14), foo.e -> 4.s (0,
-- dependency: nothing open), 4.s -> 4.e (0: blocking), 4.e -> bar.s (0,
-- dependency), bar.s -> bar.e (10).  Longest: 2 + 28 + 50 + 0 + 0 + 10 = 90.
CREATE TABLE span(r, a, b, c, d, e, f, g, h, i, j);
INSERT INTO span VALUES
  ('ev', 1, 10, 30, 0, 1, 1, 0, 0, NULL, NULL),
  ('ev', 2, 12, 16, 0, 1, 1, 1, 0, 1, NULL),
  ('ev', 3, 40, 90, 1, NULL, NULL, 0, 0, NULL, NULL),
  ('ev', 4, 35, 95, 0, 1, 1, 0, 1, NULL, NULL),
  ('ev', 5, 100, 110, 0, 1, 1, 0, 0, NULL, NULL),
  ('edge', 40, 3, 0, 3, 0, 3, 1, 50, 'operator', 3),
  ('edge', 40, 3, 2, 2, 0, 3, 0, 28, 'launch', 3),
  ('edge', 95, -4, 0, 3, 1, 4, 1, 0, 'sync', 4);
SELECT 'cp_01', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j) FROM span;
-- cp_02: a given edge from an event not in the span is left out, however heavy
SELECT 'cp_02', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM span UNION ALL
      SELECT 'edge', 0, 99, 0, 99, 0, 5, 0, 1000000, 'operator', 99);
-- cp_03: the runtime lock across two threads: L1 (1) [0, 10] on thread 1,
-- L2 (2) [2, 5] on thread 2, both taking it.  At L2's end the starts since
-- the last end, last first: L2.s -> L2.e (3, operator), L1.s -> L2.e (0,
-- dependency); at L1's end, the node before (L2's end) is an end: L2.e ->
-- L1.e (0).  No call-stack edge (both nodes of a thread take the lock).
-- Longest: 3; the path ends at the first node of that distance (L2's end).
SELECT 'cp_03', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT 'ev' AS r, 1 AS a, 0 AS b, 10 AS c, 0 AS d, 1 AS e, 1 AS f, 1 AS g, 0 AS h,
        NULL AS i, NULL AS j
      UNION ALL SELECT 'ev', 2, 2, 5, 0, 1, 2, 1, 0, NULL, NULL);
-- cp_04: threads keyed as SQLite orders values (a text tid apart from an
-- integer one): each thread's own stack, the longer (20) the path
SELECT 'cp_04', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT 'ev' AS r, 1 AS a, 0 AS b, 20 AS c, 0 AS d, 1 AS e, '7' AS f, 0 AS g, 0 AS h,
        NULL AS i, NULL AS j
      UNION ALL SELECT 'ev', 2, 5, 10, 0, 1, 7, 0, 0, NULL, NULL);
-- cp_05: no rows: NULL
SELECT 'cp_05', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j) IS NULL FROM span WHERE 0;
-- cp_06..cp_09: errors (a bad row, a time not an integer, an unknown type, a
-- cycle: K's end back to its start)
SELECT 'cp_06', profdb_critical_path('x', 1, 2, 3, 0, 1, 1, 0, 0, NULL, NULL);
SELECT 'cp_07', profdb_critical_path('ev', 1, 2.5, 3, 0, 1, 1, 0, 0, NULL, NULL);
SELECT 'cp_08', profdb_critical_path('edge', 1, 1, 0, 1, 0, 1, 1, 5, 'waiting', NULL);
SELECT 'cp_09', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT 'ev' AS r, 1 AS a, 0 AS b, 10 AS c, 1 AS d, NULL AS e, NULL AS f, 0 AS g, 0 AS h,
        NULL AS i, NULL AS j
      UNION ALL SELECT 'edge', 0, 1, 0, 1, 0, 1, 1, 10, 'operator', 1
      UNION ALL SELECT 'edge', 10, 1, 1, 1, 1, 1, 0, 1, 'sync', NULL);
-- cp_10..cp_12: what-ifs on cp_01 ('scale' rows: event id, factor, type or
-- NULL).  K's run at half (25): 2 + 28 + 25 + 0 + 0 + 10 = 65; K's edges
-- of every type at 0 (its launch and run): the path still runs through K's
-- nodes at 2 + 0 + 0 + 10 = 12 < the stack alone (2 + 4 + 14 + 0 + 0 + 10
-- = 30), which becomes the path; K's launch only at 0: 2 + 0 + 50 + 10 = 62.
SELECT 'cp_10', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM span UNION ALL
      SELECT 'scale', 3, 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT 'cp_11', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM span UNION ALL
      SELECT 'scale', 3, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT 'cp_12', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM span UNION ALL
      SELECT 'scale', 3, 0, 'launch', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- cp_13..cp_14: errors (a negative factor, an unknown type)
SELECT 'cp_13', profdb_critical_path('scale', 3, -1, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL);
SELECT 'cp_14', profdb_critical_path('scale', 3, 1, 'waiting', NULL, NULL, NULL, NULL, NULL,
  NULL, NULL);
-- cp_15: what-ifs of one event multiply, rounded once: K's run x 0.5 (its
-- operator edges) x 0.5 (all its edges) = 12.5 -> 13, its launch x 0.5 =
-- 14: 2 + 14 + 13 + 0 + 0 + 10 = 39
SELECT 'cp_15', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM span UNION ALL
      SELECT 'scale', 3, 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT 'scale', 3, 0.5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- cp_16: cp_03's calls in two lock domains (J: the process whose runtime
-- lock each takes, e.g. two ranks of a job): no lock edge crosses them, so
-- L1's own run (10) is an edge of its domain and the path
SELECT 'cp_16', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT 'ev' AS r, 1 AS a, 0 AS b, 10 AS c, 0 AS d, 1 AS e, 1 AS f, 1 AS g, 0 AS h,
        NULL AS i, 1 AS j
      UNION ALL SELECT 'ev', 2, 2, 5, 0, 1, 2, 1, 0, NULL, 2);
-- cp_17..cp_21: 'wait' rows (a lock-taking call, the GPU operation it
-- waited for).  L (3, lock) [0, 5] launches K (2) [10, 90]; C (1, lock,
-- blocking) [6, 100] waits for K.  Given: K's launch (10), run (80), and
-- the sync from K's end to C's end (10, C's own return).  Lock edges: L 5,
-- C 94 (its wait as host time, HTA's).  Paths: the host 5 + 0 + 94 = 99,
-- the GPU 10 + 80 + 10 = 100.
CREATE TABLE wspan(r, a, b, c, d, e, f, g, h, i, j);
INSERT INTO wspan VALUES
  ('ev', 3, 0, 5, 0, 1, 1, 1, 0, NULL, NULL),
  ('ev', 1, 6, 100, 0, 1, 1, 1, 1, NULL, NULL),
  ('ev', 2, 10, 90, 1, NULL, NULL, 0, 0, NULL, NULL),
  ('edge', 10, 2, 0, 2, 0, 2, 1, 80, 'operator', 2),
  ('edge', 10, 2, 2, 3, 0, 2, 0, 10, 'launch', 2),
  ('edge', 100, 9, 0, 2, 1, 1, 1, 10, 'operator', 1),
  ('wait', 1, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- cp_17: K at half: its chain ends 40 sooner, so C's wait shrinks by 40
-- (its lock edge 54): the host 5 + 0 + 54 = 59 < the GPU 10 + 40 + 10 = 60
-- (without the wait row the host's 99 would stay the path)
SELECT 'cp_17', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT 'cp_17b', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan WHERE r <> 'wait' UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- cp_18: no what-if: the path as without the wait row (the GPU's 100)
SELECT 'cp_18', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j) FROM wspan;
-- cp_19: K's edges at 0 (launch and run: 90 sooner) shrink C's wait by at
-- most the 84 it waited (6 to K's end at 90): its lock edge 10, the host 15
SELECT 'cp_19', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan UNION ALL
      SELECT 'scale', 2, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- cp_20: a chain: K1 (2) [10, 50] then K2 (4) [50, 90] after it on its
-- stream (kernel_kernel 0); C waits for K2.  K1 at half: K2 ends 20
-- sooner, C's lock edge 74: the host 79 = the GPU 10 + 20 + 0 + 40 + 10 = 80
SELECT 'cp_20', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT 'ev' AS r, 3 AS a, 0 AS b, 5 AS c, 0 AS d, 1 AS e, 1 AS f, 1 AS g, 0 AS h,
        NULL AS i, NULL AS j
      UNION ALL SELECT 'ev', 1, 6, 100, 0, 1, 1, 1, 1, NULL, NULL
      UNION ALL SELECT 'ev', 2, 10, 50, 1, NULL, NULL, 0, 0, NULL, NULL
      UNION ALL SELECT 'ev', 4, 50, 90, 1, NULL, NULL, 0, 0, NULL, NULL
      UNION ALL SELECT 'edge', 10, 2, 0, 2, 0, 2, 1, 40, 'operator', 2
      UNION ALL SELECT 'edge', 10, 2, 2, 3, 0, 2, 0, 10, 'launch', 2
      UNION ALL SELECT 'edge', 50, 4, 0, 4, 0, 4, 1, 40, 'operator', 4
      UNION ALL SELECT 'edge', 50, 4, 2, 2, 1, 4, 0, 0, 'kernel_kernel', 2
      UNION ALL SELECT 'edge', 100, 9, 0, 4, 1, 1, 1, 10, 'operator', 1
      UNION ALL SELECT 'wait', 1, 4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
      UNION ALL SELECT 'scale', 2, 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- cp_21: a wait needs integer ids
SELECT 'cp_21', profdb_critical_path('wait', 1, 'x', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL);
-- rp_01..rp_05: profdb_replay, the same rows replayed: how much sooner the
-- span's last node comes.  wspan plus B (5) [105, 110] on C's thread after
-- it (a 5 us gap the host spent unrecorded, kept).  Without what-ifs: 0.
SELECT 'rp_01', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan UNION ALL SELECT 'ev', 5, 105, 110, 0, 1, 1, 0, 0, NULL, NULL);
-- rp_02: K at half ends at 50; C, which waited for it, returns its own 10
-- after (60, not 100: its own lock edge holds only the time after K's end),
-- B follows 5 later: [65, 70], its end 40 sooner
SELECT 'rp_02', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan WHERE r <> 'wait' UNION ALL
      SELECT 'ev', 5, 105, 110, 0, 1, 1, 0, 0, NULL, NULL UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- rp_03: a GPU operation K2 (6) [95, 112] nothing enters keeps its time: the
-- span ends at 112 either way
SELECT 'rp_03', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan UNION ALL
      SELECT 'ev', 5, 105, 110, 0, 1, 1, 0, 0, NULL, NULL UNION ALL
      SELECT 'ev', 6, 95, 112, 1, NULL, NULL, 0, 0, NULL, NULL UNION ALL
      SELECT 'edge', 95, 6, 0, 6, 0, 6, 1, 17, 'operator', 6 UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- rp_04: K twice as long: everything after it 80 later (negative)
SELECT 'rp_04', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan UNION ALL
      SELECT 'ev', 5, 105, 110, 0, 1, 1, 0, 0, NULL, NULL UNION ALL
      SELECT 'scale', 2, 2, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- rp_05: no rows: NULL
SELECT 'rp_05', profdb_replay(r, a, b, c, d, e, f, g, h, i, j) FROM wspan WHERE 0;
-- rp_06: two lock calls on two threads, C1 (1) [0, 100] and C2 (2) [10,
-- 15]: C2's end takes C1's start, so C1's own time has no lock edge; the
-- replay gives it one: 0 without what-ifs (was 85)
SELECT 'rp_06', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT 'ev' AS r, 1 AS a, 0 AS b, 100 AS c, 0 AS d, 1 AS e, 1 AS f, 1 AS g, 0 AS h,
        NULL AS i, NULL AS j
      UNION ALL SELECT 'ev', 2, 10, 15, 0, 1, 2, 1, 0, NULL, NULL);
-- rp_07: wspan with HTA's host-sync edge (type 'sync', 0): the call's
-- return is its recorded time after K's end all the same: 0 (was 10)
SELECT 'rp_07', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan WHERE NOT (r = 'edge' AND a = 100) UNION ALL
      SELECT 'edge', 100, 9, 0, 2, 1, 1, 1, 0, 'sync', NULL);
-- cp_22: three copies of cp_19's wait row shrink C's lock edge once, by
-- at most its wait: the same path as cp_19
SELECT 'cp_22', profdb_critical_path(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan UNION ALL SELECT * FROM wspan WHERE r = 'wait' UNION ALL
      SELECT * FROM wspan WHERE r = 'wait' UNION ALL
      SELECT 'scale', 2, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- rp_08, rp_09: errors: two events with one id, an event's duration past
-- 64 bits.  rp_10: a run of 2^62 ns a million times longer weighs the
-- clamp (9.2e18): 4.59e18 later.  rp_11: two such runs one after the
-- other: a replayed time past 64 bits, an error
SELECT 'rp_08', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan UNION ALL SELECT 'ev', 2, 200, 300, 0, 1, 1, 0, 0, NULL, NULL);
SELECT 'rp_09', profdb_replay('ev', 1, -9223372036854775807, 9223372036854775807, 0, 1, 1, 0,
  0, NULL, NULL);
CREATE TABLE huge(r, a, b, c, d, e, f, g, h, i, j);
INSERT INTO huge VALUES
  ('ev', 2, 0, 4611686018427387904, 1, NULL, NULL, 0, 0, NULL, NULL),
  ('edge', 0, 2, 0, 2, 0, 2, 1, 4611686018427387904, 'operator', 2),
  ('edge', 1, 3, 0, 2, 1, 3, 0, 0, 'kernel_kernel', 2),
  ('scale', 2, 1000000, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT 'rp_10', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM huge
      UNION ALL SELECT 'ev', 3, 4611686018427387904, 4611686018427387905, 1, NULL, NULL, 0, 0,
        NULL, NULL);
SELECT 'rp_11', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM huge
      UNION ALL SELECT 'ev', 3, 4611686018427387904, 9223372036854775807, 1, NULL, NULL, 0, 0,
        NULL, NULL
      UNION ALL SELECT 'edge', 2, 3, 1, 3, 0, 3, 1, 4611686018427387903, 'operator', 3
      UNION ALL SELECT 'scale', 3, 1000000, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- re_01: profdb_replay_each, rp_02 and rp_04 as two scenarios ('half',
-- 'twice') in one call, plus a row of every scenario that scales nothing
-- of the span (event 99): each scenario's shortening, in name order, the
-- same as profdb_replay's on its rows alone (40, -80)
SELECT 're_01', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan WHERE r <> 'wait' UNION ALL
      SELECT 'ev', 5, 105, 110, 0, 1, 1, 0, 0, NULL, NULL UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', 'half', NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT 'scale', 2, 2, 'operator', 'twice', NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT 'scale', 99, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- re_02: a row without a scenario applies to every one: K at half in both,
-- then at half again in the second (20 of K's 80 ns: it ends at 30, C
-- returns its 10 after, 60 sooner), a name JSON escapes (q"\); 'half'
-- scales C by 1 (no change): 40
SELECT 're_02', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan WHERE r <> 'wait' UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', 'q"\', NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT 'scale', 3, 1, 'operator', 'half', NULL, NULL, NULL, NULL, NULL, NULL);
-- re_03: no scenario: '{}'; no rows: NULL
SELECT 're_03', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j) FROM wspan;
SELECT 're_04', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j) FROM wspan WHERE 0;
-- re_05: a scenario is for profdb_replay_each alone
SELECT 're_05', profdb_replay(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', 'half', NULL, NULL, NULL, NULL, NULL, NULL);
-- re_06: 4097 scenarios: an error (each is a replay; names are looked up one by one)
WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 4097)
SELECT 're_06', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j)
FROM (SELECT * FROM wspan WHERE r <> 'wait' UNION ALL
      SELECT 'scale', 2, 0.5, 'operator', 's' || k, NULL, NULL, NULL, NULL, NULL, NULL FROM n);
-- rk_01..rk_07: what-ifs by kind ('scale_kind') and threads left out
-- ('idle'), profdb_replay_each with each event's two kinds (K, L).  kspan:
-- wspan without its wait row, K (2) of kind 'gpu:k' and second kind
-- 'fill', B (5) [105, 110] of kind 'runtime' on a thread of its own (1, 2).
CREATE TABLE kspan AS
SELECT w.*, iif(r = 'ev' AND a = 2, 'gpu:k', NULL) AS k, iif(r = 'ev' AND a = 2, 'fill', NULL) AS l
FROM wspan w WHERE r <> 'wait'
UNION ALL SELECT 'ev', 5, 105, 110, 0, 1, 2, 0, 0, NULL, NULL, 'runtime', NULL;
-- rk_01: re_01's scenarios by kind: each scales K as its 'scale' rows did,
-- but B's thread holds the span's end at 110: 'half' 0, 'twice' -70 (C ends
-- at 180); a kind no event has names no scenario
SELECT 'rk_01', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT * FROM kspan UNION ALL
      SELECT 'scale_kind', 'gpu:k', 0.5, 'operator', 'half', NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL UNION ALL
      SELECT 'scale_kind', 'gpu:k', 2, 'operator', 'twice', NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL UNION ALL
      SELECT 'scale_kind', 'gpu:none', 0, NULL, 'nothing', NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL);
-- rk_02: B's thread left out: re_01's 40 and -80, as without B's row; the
-- second kind (L) scales K too ('fill': 40); 'runtime', whose one event is
-- on the thread left out, is replayed and changes nothing (0).  kwhatif:
-- those four what-ifs by kind.
CREATE TABLE kwhatif AS
SELECT 'scale_kind' AS r, 'gpu:k' AS a, 0.5 AS b, 'operator' AS c, 'half' AS d, NULL AS e,
  NULL AS f, NULL AS g, NULL AS h, NULL AS i, NULL AS j, NULL AS k, NULL AS l
UNION ALL SELECT 'scale_kind', 'gpu:k', 2, 'operator', 'twice', NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL
UNION ALL SELECT 'scale_kind', 'fill', 0.5, 'operator', 'fill', NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL
UNION ALL SELECT 'scale_kind', 'runtime', 0.5, 'operator', 'rt', NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL;
SELECT 'rk_02', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT * FROM kspan UNION ALL
      SELECT 'idle', 1, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT * FROM kwhatif);
-- rk_03: profdb_replay by kind (no scenario): rp_02's 40
SELECT 'rk_03', profdb_replay(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT * FROM kspan UNION ALL
      SELECT 'idle', 1, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT 'scale_kind', 'gpu:k', 0.5, 'operator', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL);
-- rk_04: every CPU thread left out: K alone [10, 90], at half 40 sooner
SELECT 'rk_04', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT * FROM kspan UNION ALL
      SELECT 'idle', 1, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT 'idle', 1, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT 'scale_kind', 'gpu:k', 0.5, 'operator', 'half', NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL);
-- rk_08: rk_02 with the 'idle' row first (as lib/63 gives it: B is not
-- kept at all): the same
SELECT 'rk_08', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT 'idle' AS r, 1 AS a, 2 AS b, NULL AS c, NULL AS d, NULL AS e, NULL AS f, NULL AS g,
        NULL AS h, NULL AS i, NULL AS j, NULL AS k, NULL AS l UNION ALL
      SELECT * FROM kspan UNION ALL SELECT * FROM kwhatif);
-- rk_09: a left-out thread's events, given after its 'idle' row, do not
-- count toward the 1-million-event cap: kspan plus a million of them still
-- replays (rk_04's 40); the same events on a kept thread put the span past
-- it (NULL)
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000000)
SELECT 'rk_09', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT 'idle' AS r, 1 AS a, 1 AS b, NULL AS c, NULL AS d, NULL AS e, NULL AS f, NULL AS g,
        NULL AS h, NULL AS i, NULL AS j, NULL AS k, NULL AS l UNION ALL
      SELECT 'idle', 1, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL UNION ALL
      SELECT * FROM kspan UNION ALL
      SELECT 'ev', 1000 + x, 200 + x, 201 + x, 0, 1, 2, 0, 0, NULL, NULL, 'runtime', NULL
      FROM n UNION ALL
      SELECT 'scale_kind', 'gpu:k', 0.5, 'operator', 'half', NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000000)
SELECT 'rk_09b', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l) IS NULL
FROM (SELECT * FROM kspan UNION ALL
      SELECT 'ev', 1000 + x, 200 + x, 201 + x, 0, 1, 3, 0, 0, NULL, NULL, 'runtime', NULL
      FROM n);
-- rk_05..rk_07: errors: a kind that is not text, 257 what-ifs by kind, 257
-- threads left out (each event is checked against every one)
SELECT 'rk_05', profdb_replay_each('scale_kind', 1, 0.5, NULL, 'x', NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 257)
SELECT 'rk_06', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT * FROM kspan UNION ALL
      SELECT 'scale_kind', 'gpu:k', 0.5, NULL, 's' || x, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL FROM n);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 257)
SELECT 'rk_07', profdb_replay_each(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT * FROM kspan UNION ALL
      SELECT 'idle', 1, 100 + x, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
      FROM n);
-- cp_sum_01: profdb_critical_path_sum, cp_01's span with each event's kind
-- and name (K, L): the path's edges summed by kind and name.  aten::foo (1)
-- and aten::bar (5) share name 101: cpu_op 2 + 10 over 2 edges; K's launch
-- edge is 'launch' named after K (103), its run its kind gpu:GEMM; the
-- sync (0) 'sync'; the dependency edge has no event (no name).
SELECT 'cp_sum_01', profdb_critical_path_sum(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT s.*, CASE s.a WHEN 1 THEN 'cpu_op' WHEN 2 THEN 'runtime' WHEN 3 THEN 'gpu:GEMM'
                          WHEN 4 THEN 'runtime' WHEN 5 THEN 'cpu_op' END AS k,
        CASE s.a WHEN 5 THEN 101 ELSE 100 + s.a END AS l
      FROM span s WHERE s.r = 'ev'
      UNION ALL SELECT s.*, NULL, NULL FROM span s WHERE s.r = 'edge');
-- cp_sum_02: a sync edge that weighs is collective_wait; an event without a
-- kind counts as cpu_op; a kind is written as a JSON string.  GPU op 1
-- [0, 10] ('gpu:x"y\z', name 7), a sync (10) from its end to CPU op 2's
-- start [20, 30] (no kind, no name): 10 + 10 + 10.
SELECT 'cp_sum_02', profdb_critical_path_sum(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT 'ev' AS r, 1 AS a, 0 AS b, 10 AS c, 1 AS d, NULL AS e, NULL AS f, 0 AS g, 0 AS h,
        NULL AS i, NULL AS j, 'gpu:x"y\z' AS k, 7 AS l
      UNION ALL SELECT 'ev', 2, 20, 30, 0, 1, 1, 0, 0, NULL, NULL, NULL, NULL
      UNION ALL SELECT 'edge', 0, 1, 0, 1, 0, 1, 1, 10, 'operator', 1, NULL, NULL
      UNION ALL SELECT 'edge', 10, 1, 1, 1, 1, 2, 0, 10, 'sync', 2, NULL, NULL);
-- cp_sum_03: a name that is not an integer is an error; no rows: NULL
SELECT 'cp_sum_03', profdb_critical_path_sum('ev', 1, 0, 1, 0, 1, 1, 0, 0, NULL, NULL, 'cpu_op', 'x');
SELECT 'cp_sum_04', profdb_critical_path_sum(r, a, b, c, d, e, f, g, h, i, j, NULL, NULL) IS NULL
FROM span WHERE 0;
-- cp_sum_05: an edge attributed to an event outside the span comes back
-- per that event, kind NULL (an 'operator' edge), for SQL to name.  One
-- thread: X (1) [0, 100] (name 11) around A (2) [10, 20] and B (3) [30, 40]
-- (names 12, 13) whose recorded parent is a frame (99) that is no event of
-- the span: A's end to B's start (10) is the frame's time.  Path: X 10 +
-- A 10 + frame 10 + B 10 + X 60 = 100.
SELECT 'cp_sum_05', profdb_critical_path_sum(r, a, b, c, d, e, f, g, h, i, j, k, l)
FROM (SELECT 'ev' AS r, 1 AS a, 0 AS b, 100 AS c, 0 AS d, 1 AS e, 1 AS f, 0 AS g, 0 AS h,
        NULL AS i, NULL AS j, 'cpu_op' AS k, 11 AS l
      UNION ALL SELECT 'ev', 2, 10, 20, 0, 1, 1, 0, 0, 99, NULL, 'cpu_op', 12
      UNION ALL SELECT 'ev', 3, 30, 40, 0, 1, 1, 0, 0, 99, NULL, 'cpu_op', 13);
-- cp_sum_06: hostile kinds (a blob, invalid UTF-8, a 100 kB text) are kept as
-- text, each once, and returned as JSON strings; a REAL name is an error
SELECT 'cp_sum_06', length(profdb_critical_path_sum(r, a, b, c, d, e, f, g, h, i, j, k, l))
FROM (SELECT 'ev' AS r, 1 AS a, 0 AS b, 10 AS c, 0 AS d, 1 AS e, 1 AS f, 0 AS g, 0 AS h,
        NULL AS i, NULL AS j, X'00FF80C0' AS k, 1 AS l
      UNION ALL SELECT 'ev', 2, 20, 30, 0, 1, 1, 0, 0, NULL, NULL, CAST(X'C3FFFE' AS TEXT), 2
      UNION ALL SELECT 'ev', 3, 40, 50, 0, 1, 1, 0, 0, NULL, NULL, printf('%.*c', 100000, 'x'), 3);
SELECT 'cp_sum_07', profdb_critical_path_sum('ev', 1, 0, 1, 0, 1, 1, 0, 0, NULL, NULL, 'cpu_op', 1.5);
