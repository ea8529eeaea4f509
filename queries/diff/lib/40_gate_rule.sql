-- profdb diff, gate: the checks of --fail-if and --gate FILE, one row each,
-- as the command line parsed them (cli/cli_gate.c inserts them after
-- the prelude; queries/diff/gate.sql judges them).  Empty without checks.
CREATE TEMP TABLE gate_rule(
  ord INTEGER PRIMARY KEY, -- position among the checks (--fail-if first, then the file's)
  rule TEXT,               -- the check as written
  metric TEXT,             -- step_time, step_time_median, step_time_p95, gpu_util, category, kernel, memcpy_bytes, comm_exposed, peak_allocated, peak_reserved, ooms, busbw
  arg TEXT,                -- category or kernel name, or busbw's collective kind (metric[arg]), else NULL
  op TEXT,                 -- '>', '>=', '<' or '<=': the check fails when change op lim
  mode TEXT,               -- 'relative' (% change), 'change' (after - before, in unit; points for %), 'value' (the after value)
  lim REAL,                -- the limit, in the units of mode
  unit TEXT,               -- the metric's unit: ns, bytes, %, count, GB/s
  significant INTEGER      -- 1: fail only when the noise test says the change is beyond the step-to-step spread
);
