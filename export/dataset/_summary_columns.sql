-- _summary_columns.sql — after a summary's rows are copied: the columns of
-- the kept events that no report query reads, emptied (NULL), so that the
-- summary does not carry their numbers (10-20% of a summary's compressed
-- bytes).  export.report_dir_frames checks that no query of the report or
-- of profdb diff names them (and which queries name self_dur and path_id:
-- those of _op_stats, _attr_shape, _attr_range and the memory snapshots,
-- and _slice_tree's over 1 ms only in lib/36_gpu_gaps.sql).
--   _slice       the args kept for users (External id, sequence number,
--                forward thread, event index, CUPTI callback id, Python
--                ids, record function id, strides, ROCm kernel name), the
--                other event keys
--   _gpu         the launch configuration (grid, block, registers, shared
--                memory, occupancy), External id, bandwidth, other keys
--   _slice_tree  self time (the report takes operators' times from
--                _op_stats) but over 1 ms (lib/36_gpu_gaps.sql's host
--                stalls inside one call; _summary_drop.sql keeps those
--                slices), and the range path (read with memory snapshots
--                only, which are not in summaries)

UPDATE main._slice SET external_id = NULL, seq_num = NULL, fwd_tid = NULL, ev_idx = NULL,
  cbid = NULL, python_id = NULL, python_parent_id = NULL, record_fn_id = NULL,
  input_strides = NULL, kernel_id = NULL, extra = NULL;

UPDATE main._gpu SET external_id = NULL, grid_x = NULL, grid_y = NULL, grid_z = NULL,
  block_x = NULL, block_y = NULL, block_z = NULL, registers = NULL, shared_memory = NULL,
  blocks_per_sm = NULL, warps_per_sm = NULL, occupancy_pct = NULL, bandwidth_gbps = NULL,
  extra = NULL;

UPDATE main._slice_tree SET self_dur = CASE WHEN self_dur > 1000000 THEN self_dur END,
  path_id = NULL;
