-- Measure: allocator and set-up calls per name, per rank (lib/38_claim.sql).
-- Allocator and set-up calls per name (lib/38_claim.sql), per rank: calls
-- and their time, one-time and repeated apart, the autotuning syncs
-- inside convolutions named as such; the innermost operator around the
-- repeated allocator calls comes in setup_op.
-- Builds: measure_setup
-- Reads: measure_time, report_setup_call
CREATE TEMP TABLE measure_setup (
  name     TEXT,     -- call name (autotuning syncs named as such)
  autotune INTEGER,  -- 1: cuDNN / MIOpen autotuning inside a convolution
  repeated INTEGER,  -- 1: recurs through the steps
  calls    REAL,     -- calls per rank
  call_ns  REAL,     -- their time per rank step, ns
  max_dur  INTEGER   -- the longest call, ns
) STRICT;
INSERT INTO measure_setup
  SELECT CASE WHEN autotune THEN name || ' inside convolutions (cuDNN / MIOpen autotuning)'
              ELSE name END AS name,
    autotune, repeated, count(DISTINCT event_id) / t.ranks AS calls,
    sum(b - a) / t.n AS call_ns, max(dur) AS max_dur
  FROM report_setup_call, (SELECT 1.0 * max(rank_steps, 1) AS n,
    1.0 * ranks AS ranks FROM measure_time) t
  GROUP BY name, autotune, repeated;
