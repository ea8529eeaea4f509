-- Measure: operators' first calls holding one-time library work, per operator name, per rank.
-- The first calls of an operator signature far longer than its later
-- calls (lib/38_claim.sql, report_first_call), the innermost of nested
-- ones only (the operator that holds the work, not the ones wrapping
-- it): calls per rank, their time in the analysed spans per rank step,
-- the longest and the median later call of its signature.
-- Builds: measure_first_call
-- Reads: _string, measure_time, report_first_call, report_span
CREATE TEMP TABLE measure_first_call (
  name      TEXT,     -- operator name
  calls     REAL,     -- first calls per rank (one per signature)
  call_ns   REAL,     -- their time inside the analysed spans per rank step, ns
  max_dur   INTEGER,  -- the longest, ns
  median_ns ANY       -- the median later call of the longest one's signature, ns
) STRICT;
INSERT INTO measure_first_call
  SELECT n.value AS name, count(DISTINCT f.event_id) / t.ranks AS calls,
    sum(min(f.ts + f.dur, s.end_ts) - max(f.ts, s.ts)) / t.n AS call_ns, max(f.dur) AS max_dur,
    f.median_ns AS median_ns -- (SQLite: the row of max(f.dur))
  FROM report_first_call f JOIN report_span s
    ON s.trace_id = f.trace_id AND f.ts < s.end_ts AND f.ts + f.dur > s.ts
  JOIN _string n ON n.id = f.name_id,
    (SELECT 1.0 * max(rank_steps, 1) AS n, 1.0 * ranks AS ranks FROM measure_time) t
  WHERE f.inner
  GROUP BY n.value;
