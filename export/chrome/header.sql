-- Chrome export: the top-level keys written before traceEvents.
-- schemaVersion, deviceProperties (every device of the selected ranks, by
-- id), distributedInfo (of the lowest rank; without "rank" when the slice
-- holds several ranks), traceName, and profdb.export: what was cut out.
-- Parameters: :step (NULL when no --step), :version (export format),
--   :finding (--finding: which finding, the ranks shown and those only
--   named, as JSON; NULL otherwise).
-- Output:
--   key    the top-level key
--   value  its value as JSON text; NULL: not written
WITH first AS (SELECT trace_id FROM _cx_trace ORDER BY sort LIMIT 1)
SELECT 'schemaVersion' AS key,
  (SELECT t.schema_version FROM trace t JOIN first USING (trace_id)) AS value
UNION ALL
SELECT 'deviceProperties', json_group_array(json(properties))
FROM (SELECT d.properties, row_number() OVER (
               PARTITION BY d.device_id ORDER BY c.sort) AS n, d.device_id
      FROM device d JOIN _cx_trace c USING (trace_id)
      WHERE d.properties IS NOT NULL ORDER BY d.device_id)
WHERE n = 1 HAVING count(*) > 0
UNION ALL
SELECT 'distributedInfo',
  CASE WHEN (SELECT count(*) FROM _cx_trace) > 1 THEN json_remove(m.value, '$.rank')
       ELSE json(m.value) END
FROM trace_metadata m JOIN first USING (trace_id) WHERE m.key = 'distributedInfo'
UNION ALL
SELECT 'traceName', json_quote('profdb export of ' || group_concat(label, ', '))
FROM (SELECT label FROM _cx_trace ORDER BY sort)
UNION ALL
SELECT 'profdb.export', CASE WHEN :finding IS NULL THEN e ELSE json_set(e, '$.finding',
  json(:finding)) END
FROM (SELECT json_object('version', :version, 'step', :step,
  'ranks', json_group_array(json_object('pid', pid, 'rank', rank, 'run', run,
    'source', label,
    'from_ns', CASE WHEN lo > -9000000000000000000 THEN lo END,
    'to_ns', CASE WHEN hi < 9000000000000000000 THEN hi END))) AS e
FROM (SELECT * FROM _cx_trace ORDER BY sort));
