-- Rule: slow_collective
-- 10. Collectives far below the bus bandwidth their process group reaches
-- (or the link's peak, --link-gbps): per (run, group, kind, size bucket)
-- of coll_sum, median busbw under half the reference (the link's peak
-- when given, else the group's best median busbw over its kinds and
-- sizes).  The saving is each slow call's transfer time minus its time at
-- the reference busbw (bytes x factor / reference), scaled by the share of
-- its trace's transfer that no compute overlaps (report_comm: hidden
-- transfer costs no step time), per rank step.  exposed_communication
-- promises the same exposed transfer by overlap: the two are alternatives,
-- not a sum (docs/definitions.md#collective-bandwidth).  A call whose
-- peers are not loaded (not matched) promises nothing: its "transfer" is
-- its kernel's time, waiting for the peers included, which no bandwidth
-- fix recovers (issue 44's audit: HTA's nccl_data, one of two ranks, whose
-- all-reduces of 8-31 MB all take 2.0-2.7 ms in one step and twice that in
-- the next).
-- Reads: measure_coll_ref, measure_floor, measure_time, report_coll_call, report_coll_link,
--   report_comm
WITH
grp AS (
  SELECT run, "group", kind, bucket, bucket_lo, count(*) AS calls,
    profdb_median(busbw_gbps) AS med, sum(NOT matched) AS unmatched
  FROM report_coll_call WHERE busbw_gbps IS NOT NULL AND run IS NOT NULL
  GROUP BY run, "group", kind, bucket_lo, bucket
),
ref AS (SELECT run, "group", gbps FROM measure_coll_ref),
exposed AS (
  SELECT trace_id, 1.0 * sum(exposed_ns) / max(sum(transfer_ns), 1) AS share
  FROM report_comm GROUP BY trace_id
),
slow AS (
  SELECT g.*, r.gbps AS ref_gbps,
    (SELECT sum(max(0, c.transfer_ns - 1.0 * c.bytes * c.factor / r.gbps)
                * coalesce((SELECT e.share FROM exposed e WHERE e.trace_id = c.trace_id), 1)
                * c.matched)
     FROM report_coll_call c
     WHERE c.run = g.run AND c."group" = g."group" AND c.kind = g.kind
       AND c.bucket_lo = g.bucket_lo AND c.busbw_gbps IS NOT NULL) AS saving_ns
  FROM grp g JOIN ref r USING (run, "group")
  WHERE g.med < 0.5 * r.gbps
),
total AS (
  SELECT CAST(round(sum(s.saving_ns) / max(t.rank_steps, 1)) AS INTEGER) AS step_saving_ns,
    t.job_step_ns, sum(s.unmatched) AS unmatched, count(*) AS n_rows
  FROM slow s, measure_time t WHERE t.job_step_ns > 0
)
SELECT round(100.0 * x.step_saving_ns / x.job_step_ns, 1) AS priority, 'slow_collective' AS rule,
  CASE WHEN x.unmatched > 0 THEN 'low' ELSE 'medium' END AS confidence,
  printf('Collectives run far below the bus bandwidth %s',
    CASE WHEN l.link_gbps IS NOT NULL THEN printf('of the link (%.0f GB/s)', l.link_gbps)
         ELSE 'their process group reaches' END) AS title,
  printf('%d (group, kind, size) row%s of coll_sum below half the reference busbw: %s.%s',
    x.n_rows, CASE WHEN x.n_rows > 1 THEN 's' ELSE '' END,
    (SELECT group_concat(printf('%s of %s in %s: median busbw %.2f GB/s against %.2f GB/s, %d calls',
       s.kind, s.bucket, s."group", s.med, s.ref_gbps, s.calls), '; ')
     FROM (SELECT * FROM slow ORDER BY saving_ns DESC, "group", kind, bucket_lo LIMIT 3) s)
    || CASE WHEN x.n_rows > 3 THEN printf('; %d more in coll_sum', x.n_rows - 3) ELSE '' END,
    CASE WHEN x.unmatched > 0 THEN printf(' %d call(s) have no loaded peers: their transfer ' ||
      'includes the waiting for them, so they promise nothing.', x.unmatched) ELSE '' END)
    AS observation,
  'Small messages are latency-bound (many small buckets: fuse them); otherwise NCCL''s ' ||
    'algorithm or protocol choice (NCCL_ALGO, NCCL_PROTO), or the topology: a group crossing ' ||
      'nodes, PCIe instead of NVLink, fewer channels.' AS hypothesis,
  'For sizes under 1 MiB raise the bucket size (DDP bucket_cap_mb, FSDP/ZeRO bucket sizes) ' ||
    'so fewer, larger collectives run; for large ones compare with nccl-tests on the same ranks ' ||
      '(all_reduce_perf -b SIZE -e SIZE, one process per rank) and read NCCL_DEBUG=INFO for the ' ||
        'algorithm, protocol and transport each communicator uses.' AS action,
  printf('Up to %s per job step (%.1f%% of the %s job step) if these calls reached the ' ||
    'reference busbw: their transfer time minus the time at that busbw, the part no compute ' ||
      'overlaps; the same exposed transfer exposed_communication would hide (not a sum).',
    profdb_fmt_ns(x.step_saving_ns), 100.0 * x.step_saving_ns / x.job_step_ns,
      profdb_fmt_ns(x.job_step_ns)) AS expected_impact,
  'Re-profile: coll_sum''s busbw_median_gbps of these rows at least half the reference.'
    AS validation,
  0 AS needs_artifact,
  round(min(100.0 * x.step_saving_ns / x.job_step_ns, 100), 2) AS expected_saving_pct,
  x.step_saving_ns AS expected_saving_ns, NULL AS expected_saving_bytes,
  (SELECT json_group_array(json_object('group', s."group", 'kind', s.kind, 'size', s.bucket))
   FROM (SELECT * FROM slow ORDER BY saving_ns DESC, "group", kind, bucket_lo) s) AS subjects,
  json_object('sections', json_array('coll_sum', 'communication'),
    'link_gbps', l.link_gbps,
    'rows', (SELECT json_group_array(json_object('run', s.run, 'group', s."group", 'kind', s.kind,
       'size', s.bucket, 'busbw_median_gbps', round(s.med, 2), 'ref_gbps', round(s.ref_gbps, 2),
       'saving_ns', CAST(round(s.saving_ns) AS INTEGER))) FROM slow s)) AS evidence,
  0 AS cut_may_explain
FROM total x, measure_floor f, report_coll_link l
WHERE x.step_saving_ns >= f.min_ns AND 100.0 * x.step_saving_ns / x.job_step_ns >= f.min_pct;
