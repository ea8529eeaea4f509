-- Measure: reported traces that end early (one row).
-- Reported traces that end early (trace.status = 'truncated', set by the
-- load, which exits 3): events past the cut are missing.  Kineto writes
-- the GPU events after the CPU events, so a cut trace loses its GPU work
-- first; the findings that missing events could explain say so (cut_rule).
-- Builds: measure_cut
-- Reads: report_trace, trace
CREATE TEMP TABLE measure_cut (
  traces INTEGER,  -- truncated traces
  list   TEXT      -- where each ends, in words (NULL: none)
) STRICT;
INSERT INTO measure_cut
  SELECT count(*) AS traces,
    group_concat(printf('%s ends at byte %d of its decompressed JSON', t.label, t.truncated_at),
      '; ') AS list
  FROM trace t
  WHERE t.trace_id IN (SELECT trace_id FROM report_trace) AND t.status = 'truncated';
