-- Chrome export --finding K: which of the ranks a finding names the slice
-- shows, at most :max of them, so that a viewer opens it at any rank
-- count.  A finding naming at most :max ranks: all of them.  Else, for a
-- straggler (the report's TEMP table report_straggler, queries/lib/
-- 50_collectives.sql, every rank of the finding's run by mean lateness at
-- the collectives): the :max / 2 latest arrivals, the median rank and the
-- earliest arrivals (:max under 3: the latest and the earliest), so that the slice shows the late ranks
-- beside the ones that waited for them; for any other rule: its first
-- :max subjects, in the order the finding lists them (most severe
-- first).  The ranks not shown are named in the slice's metadata.  A
-- finding naming no rank (a kernel, a category: the whole job) in a job
-- of more than :max ranks: its :max lowest ranks (the report's traces,
-- TEMP table report_trace); none when it has at most :max (every rank).
-- Parameters: :subjects (the finding's subjects, a JSON array),
--   :rule (its rule id), :evidence (its evidence, JSON: a straggler's
--   names its run), :max.
-- Output:
--   rank   a rank
--   role   'latest', 'median', 'earliest' (a straggler's), 'subject',
--          'sample' (a finding naming no rank)
--   shown  1 when the slice shows it, 0 when its metadata only names it
WITH subj AS (
  SELECT rank, row_number() OVER (ORDER BY min(key)) AS pos
  FROM (SELECT CAST(j.value ->> 'rank' AS INTEGER) AS rank, j.key FROM json_each(:subjects) j
        WHERE j.type = 'object' AND j.value ->> 'rank' IS NOT NULL)
  GROUP BY rank
), bounded AS (SELECT (SELECT count(*) FROM subj) > :max AS over_max),
-- every rank of the straggler's run, latest first
arrival AS (
  SELECT s.rank, row_number() OVER (ORDER BY s.mean_lateness_ns DESC, s.rank) AS pos,
    count(*) OVER () AS n
  FROM temp.report_straggler s, bounded b
  WHERE b.over_max AND :rule = 'straggler' AND json_valid(:evidence) AND s.run = :evidence ->> 'run'
), part AS ( -- k latest, med (0 or 1) median, the rest earliest
  SELECT CASE WHEN :max >= 3 THEN :max / 2 ELSE 1 END AS k, :max >= 3 AS med
), picked AS (
  SELECT a.rank, CASE WHEN a.pos <= p.k THEN 'latest'
    WHEN p.med AND a.pos = (a.n + 1) / 2 THEN 'median' ELSE 'earliest' END AS role
  FROM arrival a, part p
  WHERE a.pos <= p.k OR (p.med AND a.pos = (a.n + 1) / 2) OR a.pos > a.n - (:max - p.k - p.med)
)
SELECT rank, role, 1 AS shown FROM picked
UNION ALL
SELECT rank, 'sample', 1 FROM (
  SELECT DISTINCT rank FROM temp.report_trace
  WHERE NOT EXISTS (SELECT 1 FROM subj)
    AND (SELECT count(DISTINCT rank) FROM temp.report_trace) > :max
  ORDER BY rank LIMIT :max)
UNION ALL
SELECT s.rank, 'subject', NOT b.over_max OR (NOT EXISTS (SELECT 1 FROM picked)
                                      AND s.pos <= :max)
FROM subj s, bounded b WHERE s.rank NOT IN (SELECT rank FROM picked)
ORDER BY shown DESC, rank;
