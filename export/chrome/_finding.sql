-- Chrome export --finding K: what a report finding's subjects name (the
-- subjects column of queries/findings.sql, a JSON array of flat objects
-- such as [{"rank": 2}, {"rank": 6}] or [{"kernel": ...}]).
-- Parameters: :subjects (the JSON array).
-- Output:
--   what   'rank' or 'step'
--   value  the rank or the step number
SELECT DISTINCT 'rank' AS what, CAST(j.value ->> 'rank' AS INTEGER) AS value
FROM json_each(:subjects) j
WHERE j.type = 'object' AND j.value ->> 'rank' IS NOT NULL
UNION ALL
SELECT DISTINCT 'step', CAST(j.value ->> 'step' AS INTEGER)
FROM json_each(:subjects) j
WHERE j.type = 'object' AND j.value ->> 'step' IS NOT NULL;
