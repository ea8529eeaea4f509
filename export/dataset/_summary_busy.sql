-- _summary_busy.sql — after a summary's rows are copied: the trace's
-- runtime-call busy time (cpu_busy, class 'runtime': one interval per
-- call or run of calls, 61k on a 115 MB trace) less the time the GPU was
-- busy then.  Its only reader, the step time breakdown
-- (lib/15_timeline.sql report_clip_calls, lib/30_step_time.sql), counts
-- runtime calls only where no kernel, copy or fill runs (their layers
-- come first), so the part under GPU work counts nowhere: in every span,
-- clip(R, span) less the GPU work equals clip(R less the GPU work, span),
-- and every union u1..u7 stays that of the database.  About half the
-- intervals lie wholly under GPU work (launches queue behind running
-- kernels) and are left out; the others keep their uncovered parts.
-- The GPU work is report_clip_gpu's: kernels, copies and fills with a
-- name, a start and a duration.  _summary_copy.sql copies the other
-- classes as they are.

CREATE TEMP TABLE summary_gpu_gap(a INTEGER PRIMARY KEY, b INTEGER NOT NULL);

-- The gaps between the trace's GPU work (the union's complement), the
-- first from -inf and the last to +inf.
INSERT INTO temp.summary_gpu_gap(a, b)
WITH gpu AS (
  SELECT g.ts AS a, g.ts + g.dur AS b FROM src._gpu g
  WHERE g.id > :base AND g.id <= :last AND g.trace_id = :trace_id
    AND g.kind IN (SELECT kind FROM src._kind WHERE name IN ('kernel', 'memcpy', 'memset'))
    AND g.name_id IS NOT NULL AND g.ts IS NOT NULL AND g.dur > 0
),
-- each interval starts a new island unless an earlier one reaches it
start AS (
  SELECT a, b, coalesce(a > max(b) OVER (ORDER BY a, b ROWS BETWEEN UNBOUNDED PRECEDING
                                         AND 1 PRECEDING), 1) AS new
  FROM gpu
),
island AS (
  SELECT min(a) AS a, max(b) AS b
  FROM (SELECT a, b, sum(new) OVER (ORDER BY a, b ROWS UNBOUNDED PRECEDING) AS n FROM start)
  GROUP BY n
)
SELECT coalesce(lag(b) OVER (ORDER BY a), -9223372036854775807 - 1), a FROM island
UNION ALL
SELECT coalesce(max(b), -9223372036854775807 - 1), 9223372036854775807 FROM island;

-- Each runtime interval's parts inside those gaps: the gaps from the one
-- holding (or following) its start to its end.
INSERT INTO main.cpu_busy(trace_id, pid, tid, class, ts, dur)
SELECT c.trace_id, c.pid, c.tid, c.class, max(c.ts, g.a), min(c.ts + c.dur, g.b) - max(c.ts, g.a)
FROM src.cpu_busy c JOIN temp.summary_gpu_gap g
  ON g.a >= (SELECT max(x.a) FROM temp.summary_gpu_gap x WHERE x.a <= c.ts)
  AND g.a < c.ts + c.dur AND g.b > c.ts
WHERE c.trace_id = :trace_id AND c.class = 'runtime';
