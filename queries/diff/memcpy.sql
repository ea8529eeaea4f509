-- Title: Copies by direction, per step
-- Question: Did host-device traffic change?  Bytes and time per step of
--   each copy direction, before and after.
-- Requires: diff_gpu_name
-- Empty: neither run copies memory in its analysed steps
-- Columns:
--   copy_kind        -      HtoD, DtoH, DtoD, ... (from the copy's name, as the memcpy view)
--   before_bytes     bytes  bytes per step, before
--   after_bytes      bytes  bytes per step, after
--   bytes_change_pct %      change of the bytes (empty when before is 0)
--   before_ns        ns     copy time per step, before
--   after_ns         ns     copy time per step, after
--   delta_ns         ns     after - before
WITH c AS (
  SELECT coalesce((SELECT k.copy_kind FROM main._copy_kind k WHERE g.name LIKE k.pattern
                    ORDER BY k.priority LIMIT 1), g.name) AS copy_kind,
    1.0 * coalesce(sum(bytes) FILTER (WHERE side = 'before'), 0)
      / (SELECT steps FROM diff_per_step WHERE side = 'before') AS bb,
    1.0 * coalesce(sum(bytes) FILTER (WHERE side = 'after'), 0)
      / (SELECT steps FROM diff_per_step WHERE side = 'after') AS ba,
    1.0 * coalesce(sum(total_dur) FILTER (WHERE side = 'before'), 0)
      / (SELECT steps FROM diff_per_step WHERE side = 'before') AS tb,
    1.0 * coalesce(sum(total_dur) FILTER (WHERE side = 'after'), 0)
      / (SELECT steps FROM diff_per_step WHERE side = 'after') AS ta
  FROM diff_gpu_name g WHERE kind = 'memcpy' GROUP BY copy_kind
)
SELECT copy_kind, CAST(round(bb) AS INTEGER) AS before_bytes, CAST(round(ba) AS INTEGER) AS after_bytes,
  CASE WHEN bb > 0 THEN round(100.0 * (ba - bb) / bb, 2) END AS bytes_change_pct,
  CAST(round(tb) AS INTEGER) AS before_ns, CAST(round(ta) AS INTEGER) AS after_ns,
  CAST(round(ta - tb) AS INTEGER) AS delta_ns
FROM c ORDER BY abs(ta - tb) DESC, copy_kind;
