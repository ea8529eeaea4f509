-- postpass_step_gpu.sql — each step's GPU projection, run once the step
-- rows exist.  ?1 = the first trace id of this load.

-- The GPU projection: union of the step's gpu_user_annotation ranges.
UPDATE step SET (gpu_ts, gpu_dur) = (SELECT min(g.ts), max(g.ts + g.dur) - min(g.ts)
  FROM _gpu g JOIN _string n ON n.id = g.name_id
  WHERE g.trace_id = step.trace_id
  AND g.kind = (SELECT kind FROM _kind WHERE name = 'gpu_annotation')
  AND n.value = 'ProfilerStep#' || step.step)
WHERE trace_id >= ?1;
