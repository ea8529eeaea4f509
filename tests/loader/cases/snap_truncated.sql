-- a snapshot cut inside a segment's block list: the blocks read so far
-- are kept and the segment row is written with what was read
SELECT status, truncated_at, segments, blocks, trace_entries FROM snapshot;
SELECT id, address, total_size, extra FROM _segment;
SELECT segment_id, position, size, state FROM block;
