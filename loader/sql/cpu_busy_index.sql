-- cpu_busy_index.sql — the index of cpu_busy, made once its rows are in
-- (after the nesting pass of a load; after the last summary of a dataset's
-- job database): the report reads a thread's busy intervals in time order.
CREATE INDEX IF NOT EXISTS cpu_busy_by_ts ON cpu_busy(trace_id, class, ts);
