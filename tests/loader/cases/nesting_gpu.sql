-- nesting per thread (kinds interleave), self time, steps; the second
-- cudaLaunchKernel overhangs aten::relu by 1 ns and still nests in it
SELECT name, tid, depth, (SELECT name FROM slice p WHERE p.event_id = s.parent_id) AS parent,
  dur, self_dur, step FROM slice s ORDER BY tid, ts;
SELECT step, ts, dur, gpu_ts, gpu_dur FROM step;
-- links: kernel -> launch (correlation) -> op (External id, else the
-- launch's enclosing cpu_op); the step of a kernel is its launch's step
SELECT k.name, k.stream, k.step, l.name AS launch, o.name AS op
FROM kernel k LEFT JOIN runtime l ON l.event_id = k.launch_id
LEFT JOIN cpu_op o ON o.event_id = k.op_id ORDER BY k.ts;
SELECT name, stream, step, launch_id IS NOT NULL AS linked FROM gpu_sync;
SELECT name, value FROM import_stats WHERE name IN ('slice_overhang', 'gpu_without_launch');
