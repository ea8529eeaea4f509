-- postpass_indexes.sql — the indexes the post-pass and the views need,
-- created once the rows are in (faster than maintaining them while loading).

CREATE INDEX IF NOT EXISTS _slice_by_correlation ON _slice(trace_id, correlation)
  WHERE correlation IS NOT NULL;
CREATE INDEX IF NOT EXISTS _slice_by_external_id ON _slice(trace_id, external_id)
  WHERE external_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS _gpu_by_ts ON _gpu(trace_id, kind, ts);
CREATE INDEX IF NOT EXISTS _alloc_event_by_seq ON _alloc_event(snapshot_id, device, seq);
CREATE INDEX IF NOT EXISTS _block_by_segment ON _block(segment_id);
CREATE INDEX IF NOT EXISTS _segment_by_snapshot ON _segment(snapshot_id);
