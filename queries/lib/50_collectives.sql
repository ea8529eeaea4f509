-- Collectives matched across ranks, for straggler detection (rank_sum,
-- findings).  A collective instance is one call of one collective in one
-- process group; every rank of the group runs one kernel for it.  A rank
-- that reaches it late makes every other rank wait inside its kernel (the
-- kernel starts, then spins until the last peer arrives), so the late rank
-- has the SHORTEST collective kernels and often the shortest steps.
--
-- Instance key (same on every rank of the group):
--   run     report_run.run (ranks of one job; lib/05_runs.sql)
--   pg      the group: args 'Comms Id' when present, else 'Process Group
--           Name', else ''
--   coll    args 'Collective name' when present, else the kernel name
--           up to its parameter list (ncclKernel_AllReduce_RING_LL_Sum_float,
--           ncclDevKernel_AllGather_RING_LL, ...)
--   seq     args 'Seq' (the process group's call counter) when present,
--           else the kernel's rank among this rank's kernels of (pg, coll),
--           in start order
-- The args are the kernel's, else those of the record_param_comms op that
-- launched it (report_coll_meta: recent Kineto copies them onto the
-- kernel, older writes them on the op only).
-- Collective kernels: kernel_category() = 'NCCL/communication' (NCCL
-- ncclKernel*/ncclDevKernel*, RCCL, MSCCL names).

-- Each collective kernel in scope with the args describing it.
--   event_id, trace_id, ts, dur   the kernel
--   kernel                        its name
--   src                           where the args come from: 'kernel', 'op'
--                                 (its record_param_comms), NULL: none
--   a                             those args (JSON object), NULL when none
CREATE TEMP TABLE report_coll_meta AS
SELECT g.event_id, g.trace_id, g.ts, g.dur, n.name AS kernel,
  CASE WHEN json_extract(x.args, '$."Collective name"') IS NOT NULL THEN 'kernel'
       WHEN json_extract(s.args, '$."Collective name"') IS NOT NULL THEN 'op' END AS src,
  CASE WHEN json_extract(x.args, '$."Collective name"') IS NOT NULL THEN x.args
       WHEN json_extract(s.args, '$."Collective name"') IS NOT NULL THEN s.args END AS a
FROM report_gpu g JOIN report_name n ON n.name_id = g.name_id JOIN _gpu x ON x.id = g.event_id
LEFT JOIN _slice s ON s.id = g.op_id
WHERE g.kind = 'kernel' AND g.category = 'NCCL/communication';

-- Every collective kernel of a ranked trace with its instance key.
--   event_id, trace_id, rank  the kernel and its rank
--   run, pg, coll             instance key (above)
--   call_seq                  args 'Seq', NULL when absent
--   match_by                  'comms_id+seq', 'pg+seq' or 'pg+order': the
--                             keys its instance is matched by
--   ts, dur                   kernel start and duration (ns)
CREATE TEMP TABLE report_coll_kernel AS
SELECT c.event_id, c.trace_id, t.rank, r.run,
  coalesce('id:' || json_extract(c.a, '$."Comms Id"'),
           json_extract(c.a, '$."Process Group Name"'), '') AS pg,
  coalesce(json_extract(c.a, '$."Collective name"'),
           CASE WHEN instr(c.kernel, '(') > 0 THEN substr(c.kernel, 1, instr(c.kernel, '(') - 1)
                ELSE c.kernel END) AS coll,
  json_extract(c.a, '$.Seq') AS call_seq,
  CASE WHEN json_extract(c.a, '$.Seq') IS NULL THEN 'pg+order'
       WHEN json_extract(c.a, '$."Comms Id"') IS NOT NULL THEN 'comms_id+seq'
       ELSE 'pg+seq' END AS match_by,
  c.ts, c.dur
FROM report_coll_meta c JOIN report_trace t USING (trace_id) JOIN report_run r USING (trace_id)
WHERE t.rank IS NOT NULL;

-- The kernels with seq ('Seq', else the order), and same_ts: how many
-- kernels of the instance start at the same time as this one (ranks that
-- tie exactly).
CREATE TEMP TABLE report_coll_member AS
SELECT *, count(*) OVER (PARTITION BY run, pg, coll, seq, ts) AS same_ts
FROM (SELECT k.*, coalesce('s' || k.call_seq,
                           row_number() OVER (PARTITION BY k.trace_id, k.pg, k.coll,
                                                            k.call_seq IS NULL
                                              ORDER BY k.ts, k.event_id)) AS seq
      FROM report_coll_kernel k);

-- Instances seen on at least two distinct ranks (one kernel per rank).
--   first_ts, last_ts   earliest and latest arrival (kernel start, ns)
--   median_ts           median arrival
--   ranks               ranks in the instance
--   startup             1 for a start-up instance (below), else 0
CREATE TEMP TABLE report_coll_instance AS
SELECT run, pg, coll, seq, min(ts) AS first_ts, max(ts) AS last_ts,
  profdb_median(ts) AS median_ts, count(*) AS ranks, 0 AS startup
FROM report_coll_member
GROUP BY run, pg, coll, seq
HAVING count(DISTINCT rank) = count(*) AND count(*) > 1;

-- Start-up instances, in a run analysed whole (no ProfilerSteps, or the
-- whole-trace scope) or from a trace's first step (its only step, or
-- --include-warmup): with a warm-up step left out, start-up is that step:
-- the run's first instances (by first arrival), as
-- long as their arrival spread (last_ts - first_ts) is outlying against
-- the run's median spread M: above it by more than 3 median absolute
-- deviations and 10% of M (report_ranks.c's outlier test).  Their skew is
-- one-time (a rank whose profiler started late, communicator set-up at a
-- group's first call, first launches that differ between ranks), not
-- steady lateness: the straggler figures leave them out
-- (docs/definitions.md#stragglers).  Not with --scope hta, whose
-- straggler figures are HTA's, every call counted.
UPDATE report_coll_instance SET startup = 1
WHERE NOT coalesce(:scope_hta, 0) AND (run, pg, coll, seq) IN (
  WITH m AS (
    SELECT run, profdb_median(last_ts - first_ts) AS med FROM report_coll_instance
    WHERE run IN (SELECT r.run FROM report_run r JOIN report_window w USING (trace_id)
                  WHERE w.whole
                     OR EXISTS (SELECT 1 FROM report_step s
                                WHERE s.trace_id = w.trace_id
                                  AND s.step = (SELECT min(a.step) FROM report_step_all a
                                                WHERE a.trace_id = w.trace_id)))
    GROUP BY run
  ), d AS (
    SELECT i.run, m.med, profdb_median(abs(i.last_ts - i.first_ts - m.med)) AS mad
    FROM report_coll_instance i JOIN m USING (run) GROUP BY i.run
  ), o AS (
    SELECT i.run, i.pg, i.coll, i.seq, i.first_ts,
      (i.last_ts - i.first_ts - d.med > 3 * d.mad AND i.last_ts - i.first_ts - d.med > 0.1 * d.med)
        AS outlying
    FROM report_coll_instance i JOIN d USING (run)
  )
  SELECT o.run, o.pg, o.coll, o.seq FROM o
  WHERE o.outlying AND o.first_ts < coalesce((SELECT min(x.first_ts) FROM o x
                                             WHERE x.run = o.run AND NOT x.outlying), o.first_ts));

-- Each rank's part in each instance.
--   lateness_ns  ts - first_ts: arrival after the first rank
--   excess_ns    max(0, ts - median_ts): arrival after the median rank
--   wait_ns      time inside its kernel before the last peer arrived
--                (min(last_ts - ts, dur))
--   is_last      1 when it arrives last, alone or tied with other ranks
--                (0 for every rank when all ranks arrive together:
--                nobody is last)
--   tied_last    1 when it arrives last tied with another rank
--   startup      1 when the instance is a start-up instance
--   match_by     the keys it was matched by (report_coll_kernel)
--   (event_id: the kernel)
CREATE TEMP TABLE report_coll_arrival AS
SELECT m.run, m.pg, m.coll, m.seq, m.event_id, m.trace_id, m.rank, m.ts, m.dur, m.match_by,
  m.ts - i.first_ts AS lateness_ns,
  CAST(max(0, m.ts - i.median_ts) AS INTEGER) AS excess_ns,
  max(0, min(i.last_ts - m.ts, m.dur)) AS wait_ns,
  m.ts = i.last_ts AND i.last_ts > i.first_ts AS is_last,
  m.ts = i.last_ts AND i.last_ts > i.first_ts AND m.same_ts > 1 AS tied_last,
  i.startup
FROM report_coll_member m
JOIN report_coll_instance i USING (run, pg, coll, seq);

-- Per rank: how late it arrives and how long it waits, over the steady
-- instances (start-up instances left out, above).
--   run, trace_id, rank   the rank
--   collectives           steady matched instances it took part in
--   startup_calls         start-up instances it took part in (left out)
--   mean_lateness_ns      mean lateness_ns
--   mean_wait_ns          mean wait_ns
--   last_arrivals         instances it reached last, alone or tied
--   tied_last             of those, the ones it tied with another rank
--   late_ns               sum of excess_ns: its arrivals after the median rank
--   analysed_ns           the rank's analysed time (report_window)
--   straggler             1 when late_ns is at least half the largest
--                         late_ns of its run and at least 1% of analysed_ns
--                         (when every rank ties, late_ns is 0: nobody is
--                         last, no straggler)
CREATE TEMP TABLE report_straggler AS
WITH per_rank AS (
  SELECT a.run, a.trace_id, a.rank, count(*) FILTER (WHERE NOT a.startup) AS collectives,
    count(*) FILTER (WHERE a.startup) AS startup_calls,
    avg(a.lateness_ns) FILTER (WHERE NOT a.startup) AS mean_lateness_ns,
    avg(a.wait_ns) FILTER (WHERE NOT a.startup) AS mean_wait_ns,
    coalesce(sum(a.is_last) FILTER (WHERE NOT a.startup), 0) AS last_arrivals,
    coalesce(sum(a.tied_last) FILTER (WHERE NOT a.startup), 0) AS tied_last,
    coalesce(sum(a.excess_ns) FILTER (WHERE NOT a.startup), 0) AS late_ns,
    (SELECT w.end_ts - w.ts FROM report_window w WHERE w.trace_id = a.trace_id) AS analysed_ns
  FROM report_coll_arrival a GROUP BY a.run, a.trace_id, a.rank
)
SELECT p.*,
  (p.late_ns > 0 AND p.late_ns >= 0.01 * p.analysed_ns
   AND p.late_ns >= 0.5 * (SELECT max(q.late_ns) FROM per_rank q WHERE q.run = p.run)) AS straggler
FROM per_rank p;

-- Per run with stragglers: what making them arrive on time can save.
--   run             the run
--   ranks           ranks with matched collectives
--   stragglers      JSON array of subjects: [{"rank": 7}, ...]
--   saving_ns       sum over the steady instances of the wait inside its
--                   kernel of the latest rank that is not a straggler: had
--                   the stragglers arrived with it, no rank would have
--                   waited longer, so the collective ends at most that
--                   much earlier
--   startup_calls   start-up instances left out
--   startup_wait_ns the same wait over the start-up instances (one-time,
--                   not promised)
--   analysed_ns     median analysed time of the run's ranks
CREATE TEMP TABLE report_straggler_run AS
WITH w AS (
  SELECT i.run, i.startup,
    (SELECT a.wait_ns FROM report_coll_arrival a JOIN report_straggler x USING (trace_id)
     WHERE a.run = i.run AND a.pg = i.pg AND a.coll = i.coll AND a.seq = i.seq
       AND NOT x.straggler ORDER BY a.ts DESC, a.wait_ns DESC LIMIT 1) AS wait_ns
  FROM report_coll_instance i
)
SELECT s.run, count(*) AS ranks,
  json_group_array(json_object('rank', s.rank)) FILTER (WHERE s.straggler) AS stragglers,
  (SELECT coalesce(sum(w.wait_ns), 0) FROM w WHERE w.run = s.run AND NOT w.startup) AS saving_ns,
  (SELECT count(*) FROM w WHERE w.run = s.run AND w.startup) AS startup_calls,
  (SELECT coalesce(sum(w.wait_ns), 0) FROM w WHERE w.run = s.run AND w.startup)
    AS startup_wait_ns,
  profdb_median(s.analysed_ns) AS analysed_ns
FROM report_straggler s
GROUP BY s.run
HAVING sum(s.straggler) > 0;

-- Waiting split from transfer, per collective kernel during the analysed
-- spans.  A collective kernel starts when its rank arrives and cannot move
-- data before the last rank of the instance has arrived: the time until
-- then is waiting (owed to imbalance or a straggler, rank_sum), the time
-- after it is transfer (what overlap with compute can hide).  A kernel not
-- matched across ranks (a single-rank trace, peers not loaded, or a kernel
-- launched outside the analysed steps that runs into a span) has no known
-- split: its whole time counts as transfer, with matched = 0 saying so.
--
-- Measured on the spans' timeline, as the step time is (report_clip_gpu,
-- lib/15_timeline.sql): the collective kernels that run during a span,
-- whichever step launched them, each part clipped to the span.  The GPU
-- can run far behind the CPU (TraceLens resnet_act_checkpoint: 30 ms), so
-- the kernels a step launched (report_gpu) may run before its span
-- starts; counting them would measure another timeline than the step's
-- wall time that the finding divides by.  A kernel crossing two spans has
-- one row per span.  Since ts <= a and b <= ts + dur, the waiting part
-- [ts, ts + wait_ns) clipped to the span is [a, min(ts + wait_ns, b)) and
-- the transfer part [ts + wait_ns, ts + dur) is [max(ts + wait_ns, a), b).
--   k                           the span (report_span)
--   event_id, trace_id, device  the kernel
--   a, b                        the kernel clipped to the span (ns)
--   wait_end                    min(ts + wait_ns, b): end of its clipped waiting
--                               part (a when none), start of its clipped transfer
--   wait_ns                     time before the last peer arrived, unclipped
--                               (0 when unmatched)
--   matched                     1 when the instance was matched across ranks
--
-- With --scope hta the kernels are HTA's selection instead, unclipped
-- (report_gpu: launched before the last ProfilerStep starts; k is NULL):
-- HTA's comm_comp_overlap counts those (tests/real/check_hta.py), while
-- the whole-trace span of that scope also holds the last step's kernels.
CREATE TEMP TABLE report_comm_kernel AS
SELECT c.k, c.event_id, c.trace_id, c.device, c.a, c.b,
  max(c.a, min(g.ts + coalesce(w.wait_ns, 0), c.b)) AS wait_end,
  coalesce(w.wait_ns, 0) AS wait_ns, w.event_id IS NOT NULL AS matched
FROM report_clip_gpu c JOIN _gpu g ON g.id = c.event_id
LEFT JOIN report_coll_arrival w ON w.event_id = c.event_id
WHERE c.is_comm AND c.b > c.a AND NOT coalesce(:scope_hta, 0)
UNION ALL
SELECT NULL, g.event_id, g.trace_id, g.device, g.ts, g.ts + g.dur,
  g.ts + coalesce(w.wait_ns, 0), coalesce(w.wait_ns, 0), w.event_id IS NOT NULL
FROM report_gpu g LEFT JOIN report_coll_arrival w ON w.event_id = g.event_id
WHERE g.kind = 'kernel' AND g.category = 'NCCL/communication' AND coalesce(:scope_hta, 0);

-- Communication per trace and device during the analysed spans (all parts
-- clipped to the spans, above; --scope hta: HTA's kernels, unclipped),
-- waiting split from transfer.  Every figure
-- is a union (interval_union), so collectives running at once on two
-- streams count once; comm_ns is at most the spans' time of the trace.
--   trace_id, device   where it ran
--   comm_ns            time covered by collective kernels
--   wait_ns            time covered by their waiting parts (peers late)
--   transfer_ns        time covered by their transfer parts (after the last peer arrived)
--   unmatched_ns       time covered by collective kernels whose peers are unknown (counted as transfer)
--   compute_ns         time covered by other kernels on the device during the spans
--                      (--scope hta: report_gpu's, unclipped)
--   overlapped_ns      transfer time with compute running at the same time
--   exposed_ns         transfer_ns - overlapped_ns: what overlap could still hide
--   unmatched_exposed_ns  the part of exposed_ns in collectives whose peers are unknown
--   any_matched        1 when some collective kernel of the device matched its peers (else its
--                      waiting is unknown, not 0)
CREATE TEMP TABLE report_comm AS
WITH iv AS (
  SELECT trace_id, device, a, wait_end AS b, 1 AS part FROM report_comm_kernel
  WHERE wait_end > a
  UNION ALL
  SELECT trace_id, device, wait_end, b, CASE WHEN matched THEN 2 ELSE 3 END
  FROM report_comm_kernel WHERE b > wait_end
  UNION ALL
  SELECT trace_id, device, a, b, 0 FROM report_clip_gpu
  WHERE kind = 'kernel' AND NOT is_comm AND b > a AND NOT coalesce(:scope_hta, 0)
    AND (trace_id, device) IN (SELECT trace_id, device FROM report_comm_kernel)
  UNION ALL
  SELECT trace_id, device, ts, ts + dur, 0 FROM report_gpu
  WHERE kind = 'kernel' AND category <> 'NCCL/communication' AND coalesce(:scope_hta, 0)
    AND (trace_id, device) IN (SELECT trace_id, device FROM report_comm_kernel)
), comm AS (  -- (once per trace and device: a lookup per group read every rank's kernels)
  SELECT trace_id, device, interval_union(a, b) AS comm_ns, max(matched) AS any_matched
  FROM report_comm_kernel GROUP BY trace_id, device
)
SELECT iv.trace_id, iv.device, c.comm_ns,
  coalesce(interval_union(a, b) FILTER (WHERE part = 1), 0) AS wait_ns,
  coalesce(interval_union(a, b) FILTER (WHERE part IN (2, 3)), 0) AS transfer_ns,
  coalesce(interval_union(a, b) FILTER (WHERE part = 3), 0) AS unmatched_ns,
  coalesce(interval_union(a, b) FILTER (WHERE part = 0), 0) AS compute_ns,
  coalesce(interval_overlap(a, b, part IN (2, 3)) FILTER (WHERE part <> 1), 0) AS overlapped_ns,
  coalesce(interval_union(a, b) FILTER (WHERE part IN (2, 3)), 0)
    - coalesce(interval_overlap(a, b, part IN (2, 3)) FILTER (WHERE part <> 1), 0) AS exposed_ns,
  coalesce(interval_union(a, b) FILTER (WHERE part = 3), 0)
    - coalesce(interval_overlap(a, b, part = 3) FILTER (WHERE part IN (0, 3)), 0)
    AS unmatched_exposed_ns, c.any_matched
FROM iv LEFT JOIN comm c ON c.trace_id = iv.trace_id AND c.device = iv.device
GROUP BY iv.trace_id, iv.device;
