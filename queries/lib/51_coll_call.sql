-- Collective calls sized and timed the way nccl-tests reports them
-- (coll_sum, findings, diff): one row per collective kernel in scope
-- (report_gpu, category 'NCCL/communication'), with its kind, process
-- group, message bytes, transfer time, algbw and busbw.  Definitions and
-- sources: docs/definitions.md#collective-bandwidth.
--
-- Metadata: the kernel's own args (recent Kineto copies the
-- record_param_comms fields onto NCCL kernels), else those of the
-- record_param_comms op that launched it (_gpu_link.op_id), else none
-- (older Kineto, custom all-reduce kernels): then the kind comes from the
-- kernel name and the bytes are unknown, with missing saying so.
-- Waiting and transfer: report_coll_arrival's split (lib/50_collectives.sql),
-- unclipped; a kernel whose peers are not loaded counts whole as transfer,
-- with matched = 0.

-- Bytes per element of each dtype name Kineto writes (c10 ScalarType
-- names), FP8 and the packed FP4 pair included; a name not here (e.g.
-- UNKNOWN_SCALAR, Undefined) has no size.
--   dtype   the name
--   size    bytes per element
CREATE TEMP TABLE report_dtype_size(dtype TEXT PRIMARY KEY, size INTEGER) WITHOUT ROWID;
INSERT INTO report_dtype_size VALUES
  ('Byte', 1), ('Char', 1), ('Bool', 1), ('QInt8', 1), ('QUInt8', 1), ('QUInt4x2', 1),
  ('QUInt2x4', 1), ('Bits8', 1), ('Bits1x8', 1), ('Bits2x4', 1), ('Bits4x2', 1),
  ('Float8_e5m2', 1), ('Float8_e4m3fn', 1), ('Float8_e5m2fnuz', 1), ('Float8_e4m3fnuz', 1),
  ('Float8_e8m0fnu', 1), ('Float4_e2m1fn_x2', 1),
  ('Short', 2), ('Half', 2), ('BFloat16', 2), ('UInt16', 2), ('Bits16', 2),
  ('Int', 4), ('Float', 4), ('UInt32', 4), ('QInt32', 4), ('ComplexHalf', 4),
  ('Long', 8), ('Double', 8), ('UInt64', 8), ('ComplexFloat', 8),
  ('ComplexDouble', 16);

-- Each process group's rank list named by its ranks and size: 'ranks
-- 0-7 (8)' (consecutive), 'ranks 0-6/2 (4)' (a stride: one rank of each
-- tensor-parallel group), else the list as written, 'ranks 0,2 (2)'.
--   pg_ranks   'Process Group Ranks' as written ('[0, 1, 2, 3]')
--   label      the name
--   lo         its lowest rank
--   pattern    its shape, shared by the groups of one kind of group (at
--              1024 ranks, the 128 tensor-parallel groups of 8), named
--              as label is with r for the lowest rank: 'r..r+7 (8)'
--              (consecutive), 'r..r+56/8 (8)' (a stride); NULL when the
--              ranks are not evenly spaced (coll_sum summarises by it)
CREATE TEMP TABLE report_pg_label AS
WITH l AS (
  SELECT DISTINCT json_extract(a, '$."Process Group Ranks"') AS pg_ranks FROM report_coll_meta
), v AS (
  SELECT l.pg_ranks, count(*) AS cnt, count(DISTINCT j.value) AS dist, min(j.value) AS lo,
    max(j.value) AS hi
  FROM l, json_each(l.pg_ranks) j
  WHERE json_valid(l.pg_ranks) AND json_type(l.pg_ranks) = 'array'
  GROUP BY l.pg_ranks
), st AS (
  SELECT v.*, (SELECT min(j.value) FROM json_each(v.pg_ranks) j WHERE j.value > v.lo) - v.lo
    AS stride FROM v
)
SELECT pg_ranks,
  CASE WHEN cnt = 1 THEN 'rank ' || lo || ' (1)'
       WHEN cnt > 2 AND dist = cnt AND hi - lo = stride * (cnt - 1)
         AND NOT EXISTS (SELECT 1 FROM json_each(st.pg_ranks) j WHERE (j.value - lo) % stride <> 0)
       THEN 'ranks ' || lo || '-' || hi || CASE WHEN stride > 1 THEN '/' || stride ELSE '' END
            || ' (' || cnt || ')'
       ELSE 'ranks ' || replace(replace(replace(pg_ranks, '[', ''), ']', ''), ' ', '')
            || ' (' || cnt || ')' END AS label,
  lo,
  CASE WHEN cnt > 1 AND dist = cnt AND hi - lo = stride * (cnt - 1)
         AND NOT EXISTS (SELECT 1 FROM json_each(st.pg_ranks) j WHERE (j.value - lo) % stride <> 0)
       THEN 'r..r+' || (hi - lo) || CASE WHEN stride > 1 THEN '/' || stride ELSE '' END
            || ' (' || cnt || ')' END AS pattern
