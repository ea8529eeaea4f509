-- Title: GPU memory
-- Question: Does the run hold less memory after?  Per device, from the
--   most recent memory snapshot of each run: reserved, allocated and
--   inactive bytes when it was taken, the replayed peak, fragmentation and
--   OOMs.  The change row is after - before (percentage points for %).
-- Requires: diff_mem
-- Empty: neither database has a memory snapshot
-- Columns:
--   device            -      device ordinal
--   side              -      before, after, or change
--   reserved          bytes  bytes in cudaMalloc'd segments
--   allocated         bytes  bytes of allocated blocks
--   inactive          bytes  bytes cached but unused
--   fragmentation_pct %      inactive / reserved
--   peak_allocated    bytes  peak allocated (mem_peak replay)
--   peak_reserved     bytes  peak reserved
--   ooms              count  out-of-memory events recorded
WITH per AS (
  SELECT m.device, d.ord, m.side, m.reserved, m.allocated, m.inactive,
    100.0 * m.inactive / max(m.reserved, 1) AS frag, m.peak_allocated, m.peak_reserved, m.ooms
  FROM diff_mem m JOIN diff_sides d USING (side)
), rows AS (
  SELECT * FROM per
  UNION ALL
  SELECT a.device, 2, 'change', a.reserved - b.reserved, a.allocated - b.allocated,
    a.inactive - b.inactive, a.frag - b.frag, a.peak_allocated - b.peak_allocated,
    a.peak_reserved - b.peak_reserved, a.ooms - b.ooms
  FROM per a JOIN per b ON b.device = a.device AND b.side = 'before' WHERE a.side = 'after'
)
SELECT device, side, reserved, allocated, inactive, round(frag, 2) AS fragmentation_pct,
  peak_allocated, peak_reserved, ooms
FROM rows ORDER BY device, ord;
