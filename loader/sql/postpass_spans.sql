-- postpass_spans.sql — step spans (after the links: a step's GPU work is
-- what it launched): from the CPU start, or the first GPU work it launched
-- if earlier, to the end of its last GPU work, never before the previous
-- step's span ends (the TensorBoard definition).  ?1 = the first trace id.

WITH dev AS (
  SELECT g.trace_id, l.step, min(g.ts) AS a, max(g.ts + g.dur) AS b
  FROM _gpu g JOIN _gpu_link l ON l.id = g.id
  WHERE g.trace_id >= ?1 AND l.step IS NOT NULL AND g.ts IS NOT NULL
    AND g.dur IS NOT NULL
  GROUP BY g.trace_id, l.step
), raw AS (
  SELECT s.trace_id, s.step, s.ts,
    min(s.ts, coalesce(d.a, s.ts)) AS a, max(s.ts + s.dur, coalesce(d.b, s.ts)) AS b
  FROM step s LEFT JOIN dev d ON d.trace_id = s.trace_id AND d.step = s.step
  WHERE s.trace_id >= ?1
), ordered AS (
  SELECT trace_id, step, a, b, max(b) OVER (PARTITION BY trace_id
    ORDER BY ts, step ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_b
  FROM raw
), span AS (
  SELECT trace_id, step, max(a, coalesce(prev_b, a)) AS a, b FROM ordered
)
UPDATE step SET span_ts = span.a, span_dur = max(span.b - span.a, 0)
FROM span WHERE step.trace_id = span.trace_id AND step.step = span.step;
