-- Rule: fragmentation
-- 11. Fragmentation at the peak (frag_m above): the saving is the free
-- space inside partly used segments at the peak, bounded by reserved -
-- requested there; whole free segments are cached, not fragmented, and
-- the end-of-run state does not matter for an OOM.  Low confidence when
-- segments overlap; not on expandable-segment snapshots (not modelled).
-- Reads: import_stats, measure_floor, measure_mem, segment
WITH
-- Fragmentation at the peak, bounded (rule 11): expandable segments can
-- give back at most the free space inside partly used segments
-- (frag_external), and never more than reserved - requested at the peak
-- (a snapshot whose segments overlap counts their bytes twice);
-- overlaps: the load's snapshot_overlapping_segments count (import_stats);
-- expandable: the snapshot already uses expandable segments (allocator
-- setting or a segment's is_expandable), whose mapping profdb does not
-- model, so no fragmentation is claimed there.
frag_m AS (
  SELECT m.*,
    max(min(m.frag_external, m.frag_reserved - m.frag_requested), 0) AS bound,
    coalesce((SELECT value FROM import_stats i WHERE i.artifact_id = m.snapshot_id
              AND i.artifact = 'snapshot' AND i.name = 'snapshot_overlapping_segments'), 0)
      AS overlaps,
    coalesce(m.expandable_on, 0) = 1
      OR EXISTS (SELECT 1 FROM segment g WHERE g.snapshot_id = m.snapshot_id
                 AND g.device = m.device AND g.is_expandable = 1) AS expandable
  FROM measure_mem m
)
SELECT round(100.0 * m.bound / m.frag_reserved, 1) AS priority, 'fragmentation' AS rule,
  CASE WHEN m.overlaps > 0 THEN 'low' WHEN m.bound > 0.2 * m.frag_reserved THEN 'high' ELSE
    'medium' END AS confidence,
  printf('%.0f%% of the memory reserved at the peak is free space inside used segments (device %d)',
    100.0 * m.bound / m.frag_reserved, m.device) AS title,
  printf('At the allocation peak: %s reserved, %s requested; the %s difference is %s free ' ||
    'inside segments that hold allocations, %s of rounding inside blocks, %s in segments ' ||
      'holding nothing; expandable segments are %s (mem_fragmentation).%s',
    profdb_fmt_bytes(m.frag_reserved), profdb_fmt_bytes(m.frag_requested),
    profdb_fmt_bytes(m.frag_reserved - m.frag_requested), profdb_fmt_bytes(m.frag_external),
    profdb_fmt_bytes(m.frag_internal), profdb_fmt_bytes(m.frag_free_segments),
    CASE m.expandable_on WHEN 1 THEN 'on' WHEN 0 THEN 'off' ELSE 'not recorded' END,
    CASE WHEN m.overlaps > 0 THEN printf(' %d segment(s) overlap another one (import_stats ' ||
      'snapshot_overlapping_segments): the snapshot is inconsistent and measure_counts their ' ||
        'bytes twice, so these figures are bounds.', m.overlaps)
         ELSE '' END) AS observation,
  'Allocations of varying sizes leave free gaps inside segments that larger requests cannot ' ||
    'use.' AS hypothesis,
  'Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (segments grow in place), or ' ||
    'max_split_size_mb to limit splitting.' AS action,
  printf('Up to %s (%.1f%% of the memory reserved at the peak) returned to use: the free ' ||
    'space inside used segments, at most reserved - requested at the peak.',
    profdb_fmt_bytes(m.bound), 100.0 * m.bound / m.frag_reserved) AS expected_impact,
  'New snapshot: mem_fragmentation.peak_external under 3% of peak_reserved.' AS validation,
  0 AS needs_artifact, round(100.0 * m.bound / m.frag_reserved, 2) AS expected_saving_pct,
    NULL AS expected_saving_ns, m.bound AS expected_saving_bytes,
  json_array(json_object('snapshot', m.snapshot_id, 'device', m.device)) AS subjects,
  json_object('sections', json_array('mem_fragmentation', 'mem_peak'),
    'figures', json_object('peak_reserved', m.frag_reserved, 'peak_requested', m.frag_requested,
      'peak_internal', m.frag_internal, 'peak_external', m.frag_external,
      'peak_free_segments', m.frag_free_segments, 'overlapping_segments',
        m.overlaps)) AS evidence, 0 AS cut_may_explain
FROM frag_m m, measure_floor f
WHERE m.frag_reserved > 0 AND m.segments > 10 AND NOT m.expandable
  AND m.bound > 0.03 * m.frag_reserved AND m.bound >= f.min_bytes;
