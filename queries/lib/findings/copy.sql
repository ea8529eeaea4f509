-- Measure: copy time by kind, per rank step (one row).
-- Copy time by kind (Kineto names each copy "Memcpy HtoD (Pageable ->
-- Device)", "Memcpy DtoD (Device -> Device)", ...): the memcpy rule's
-- advice follows what the copies are (pinning helps only pageable host
-- copies; peer copies, "Memcpy PtoP (Device -> Device)", move data
-- between two GPUs, so same-device advice does not apply to them).  Per
-- rank step, as gpu_m.
-- Builds: measure_copy
-- Reads: measure_time, report_gpu, report_gpu_name
CREATE TEMP TABLE measure_copy (
  total    REAL,     -- copies, ns
  dtod     REAL,     -- device-to-device copies on one GPU, ns
  ptop     REAL,     -- peer copies between two GPUs (PtoP), ns
  pageable REAL      -- copies to or from pageable host memory, ns
) STRICT;
INSERT INTO measure_copy
  SELECT coalesce(sum(g.dur), 0) / t.n AS total,
    coalesce(sum(g.dur) FILTER (WHERE n.name GLOB '*DtoD*'), 0) / t.n AS dtod,
    coalesce(sum(g.dur) FILTER (WHERE n.name GLOB '*PtoP*'), 0) / t.n AS ptop,
    coalesce(sum(g.dur) FILTER (WHERE n.name GLOB '*Pageable*'), 0) / t.n AS pageable
  FROM report_gpu g JOIN report_gpu_name n USING (name_id),
    (SELECT 1.0 * max(rank_steps, 1) AS n FROM measure_time) t
  WHERE g.kind = 'memcpy';
