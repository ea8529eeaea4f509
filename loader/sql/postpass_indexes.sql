-- postpass_indexes.sql — the indexes the post-pass and the views need,
-- created once the parse's rows are written, before the post-pass (load.c,
-- finish_load): on a new database each is built by one sort, which costs
-- less CPU than the writer thread maintaining a B-tree per insert while the
-- parser waits for it (docs/performance.md, issue 42).  An append into a
-- copy of a database that has them maintains them as before.
--
-- The link pass looks slices up by (correlation, kind) and (External id,
-- kind), taking the smallest id: with kind in the index that is one seek
-- even when thousands of events share an id (the older two-column indexes
-- of databases loaded before are replaced).  Steps are found by start.

DROP INDEX IF EXISTS _slice_by_correlation;
DROP INDEX IF EXISTS _slice_by_external_id;
CREATE INDEX IF NOT EXISTS _slice_by_correlation_kind ON _slice(trace_id, correlation, kind)
  WHERE correlation IS NOT NULL;
CREATE INDEX IF NOT EXISTS _slice_by_external_id_kind ON _slice(trace_id, external_id, kind)
  WHERE external_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS step_by_ts ON step(trace_id, ts);
CREATE INDEX IF NOT EXISTS step_by_gpu_ts ON step(trace_id, gpu_ts);
CREATE INDEX IF NOT EXISTS _gpu_by_ts ON _gpu(trace_id, kind, ts);
CREATE INDEX IF NOT EXISTS _alloc_event_by_seq ON _alloc_event(snapshot_id, device, seq);
CREATE INDEX IF NOT EXISTS _block_by_segment ON _block(segment_id);
-- By device too: the replay reads one (snapshot, device) at a time, and a
-- snapshot may have thousands of devices.  Replaces the older snapshot-only
-- index of databases loaded before.
DROP INDEX IF EXISTS _segment_by_snapshot;
CREATE INDEX IF NOT EXISTS _segment_by_device ON _segment(snapshot_id, device);
