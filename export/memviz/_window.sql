-- memory_viz export: the window's allocator events, as a range of seq
-- (positions in the device's trace), from --from/--to (times) or
-- --at-peak (the events around the peak of mem_peak).
-- Parameters: :snapshot, :device; :from, :to (ns since the epoch, NULL
-- when not given), :from_rel, :to_rel (1: relative to the device's first
-- event's time); :at_peak (1 for --at-peak), :around (events kept each side
-- of the peak).
-- Output (one row):
--   events      allocator events of the device
--   timed       events that carry a time (time_us)
--   t0_ns       the first event's time (ns), NULL when untimed
--   first_seq   the window's first event (NULL: the window holds none)
--   last_seq    its last event
--   peak_seq    mem_peak's peak_seq (the first event at the peak; NULL: the
--               state before the first event)
--   peak_allocated  mem_peak's peak_allocated (bytes, requested sizes)
WITH ev AS (
  SELECT seq, time_us FROM _alloc_event WHERE snapshot_id = :snapshot AND device = :device
), t AS (
  SELECT min(time_us) * 1000 AS t0 FROM ev
), w AS (
  SELECT :from + CASE WHEN :from_rel THEN t.t0 ELSE 0 END AS lo,
    :to + CASE WHEN :to_rel THEN t.t0 ELSE 0 END AS hi
  FROM t
), p AS (
  SELECT peak_seq, peak_allocated FROM mem_peak(:snapshot, :device)
)
SELECT (SELECT count(*) FROM ev) AS events,
  (SELECT count(time_us) FROM ev) AS timed,
  (SELECT t0 FROM t) AS t0_ns,
  CASE WHEN :at_peak THEN
    (SELECT min(seq) FROM ev WHERE seq >= coalesce((SELECT peak_seq FROM p), 0) - :around)
  ELSE (SELECT min(seq) FROM ev, w
        WHERE (w.lo IS NULL OR ev.time_us * 1000 >= w.lo)
          AND (w.hi IS NULL OR ev.time_us * 1000 < w.hi)) END AS first_seq,
  CASE WHEN :at_peak THEN
    (SELECT max(seq) FROM ev WHERE seq <= coalesce((SELECT peak_seq FROM p), -1) + :around)
  ELSE (SELECT max(seq) FROM ev, w
        WHERE (w.lo IS NULL OR ev.time_us * 1000 >= w.lo)
          AND (w.hi IS NULL OR ev.time_us * 1000 < w.hi)) END AS last_seq,
  (SELECT peak_seq FROM p) AS peak_seq,
  (SELECT peak_allocated FROM p) AS peak_allocated;
