-- Title: Memory timeline (chart data of mem_peak)
-- Question: How do allocated and reserved bytes move over the allocator
--   events of each device?  The events are cut into at most 600 buckets
--   per device; each bucket keeps its lowest and highest allocated bytes,
--   so the peak is never averaged away.
-- Requires: report_mem_peak
-- Columns:
--   part       -      chart part: snapshot_device
--   title      -      what the part shows
--   seq        -      first allocator event of the bucket
--   time_us    -      its time (microseconds; empty when the snapshot has none)
--   low        bytes  lowest allocated bytes in the bucket
--   high       bytes  highest allocated bytes in the bucket
--   last       bytes  allocated bytes after the bucket's last event (the
--                     level until the next bucket: the chart draws steps)
--   reserved   bytes  highest reserved bytes in the bucket
--   peak       bytes  the device's peak allocated bytes (report_mem_peak)
--   peak_seq   -      first event at the peak
--   step       -      the ProfilerStep(s) of an aligned trace of the same run
--                     starting in the bucket (lib/45_trace_snapshot_clock.sql),
--                     e.g. "step 3"; empty otherwise
WITH ev AS (
  SELECT p.snapshot_id, p.device, p.peak_allocated, p.peak_seq, t.seq, t.time_us,
    t.allocated, t.reserved,
    ntile(600) OVER (PARTITION BY p.snapshot_id, p.device ORDER BY t.seq) AS bucket
  FROM report_mem_peak p, mem_timeline(p.snapshot_id, p.device) t),
ended AS (
  SELECT *, last_value(allocated) OVER (PARTITION BY snapshot_id, device, bucket ORDER BY seq
    ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last
  FROM ev),
buckets AS (
  SELECT snapshot_id, device, bucket, min(seq) AS seq, max(seq) AS seq_end,
    min(time_us) AS time_us, min(allocated) AS low, max(allocated) AS high,
    max(last) AS last, max(reserved) AS reserved, peak_allocated AS peak, peak_seq
  FROM ended
  GROUP BY snapshot_id, device, bucket)
SELECT printf('%d_%d', snapshot_id, device) AS part,
  printf('snapshot %d, device %d', snapshot_id, device) AS title,
  seq, time_us, low, high, last, reserved, peak, peak_seq,
  (SELECT 'step ' || group_concat(c.step, ', ') FROM report_clock_step c
   WHERE c.snapshot_id = b.snapshot_id AND c.device = b.device
     AND c.first_seq BETWEEN b.seq AND b.seq_end
     AND c.trace_id = (SELECT min(trace_id) FROM report_clock_step x
                       WHERE x.snapshot_id = b.snapshot_id AND x.device = b.device)) AS step
FROM buckets b
ORDER BY snapshot_id, device, bucket;
