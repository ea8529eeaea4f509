-- Export table stack_frame: the frames of the stacks a snapshot's segments,
-- blocks and actions refer to, innermost first.
-- Parameters: :snapshot_id, :run, :rank.
-- Output:
--   run       STRING  run
--   rank      INT64   rank
--   stack_id  INT64   stack number in the snapshot (1..)
--   depth     INT64   0 = innermost frame
--   filename  STRING  source file
--   line      INT64   line
--   name      STRING  function
SELECT :run AS run, :rank AS rank, x.local_id AS stack_id, f.depth, f.filename, f.line,
  f.name
FROM temp._export_stack x JOIN stack_frame f ON f.stack_id = x.stack_id
ORDER BY x.local_id, f.depth;
