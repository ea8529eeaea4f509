-- Measure: dominant_category's action replayed (one row, none without a
-- dominant category; docs/definitions.md,
-- "Replay"): how much sooner the analysed spans end, per rank step, when
-- the dominant category's kernels lose the share of their time the action
-- takes off them (measure_dominant.action_ns over its dur), from the
-- replays of lib/63_critical_path_replay.sql (each span at half its kernels'
-- time and with them removed; in a dataset's report, from its summaries).
-- Between those the figure is an upper bound of the replay at that share:
-- a replay's gain never shrinks as more time is taken off, and grows no
-- faster than the time taken off (a faster kernel helps only until other
-- work binds the step's end: concave, through (0, 0)), so at a share
-- under half it is at most the half's, above half at most the removal's
-- and at most the share times twice the half's (session 56's review: the
-- straight line between the points, the first rule, stayed under it).
-- None (replay_ns NULL) with --scope trace or hta (the summaries carry
-- the default scope's spans alone), when an analysed
-- span has no replay (past the graph's cap), or when one is open: some of
-- its GPU work waited for something the graph does not hold (another
-- stream's unrecorded event, a peer rank), or its CPU work runs on several
-- threads whose waits for each other are not recorded, which the action
-- may release sooner (lib/63: report_cp_replay_span).
-- measure_replay_removed: per kernel category (and for the fill kernels,
-- and the launch calls), the gain with their time removed, the most any
-- action on some of them can give: the bound of low_gemm_efficiency (one
-- shape's kernels), memcpy (gpu:Memcpy), fill_kernels (fill) and
-- launch_bound (launch).
-- Builds: measure_replay, measure_replay_removed
-- Reads: measure_dominant, measure_replay_span, measure_time, report_cp_replay, report_gpu
CREATE TEMP TABLE measure_replay (
  share        REAL,     -- the share of the category's kernel time the action takes off
  replay_ns    REAL,     -- the replay's gain per rank step at that share, ns (NULL: not replayed)
  replay_bound INTEGER,  -- 1: measure_dominant.saving is over replay_ns / 0.99 (as
                         --   measure_replay_removed.binds_above)
  saving       ANY       -- dominant_category's saving: replay_ns where it binds, else
                         --   measure_dominant.saving, ns
) STRICT;
CREATE TEMP TABLE measure_replay_removed (
  kind        TEXT PRIMARY KEY,  -- gpu:CATEGORY (report_gpu.category), fill (the fill kernels)
                                 --   or launch (the launch calls)
  replay_ns   REAL,              -- how much sooner the analysed spans end per rank step with
                                 --   those kernels removed, ns (NULL: not replayed)
  binds_above REAL               -- a saving over this is bounded to replay_ns: replay_ns / 0.99
                                 --   (within 1% the two are one time rounded apart), ns
) STRICT;

INSERT INTO measure_replay_removed
SELECT kind, replay_ns, replay_ns / 0.99 FROM (
  SELECT c.kind,
    iif(EXISTS (SELECT 1 FROM measure_replay_span),
        (SELECT coalesce(sum(max(0, r.sooner_ns)), 0) FROM measure_replay_span p
         JOIN report_cp_replay r USING (trace_id, step)
         WHERE r.kind = c.kind AND r.keep = 0)
        / (SELECT 1.0 * max(rank_steps, 1) FROM measure_time), NULL) AS replay_ns
  FROM (SELECT DISTINCT 'gpu:' || category AS kind FROM report_gpu WHERE category IS NOT NULL
        UNION SELECT 'fill' UNION SELECT 'launch') c);

INSERT INTO measure_replay
WITH d AS (
  SELECT category, max(0.0, min(1.0, 1.0 * action_ns / max(dur, 1))) AS share FROM measure_dominant
),
span AS (  -- per analysed span: the gain at half and whole, 0 for a category not in it
  SELECT p.trace_id, p.step,
    coalesce((SELECT max(0, r.sooner_ns) FROM report_cp_replay r, d
              WHERE r.trace_id = p.trace_id AND r.step = p.step
                AND r.kind = 'gpu:' || d.category AND r.keep = 0.5), 0) AS half,
    coalesce((SELECT max(0, r.sooner_ns) FROM report_cp_replay r, d
              WHERE r.trace_id = p.trace_id AND r.step = p.step
                AND r.kind = 'gpu:' || d.category AND r.keep = 0), 0) AS whole
  FROM measure_replay_span p
)
SELECT share, replay_ns, coalesce(saving > replay_ns / 0.99, 0),  -- (as binds_above)
  iif(saving > replay_ns / 0.99, replay_ns, saving)
FROM (
  SELECT d.share, m.saving,
    CASE WHEN EXISTS (SELECT 1 FROM span)
         THEN (SELECT sum(CASE WHEN d.share <= 0.5 THEN half
                               ELSE min(whole, 2 * d.share * half) END)
               FROM span) / (SELECT 1.0 * max(rank_steps, 1) FROM measure_time) END AS replay_ns
  FROM d, measure_dominant m);
