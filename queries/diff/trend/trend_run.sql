-- profdb diff with more than two runs (a trend): what cli/cli_trend.c
-- collects from each consecutive pair's diff, in a private in-memory
-- database that trend.sql and verdict.sql read.  Run 1 is the first
-- database given; each later run is compared with the one before it.

-- The runs, in the order given.
CREATE TABLE trend_input(
  run INTEGER PRIMARY KEY, -- 1, 2, ... in the order given
  input TEXT               -- the database or file as given
);

-- Each run's metrics (lib/35_metrics.sql's diff_metric of its pair).
CREATE TABLE trend_metric(
  run INTEGER,  -- trend_input.run
  metric TEXT,  -- diff_metric.metric (steps, step_time, gpu_util, peak_allocated, ...)
  value REAL,   -- its value: ns per step, %, bytes, count
  PRIMARY KEY(run, metric)
);

-- The gate's checks of each run against the run before it (gate.sql rows).
CREATE TABLE trend_check(
  run INTEGER,    -- the later run of the pair
  ord INTEGER,    -- the check's position
  rule TEXT,      -- the check as written
  measured TEXT,  -- the change it measured, with its unit
  passed INTEGER  -- 1 passed, 0 failed, NULL not evaluated
);
