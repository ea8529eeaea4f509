-- Measure: kernel launch calls' CPU time per rank step; calls per rank (one row).
-- Launch calls' CPU time per rank step; calls per rank.  cold_ns: the
-- part in cold-start calls (lib/13_cold_launch.sql: the first launch of a
-- kernel, over 1 ms and 100x the median launch); first_ns: in the other
-- calls inside an operator's one-time first call (lib/38_claim.sql
-- report_first_call: cuDNN's autotuning launches each candidate kernel
-- there; issue 44's audit of tests/cuda/cudnn_cold: 11.5 of 14.9 ms of
-- launch calls): one-time start-up, both, that neither fusion nor CUDA
-- graphs save; hidden_ns: in the calls begun after their span's GPU last
-- idled with nothing queued (no idle gap left for them to fill, but
-- a whole trace's closing edge: the GPU runs queued work to the span's
-- end, so a shorter call moves nothing; issue 44's third unseen audit: 50
-- calls whose kernels start over 100 us after they return, the GPU busy
-- to the trace's end); steady_ns: the rest.  A CUDA/HIP graph launch
-- (cudaGraphLaunch, hipGraphLaunch) is not counted: it is already the one
-- call a graph replay costs (issue 44), which fusion or capturing cannot
-- remove.
-- Builds: measure_launch
-- Reads: _slice, _string, measure_time, report_cold_launch, report_first_call, report_gpu,
--   report_gpu_gap, report_queued_gap, report_span
CREATE TEMP TABLE measure_launch (
  launch_ns   REAL,     -- launch calls, ns
  calls       REAL,     -- launch calls per rank
  cold_ns     REAL,     -- cold-start launch calls, ns
  first_ns    REAL,     -- the other launch calls inside one-time first calls, ns
  hidden_ns   REAL,     -- the other launch calls with no GPU idle gap left to fill after them, ns
  steady_ns   REAL,     -- the other launch calls, ns
  cold_calls  REAL,     -- cold-start launch calls per rank
  first_calls REAL,     -- launch calls inside one-time first calls (not cold-start) per rank
  hidden_calls REAL     -- the hidden_ns calls per rank
) STRICT;
INSERT INTO measure_launch
WITH
-- the end of each span's last GPU idle gap that the host could fill:
-- nothing queued at its start (report_queued_gap), not a whole trace's
-- closing edge
-- (materialized, and the queued gaps taken out as a set: one pass each,
-- not once per launch call or per gap; each call finds its span by
-- report_span's index, then its span's row by k: a scan of its trace's
-- spans per call grew with calls x steps)
last_gap AS MATERIALIZED (
  SELECT s.k, s.trace_id, s.ts, s.end_ts, max(g.b) AS b
  FROM report_span s JOIN (SELECT k, trace_id, a, b FROM report_gpu_gap
                           EXCEPT SELECT k, trace_id, a, b FROM report_queued_gap) g
    ON g.k = s.k AND g.trace_id = s.trace_id
  WHERE NOT (s.step IS NULL AND g.b = s.end_ts)
  GROUP BY s.k, s.trace_id
)
  SELECT coalesce(sum(l.dur), 0) / t.n AS launch_ns, count(*) / t.ranks AS calls,
    coalesce(sum(l.dur) FILTER (WHERE l.cold), 0) / t.n AS cold_ns,
    coalesce(sum(l.dur) FILTER (WHERE NOT l.cold AND l.first), 0) / t.n AS first_ns,
    coalesce(sum(l.dur) FILTER (WHERE NOT l.cold AND NOT l.first AND l.hidden), 0) / t.n
      AS hidden_ns,
    coalesce(sum(l.dur) FILTER (WHERE NOT l.cold AND NOT l.first AND NOT l.hidden), 0) / t.n
      AS steady_ns,
    count(*) FILTER (WHERE l.cold) / t.ranks AS cold_calls,
    count(*) FILTER (WHERE NOT l.cold AND l.first) / t.ranks AS first_calls,
    count(*) FILTER (WHERE NOT l.cold AND NOT l.first AND l.hidden) / t.ranks AS hidden_calls
  FROM (SELECT l.dur, l.id IN (SELECT launch_id FROM report_cold_launch) AS cold,
          -- (no fillable gap of its span ends after the call began: the
          -- one it is in, or a later one)
          NOT EXISTS (SELECT 1 FROM last_gap g
                      WHERE g.k = (SELECT s.k FROM report_span s WHERE s.trace_id = l.trace_id
                                     AND s.ts <= l.ts ORDER BY s.ts DESC LIMIT 1)
                        AND l.ts < g.end_ts AND g.b > l.ts) AS hidden,
          -- (an index range: the first calls of its thread that started at
          -- most the longest one's time before it)
          EXISTS (SELECT 1 FROM report_first_call f
                  WHERE f.trace_id = l.trace_id AND f.tid = l.tid
                    AND f.ts <= l.ts AND f.ts >= l.ts - (SELECT max(dur) FROM report_first_call)
                    AND l.ts < f.ts + f.dur AND f.pid IS l.pid) AS first
        FROM _slice l
        WHERE l.id IN (SELECT launch_id FROM report_gpu WHERE kind = 'kernel')
          AND (SELECT value FROM _string WHERE id = l.name_id) NOT GLOB '*GraphLaunch*') l,
    (SELECT 1.0 * max(rank_steps, 1) AS n, 1.0 * ranks AS ranks FROM measure_time) t;
