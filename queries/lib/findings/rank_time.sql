-- Measure: per rank, the share of its analysed time the GPU idles and data loading takes.
-- Per rank, the share of its analysed time the GPU idles and data loading
-- takes, as subjects (the worst 3 first).
-- Builds: measure_rank_time
-- Reads: report_step_time, report_window
CREATE TEMP TABLE measure_rank_time (
  rank           ANY,      -- rank
  label          TEXT,     -- trace label
  idle_pct       REAL,     -- GPU idle share, %
  dataloader_pct REAL      -- data loading share, %
) STRICT;
INSERT INTO measure_rank_time
  SELECT w.rank, w.label, 100.0 * (sum(t.wall_ns) - sum(t.u4)) / max(sum(t.wall_ns), 1) AS idle_pct,
    100.0 * sum(t.u6 - t.u5) / max(sum(t.wall_ns), 1) AS dataloader_pct
  FROM report_step_time t JOIN report_window w USING (trace_id) GROUP BY t.trace_id;
