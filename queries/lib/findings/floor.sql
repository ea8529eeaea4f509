-- Measure: the floor a resource finding's saving must pass (one row).
-- The floor a resource finding's saving must pass.
-- Builds: measure_floor
-- Reads:
CREATE TEMP TABLE measure_floor (
  min_pct   REAL,     -- share of the job step (time rules) or of the reserved memory (memory
                      --   rules), %
  min_ns    INTEGER,  -- time rules: the least saving, ns
  min_bytes INTEGER   -- memory rules: the least saving, bytes
) STRICT;
INSERT INTO measure_floor
SELECT 1.0 AS min_pct, 100000 AS min_ns, 8388608 AS min_bytes;