FROM st;

-- Per collective kernel in scope:
--   event_id, trace_id, rank   the kernel and its rank (NULL: unknown)
--   run                        report_run.run (NULL when the trace has no rank)
--   ts, dur                    kernel start and duration (ns)
--   coll                       'Collective name' as written, else the kernel
--                              name up to its parameter list
--   kind                       from 'Collective name', else the whole
--                              kernel name (multimem_all_reduce_kernel<...>):
--                              all_reduce, all_gather, reduce_scatter,
--                              all_to_all, broadcast, reduce, send_recv,
--                              gather, scatter, barrier or other
--   pg                         'Process Group Name' ('' when absent)
--   pg_desc                    'Process Group Description' (NULL when absent)
--   pg_ranks                   'Process Group Ranks' as written ('[0, 1]')
--   group_size                 n: 'Group size', else the length of pg_ranks
--   group                      the group named by its ranks and size:
--                              'ranks 0-7 (8)', 'ranks 0-6/2 (4)', else the
--                              list; 'pg NAME (n)' without ranks
--   dtype                      'dtype' as written
--   in_nelems, out_nelems      'In msg nelems', 'Out msg nelems'
--   bytes                      message size S as nccl-tests 2.19 counts it
--                              (docs/definitions.md): NULL when unknown
--   factor                     busbw / algbw: 2(n-1)/n all_reduce; (n-1)/n
--                              all_gather, reduce_scatter, all_to_all; 1
--                              broadcast, reduce, send_recv; NULL otherwise
--   wait_ns                    time inside the kernel before the last peer
--                              arrived (0 when unmatched)
--   transfer_ns                dur - wait_ns: time after the last peer arrived
--                              (the whole kernel when unmatched)
--   matched                    1 when matched across ranks (report_coll_arrival)
--   match_by                   the key that matched it: 'comms_id+seq',
--                              'pg+seq', 'pg+order' (NULL when unmatched)
--   startup                    1 when its instance is a start-up one (the
--                              run's first calls, arrival spread outlying:
--                              report_coll_instance), else 0
--   bucket                     message-size bucket, powers of 16 from 4 KiB:
--                              '0-4 KiB', '4-64 KiB', '64 KiB-1 MiB',
--                              '1-16 MiB', '16-256 MiB', '256 MiB-4 GiB',
--                              '4 GiB+'; 'unknown' when bytes is NULL
--   bucket_lo                  the bucket's lower bound in bytes (sorts the
--                              buckets; -1 for 'unknown')
--   algbw_gbps                 bytes / transfer_ns (GB/s, 1e9 bytes/s)
--   busbw_gbps                 algbw_gbps * factor
--   bound                      'transfer' (waiting < 1/3 of the kernel),
--                              'arrival_skew' (waiting > 2/3), 'mixed';
--                              NULL when unmatched (no split known)
--   missing                    what is missing for bytes or busbw, '' when
--                              nothing ('no collective args', 'dtype
--                              UNKNOWN_SCALAR', 'Group size', ...)
CREATE TEMP TABLE report_coll_call AS
WITH m AS (
  SELECT c.*, t.rank, r.run,
    coalesce(json_extract(c.a, '$."Collective name"'),
             CASE WHEN instr(c.kernel, '(') > 0 THEN substr(c.kernel, 1, instr(c.kernel, '(') - 1)
                  ELSE c.kernel END) AS coll,
    coalesce(json_extract(c.a, '$."Process Group Name"'), '') AS pg,
    json_extract(c.a, '$."Process Group Description"') AS pg_desc,
    json_extract(c.a, '$."Process Group Ranks"') AS pg_ranks,
    json_extract(c.a, '$.dtype') AS dtype,
    json_extract(c.a, '$."In msg nelems"') AS in_nelems,
    json_extract(c.a, '$."Out msg nelems"') AS out_nelems,
    json_extract(c.a, '$."Group size"') AS gsize
  FROM report_coll_meta c JOIN report_trace t USING (trace_id)
  LEFT JOIN report_run r USING (trace_id)
), k AS (
  SELECT m.*,
    CASE WHEN json_valid(pg_ranks) AND json_type(pg_ranks) = 'array'
         THEN json_array_length(pg_ranks) END AS nranks_listed,
    (SELECT CASE
       WHEN l LIKE '%allreduce%' THEN 'all_reduce'
       WHEN l LIKE '%allgather%' THEN 'all_gather'
       WHEN l LIKE '%reducescatter%' THEN 'reduce_scatter'
       WHEN l LIKE '%alltoall%' THEN 'all_to_all'
       WHEN l LIKE '%broadcast%' THEN 'broadcast'
       WHEN l LIKE '%sendrecv%' OR l LIKE 'send%' OR l LIKE 'recv%' OR l LIKE '%kernel_send%'
         OR l LIKE '%kernel_recv%' OR l LIKE '%p2p%' THEN 'send_recv'
       WHEN l LIKE '%barrier%' THEN 'barrier'
       WHEN l LIKE '%reduce%' THEN 'reduce'
       WHEN l LIKE '%gather%' THEN 'gather'
       WHEN l LIKE '%scatter%' THEN 'scatter'
       ELSE 'other' END
     FROM (SELECT lower(replace(coalesce(json_extract(m.a, '$."Collective name"'), m.kernel),
                               '_', '')) AS l)) AS kind
  FROM m
), s AS (
  SELECT k.*, coalesce(gsize, nranks_listed) AS n,
    (SELECT size FROM report_dtype_size d WHERE d.dtype = k.dtype) AS esize,
    CASE kind
      WHEN 'all_gather' THEN out_nelems
      WHEN 'send_recv' THEN coalesce(nullif(in_nelems, 0), out_nelems)
      ELSE in_nelems END AS nelems
  FROM k
)
SELECT s.event_id, s.trace_id, s.rank, s.run, s.ts, s.dur, s.coll, s.kind, s.pg, s.pg_desc,
  s.pg_ranks, s.n AS group_size,
  coalesce((SELECT p.label FROM report_pg_label p WHERE p.pg_ranks = s.pg_ranks),
           CASE WHEN s.src IS NULL THEN 'unknown' ELSE 'pg ' || s.pg END
           || coalesce(' (' || s.n || ')', '')) AS "group",
  s.dtype, s.in_nelems, s.out_nelems,
  s.nelems * s.esize AS bytes,
  CAST(NULL AS TEXT) AS bucket, CAST(NULL AS INTEGER) AS bucket_lo,
  CASE WHEN s.n > 0 THEN CASE
    WHEN s.kind = 'all_reduce' THEN 2.0 * (s.n - 1) / s.n
    WHEN s.kind IN ('all_gather', 'reduce_scatter', 'all_to_all') THEN 1.0 * (s.n - 1) / s.n
    WHEN s.kind IN ('broadcast', 'reduce', 'send_recv') THEN 1.0 END END AS factor,
  coalesce(w.wait_ns, 0) AS wait_ns, s.dur - coalesce(w.wait_ns, 0) AS transfer_ns,
  w.event_id IS NOT NULL AS matched, w.match_by, coalesce(w.startup, 0) AS startup,
  CAST(NULL AS REAL) AS algbw_gbps, CAST(NULL AS REAL) AS busbw_gbps,
  CASE WHEN w.event_id IS NULL THEN NULL
       WHEN 3 * w.wait_ns < s.dur THEN 'transfer'
       WHEN 3 * w.wait_ns > 2 * s.dur THEN 'arrival_skew'
       ELSE 'mixed' END AS bound,
  trim(
    CASE WHEN s.src IS NULL THEN 'no collective args' ELSE
      CASE WHEN s.nelems IS NULL THEN ', msg nelems' ELSE '' END
      || CASE WHEN s.dtype IS NULL THEN ', dtype'
              WHEN s.esize IS NULL THEN ', dtype ' || s.dtype ELSE '' END
      || CASE WHEN s.n IS NULL OR s.n < 1 THEN ', Group size' ELSE '' END
      || CASE WHEN s.kind IN ('gather', 'scatter', 'barrier', 'other')
              THEN ', busbw factor for ' || s.coll ELSE '' END END, ', ') AS missing
FROM s LEFT JOIN report_coll_arrival w ON w.event_id = s.event_id;

UPDATE report_coll_call SET
  bucket_lo = CASE WHEN bytes IS NULL THEN -1 WHEN bytes < 4096 THEN 0
    WHEN bytes < 65536 THEN 4096 WHEN bytes < 1048576 THEN 65536
    WHEN bytes < 16777216 THEN 1048576 WHEN bytes < 268435456 THEN 16777216
    WHEN bytes < 4294967296 THEN 268435456 ELSE 4294967296 END,
  bucket = CASE WHEN bytes IS NULL THEN 'unknown' WHEN bytes < 4096 THEN '0-4 KiB'
    WHEN bytes < 65536 THEN '4-64 KiB' WHEN bytes < 1048576 THEN '64 KiB-1 MiB'
    WHEN bytes < 16777216 THEN '1-16 MiB' WHEN bytes < 268435456 THEN '16-256 MiB'
    WHEN bytes < 4294967296 THEN '256 MiB-4 GiB' ELSE '4 GiB+' END,
  algbw_gbps = CASE WHEN transfer_ns > 0 THEN 1.0 * bytes / transfer_ns END,
  busbw_gbps = CASE WHEN transfer_ns > 0 THEN 1.0 * bytes / transfer_ns * factor END;

-- The link's peak bus bandwidth given by --link-gbps (the findings read it
-- here: their rules are not bound to the report's options).
--   link_gbps   GB/s (1e9 bytes/s, as busbw); NULL without the option
CREATE TEMP TABLE report_coll_link AS SELECT CAST(:link_gbps AS REAL) AS link_gbps;
