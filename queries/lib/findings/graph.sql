-- Measure: CUDA/HIP graph replays in the analysed steps (one row).
-- Launch calls in the analysed steps that replay a CUDA/HIP graph: such
-- steps already use CUDA graphs, so no finding advises them.
-- Builds: measure_graph
-- Reads: _slice, _string, report_gpu
CREATE TEMP TABLE measure_graph (
  calls INTEGER   -- graph launch calls
) STRICT;
INSERT INTO measure_graph
  SELECT count(DISTINCT g.launch_id) AS calls
  FROM report_gpu g JOIN _slice r ON r.id = g.launch_id
  WHERE r.name_id IN (SELECT id FROM _string
                      WHERE value GLOB 'cudaGraphLaunch*' OR value GLOB 'hipGraphLaunch*');
