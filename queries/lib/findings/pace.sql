-- Measure: the DataLoader's pace, the bound on every consumer-side saving (one row).
-- A loop fed by a multi-process DataLoader (its next() ranges are named
-- enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__) waits in
-- next() whenever its workers are behind.  When most of its steady calls
-- wait, the workers set the pace: they produce the batches whatever the
-- loop does, so a faster loop only waits longer for the next batch.  A
-- saving in the loop before its last wait is lost in that wait (the batch
-- it returned was ready when it returned, not sooner); only the work after
-- the last wait can shorten the analysed time (issue 44's audit: param
-- resnet_kineto's loop waits 200-750 ms in 19 of its 29 later calls, and
-- its 630 ms of copies and 309 ms of Convolution were promised).
-- A single-process DataLoader (_SingleProcessDataLoaderIter) loads in
-- next() itself, in series with the loop: it paces nothing.
-- The first call of an iterator (its workers start: report_first_call) is
-- start-up, not a wait for the pace.  A call waited when it took over
-- 1 ms and over twice the rank's shortest steady call, up to 10 ms (a
-- batch of many tensors costs the loop a few ms in every call, ready or
-- not: that is the loop's own work).  A rank is paced with at least 3
-- steady calls, more than half of which waited.
-- Per rank, the loop's end: its last analysed span's end, or in a
-- whole-trace span its last GPU work's end (what follows is the profile's
-- end, claim layer 10 in lib/38_claim.sql).
-- Builds: measure_pace
-- Reads: measure_time, report_clip_gpu, report_first_call, report_marker, report_step_time,
--   report_window
CREATE TEMP TABLE measure_pace (
  ranks    INTEGER,  -- ranks whose loop the DataLoader paces
  calls    INTEGER,  -- their steady next() calls in the analysed spans (first calls left out)
  waited   INTEGER,  -- of those, the calls that waited for a batch (see above)
  wait_ns  REAL,     -- the time those calls took, per rank step, ns
  tail_ns  REAL,     -- the paced ranks' time from their last wait's end to their loop's end, per
                     --   rank step, ns
  bound_ns REAL      -- the most a saving of the loop (any time rule but data_loading) can shorten
                     --   a rank step: tail_ns, plus the other ranks' whole analysed time, ns;
                     --   NULL when no rank is paced
) STRICT;
INSERT INTO measure_pace
WITH
-- the steady next() calls of a multi-process iterator, and which waited
steady AS (
  SELECT m.trace_id, m.ts + m.dur AS end_ts, m.dur,
    min(m.dur) OVER (PARTITION BY m.trace_id) AS shortest
  FROM report_marker m
  WHERE m.dataloader AND m.name GLOB '*_MultiProcessingDataLoaderIter*'
    AND m.event_id NOT IN (SELECT event_id FROM report_first_call)
),
nxt AS (
  SELECT trace_id, end_ts, dur, dur > max(1000000, min(2 * shortest, 10000000)) AS waited
  FROM steady
),
paced AS (
  SELECT trace_id, count(*) AS calls, sum(waited) AS waited,
    sum(dur) FILTER (WHERE waited) AS wait_ns, max(end_ts) FILTER (WHERE waited) AS last_wait
  FROM nxt GROUP BY trace_id
  HAVING count(*) >= 3 AND 2 * sum(waited) > count(*)
),
-- per rank: the loop's end, and the analysed time
rank_end AS (
  SELECT w.trace_id,
    CASE WHEN w.whole THEN coalesce((SELECT max(g.b) FROM report_clip_gpu g
                                     WHERE g.trace_id = w.trace_id), w.end_ts)
         ELSE w.end_ts END AS loop_end,
    (SELECT sum(s.wall_ns) FROM report_step_time s WHERE s.trace_id = w.trace_id) AS wall_ns
  FROM report_window w
  WHERE w.trace_id IN (SELECT trace_id FROM report_step_time)
)
SELECT count(p.trace_id) AS ranks, coalesce(sum(p.calls), 0) AS calls,
  coalesce(sum(p.waited), 0) AS waited, coalesce(sum(p.wait_ns), 0) / t.n AS wait_ns,
  coalesce(sum(max(e.loop_end - p.last_wait, 0)), 0) / t.n AS tail_ns,
  CASE WHEN count(p.trace_id) > 0
       THEN sum(CASE WHEN p.trace_id IS NULL THEN e.wall_ns
                     ELSE max(e.loop_end - p.last_wait, 0) END) / t.n END AS bound_ns
FROM rank_end e LEFT JOIN paced p USING (trace_id),
  (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t;
