-- Measure: the DataLoader's pace, the bound on every consumer-side saving (one row).
-- A loop fed by a multi-process DataLoader (its next() ranges are named
-- enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__) waits in
-- next() whenever its workers are behind.  When most of its steady calls
-- wait, the workers set the pace: they produce the batches whatever the
-- loop does, so a faster loop only waits longer for the next batch, and
-- its steady step time stays the workers' time per batch.  So a paced
-- rank's loop saves nothing from a faster loop: only data_loading's fixes
-- shorten its step (issue 44's audit: param resnet_kineto's loop waits
-- 200-750 ms in 19 of its 29 later calls, and its 630 ms of copies and
-- 309 ms of Convolution were promised; the work after its last wait, the
-- first cut tried, is the profile's end: the next call would wait again).
-- A single-process DataLoader (_SingleProcessDataLoaderIter) loads in
-- next() itself, in series with the loop: it paces nothing.
-- The first call of an iterator (its workers start: report_first_call) is
-- start-up, not a wait for the pace.  A call waited when it took over
-- 1 ms and over twice the rank's shortest steady call, up to 10 ms (a
-- batch of many tensors costs the loop a few ms in every call, ready or
-- not: that is the loop's own work).  A rank is paced with at least 3
-- steady calls, more than half of which waited, or with 2 that both
-- waited (so both over 10 ms: a 3-step schedule whose first step is
-- warm-up leaves 2; issue 44's audit of unseen traces: a T4 MLP's loop of
-- about 12 ms waited 22 and 62 ms in them, and its gpu_idle and
-- dominant_category were promised).  One paced rank paces its
-- job: the job step is its slowest rank's, and the others wait for the
-- paced one at their collectives; so with any rank paced the bound is 0.
-- Builds: measure_pace
-- Reads: measure_time, report_first_call, report_marker
CREATE TEMP TABLE measure_pace (
  ranks    INTEGER,  -- ranks whose loop the DataLoader paces
  calls    INTEGER,  -- their steady next() calls in the analysed spans (first calls left out)
  waited   INTEGER,  -- of those, the calls that waited for a batch (see above)
  wait_ns  REAL,     -- the time those calls took, per rank step, ns
  bound_ns REAL      -- the most a saving of the loop (any time rule but data_loading) can shorten
                     --   a job step: 0 when a rank is paced, else NULL
) STRICT;
INSERT INTO measure_pace
WITH
-- the steady next() calls of a multi-process iterator, and which waited
steady AS (
  SELECT m.trace_id, m.dur, min(m.dur) OVER (PARTITION BY m.trace_id) AS shortest
  FROM report_marker m
  WHERE m.dataloader AND m.name GLOB '*_MultiProcessingDataLoaderIter*'
    AND m.event_id NOT IN (SELECT event_id FROM report_first_call)
),
paced AS (
  SELECT trace_id, count(*) AS calls, sum(waited) AS waited,
    sum(dur) FILTER (WHERE waited) AS wait_ns
  FROM (SELECT trace_id, dur, dur > max(1000000, min(2 * shortest, 10000000)) AS waited
        FROM steady)
  GROUP BY trace_id
  HAVING (count(*) >= 3 AND 2 * sum(waited) > count(*)) OR (count(*) = 2 AND sum(waited) = 2)
)
SELECT count(*) AS ranks, coalesce(sum(p.calls), 0) AS calls,
  coalesce(sum(p.waited), 0) AS waited, coalesce(sum(p.wait_ns), 0) / t.n AS wait_ns,
  CASE WHEN count(*) > 0 THEN 0.0 END AS bound_ns
FROM paced p, (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t;
