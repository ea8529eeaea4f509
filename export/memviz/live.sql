-- memory_viz export: the allocations live right after the window's last
-- event (mem_live_at: the rules of PyTorch's memory viewer), written as the
-- active_allocated blocks of the window's segments.
-- Parameters: :snapshot, :device, :last (-1: before the first event).
-- Output, by address:
--   addr            the allocation's address
--   requested_size  bytes asked for (the trace's sizes are requested bytes)
--   size            the block's size: the final snapshot's block when it is
--                   still this allocation (no alloc at its address after the
--                   window), else the requested size rounded up to the
--                   allocator's 512-byte minimum (its real block may be
--                   larger when the allocator did not split it)
--   stack_id        the stack of its allocation, or NULL
WITH later(addr) AS MATERIALIZED (
  -- addresses allocated again after the window: their final block is another
  SELECT DISTINCT addr FROM _alloc_event
  WHERE snapshot_id = :snapshot AND device = :device AND seq > :last
    AND action = (SELECT code FROM _alloc_action WHERE name = 'alloc')
), final(address, size) AS MATERIALIZED (
  SELECT address, size FROM block
  WHERE snapshot_id = :snapshot AND device = :device AND state = 'active_allocated'
    AND address NOT IN later
)
SELECT l.addr, l.size AS requested_size,
  coalesce(f.size, max(512, (l.size + 511) / 512 * 512)) AS size, l.stack_id
FROM mem_live_at(:snapshot, :device, :last) l LEFT JOIN final f ON f.address = l.addr
ORDER BY l.addr;
