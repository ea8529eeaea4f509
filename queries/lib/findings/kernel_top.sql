-- Measure: GPU time per kernel (copy, fill) name, per rank: the subjects of the kernel rules.
-- Top 3 kernels (or copies, fills) of a kind, as subjects.
-- (per rank: a job with more ranks that behave alike names the same
-- figures)
-- Builds: measure_kernel_top
-- Reads: measure_time, report_gpu, report_name
CREATE TEMP TABLE measure_kernel_top (
  kind     TEXT,     -- kernel, memcpy or memset
  category TEXT,     -- kernel category
  is_fill  INTEGER,  -- 1: a fill kernel
  name     TEXT,     -- kernel name
  dur      INTEGER,  -- GPU time per rank, ns
  n        ANY,      -- instances per rank
  short    REAL      -- instances under 10 us per rank
) STRICT;
INSERT INTO measure_kernel_top
  SELECT g.kind, g.category, g.is_fill, n.name,
    CAST(round(1.0 * g.dur / t.ranks) AS INTEGER) AS dur, g.n / t.ranks AS n,
    round(1.0 * g.short / t.ranks, 1) AS short
  FROM (SELECT kind, category, is_fill, name_id, sum(dur) AS dur, count(*) AS n,
          sum(dur < 10000) AS short
        FROM report_gpu GROUP BY kind, category, is_fill, name_id) g
    JOIN report_name n USING (name_id), (SELECT ranks FROM measure_time) t;
