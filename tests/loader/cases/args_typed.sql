-- args with a typed column land there when the value has the expected
-- type; anything else ("inf", "N/A", a string grid, a 2-element block, a
-- >64-bit correlation) stays in args exactly as written; nothing is lost.
SELECT name, device, stream, correlation, external_id, grid, block, registers,
  shared_memory, blocks_per_sm, warps_per_sm, occupancy_pct, args FROM kernel ORDER BY ts;
SELECT name, copy_kind, bytes, bandwidth_gbps, args FROM memcpy;
SELECT name, external_id, seq_num, fwd_tid, ev_idx, input_dims, input_types, input_strides,
  concrete_inputs, record_fn_id, args FROM cpu_op;
-- a runtime call's kernel name is interned; a kernel arg that is no string stays in args
SELECT name, correlation, kernel, args FROM runtime ORDER BY ts;
SELECT name, python_id, python_parent_id, args FROM python_function;
SELECT name, addr, bytes, total_allocated, total_reserved, device_type, device_id, args FROM memory_event ORDER BY ts;
-- the args view expands every residual arg
SELECT e.name, a.key, a.value, a.type FROM args a JOIN event e USING (event_id)
WHERE e.name = 'aten::conv2d' ORDER BY a.key;
SELECT name, value FROM import_stats WHERE name IN ('typed_arg_kept_raw', 'int_beyond_int64') ORDER BY name;
