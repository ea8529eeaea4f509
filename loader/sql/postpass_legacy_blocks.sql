-- postpass_legacy_blocks.sql — PyTorch 2.0 blocks have no address: it is
-- the segment's address plus the sizes of the blocks before it (blocks are
-- listed in address order).  An address past 2^63 (only in a made-up file:
-- sizes are bounded by the loader) stays NULL rather than overflow.
-- ?1 = the first snapshot id of this load.

UPDATE _block SET address = x.address
FROM (SELECT id, CASE WHEN address <= 9223372036854775807 - offset
    THEN address + offset END AS address
  FROM (SELECT b.id AS id, s.address AS address,
    coalesce(sum(b.size) OVER (PARTITION BY b.segment_id ORDER BY b.position
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS offset
    FROM _block b JOIN _segment s ON s.id = b.segment_id
    WHERE b.snapshot_id >= ?1 AND typeof(s.address) = 'integer'
    AND b.segment_id IN (SELECT segment_id FROM _block WHERE snapshot_id >= ?1
     AND address IS NULL))) x
WHERE _block.id = x.id AND _block.address IS NULL;
