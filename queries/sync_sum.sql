-- Title: Host-device synchronization
-- Question: Where does the CPU wait for the GPU, and how much of that wait
--   could the GPU have used?  Calls that block the host until GPU work is
--   done (the synchronize calls, the synchronous copies: cudaMemcpy,
--   hipMemcpyWithStream, ..., not device to device; cudaMemcpyAsync only
--   to or from pageable host memory), the frees that
--   synchronize the device (cudaFree, hipFree, cudaFreeHost) and the ops that
--   read a device value on the host (aten::item, _local_scalar_dense:
--   .item(), .cpu(), printing a tensor).  cudaStreamWaitEvent is not one:
--   it never blocks the host.  The calls nest (aten::item >
--   _local_scalar_dense > cudaMemcpyAsync > cudaStreamSynchronize), so
--   the last row counts the time once.  A wait costs step time only while
--   the GPU has nothing to run: gpu_idle_ns is that part, the bound the
--   findings split among them by who made the call (synchronization,
--   explicit_sync, wait_outside_trace, allocator_calls, startup_calls:
--   lib/38_claim.sql).  Times are clipped to the analysed spans.
-- Requires: report_sync_idle
-- Empty: no host-blocking calls were recorded in the analysed steps (a
--   trace without GPU work has none: aten::item then reads a CPU tensor)
-- Columns:
--   name            -      call or op (report_sync_name lists them)
--   calls           count  calls
--   total_dur_ns    ns     time the process was blocked in it (concurrent calls counted once)
--   avg_dur_ns      ns     mean call duration (empty on the total row)
--   max_dur_ns      ns     longest call
--   gpu_idle_ns     ns     part of total_dur_ns with no GPU work of the process running
--   pct_window      %      total_dur_ns / the analysed window (all traces)
--   gpu_idle_pct    %      gpu_idle_ns / the analysed window: what removing the waits can save at most
WITH calls AS (
  SELECT name, count(DISTINCT event_id) AS calls FROM report_clip_sync GROUP BY name
), raw AS (
  SELECT name, CAST(round(avg(dur)) AS INTEGER) AS avg_dur_ns, max(dur) AS max_dur_ns
  FROM report_sync WHERE event_id IN (SELECT event_id FROM report_clip_sync) GROUP BY name
), per_name AS (
  SELECT 0 AS o, i.name, c.calls, sum(i.blocked_ns) AS total_dur_ns, r.avg_dur_ns,
    r.max_dur_ns, sum(i.blocked_gpu_idle_ns) AS gpu_idle_ns
  FROM report_sync_idle i JOIN calls c USING (name) JOIN raw r USING (name)
  WHERE i.name IS NOT NULL GROUP BY i.name
), total AS (
  SELECT 1 AS o, '(all of the above, nested calls counted once)' AS name,
    (SELECT count(DISTINCT event_id) FROM report_clip_sync) AS calls,
    sum(blocked_ns) AS total_dur_ns, NULL AS avg_dur_ns,
    (SELECT max(max_dur_ns) FROM raw) AS max_dur_ns, sum(blocked_gpu_idle_ns) AS gpu_idle_ns
  FROM report_sync_idle WHERE name IS NULL
), window AS (
  SELECT max((SELECT sum(end_ts - ts) FROM report_span), 1) AS ns
)
SELECT name, calls, total_dur_ns, avg_dur_ns, max_dur_ns, gpu_idle_ns,
  round(100.0 * total_dur_ns / w.ns, 2) AS pct_window,
  round(100.0 * gpu_idle_ns / w.ns, 2) AS gpu_idle_pct
FROM (SELECT * FROM per_name UNION ALL SELECT * FROM total WHERE calls > 0), window w
ORDER BY o, total_dur_ns DESC, name;
