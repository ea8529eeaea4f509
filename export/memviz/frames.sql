-- memory_viz export: the frames of one stack, innermost first (as the
-- snapshot lists them).
-- Parameters: :stack.
-- Output, by depth:
--   filename, line, name  the frame
SELECT filename, line, name FROM stack_frame WHERE stack_id = :stack ORDER BY depth;
