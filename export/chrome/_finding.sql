-- Chrome export --finding K: the step a report finding's subjects name
-- (the subjects column of queries/findings.sql, a JSON array of flat
-- objects such as [{"rank": 2, "step": 10}] or [{"kernel": ...}]); its
-- ranks are _finding_ranks.sql's.
-- Parameters: :subjects (the JSON array).
-- Output:
--   step  the step number (the first the subjects name); no row: none
SELECT CAST(j.value ->> 'step' AS INTEGER) AS step
FROM json_each(:subjects) j
WHERE j.type = 'object' AND j.value ->> 'step' IS NOT NULL
ORDER BY CAST(j.key AS INTEGER)
LIMIT 1;
