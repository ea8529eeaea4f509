-- 2021 category names map to today's (raw name kept); ProfilerStep#N with
-- cat Operator still makes a step; [memory] without cat is a memory event
SELECT raw_cat, cat, kind, count(*) FROM event GROUP BY 1, 2, 3 ORDER BY 1;
SELECT step, ts, dur FROM step;
SELECT name, step, correlation, external_id, launch_id, op_id FROM kernel;
SELECT name, copy_kind, bytes, step FROM memcpy;
SELECT name, input_dims, external_id, step FROM cpu_op ORDER BY ts;
SELECT name, bytes, device_type, device_id FROM memory_event;
