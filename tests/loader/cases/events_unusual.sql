-- every element of traceEvents becomes a row, whatever its phase or shape
SELECT event_id, ph, kind, cat, raw_cat, name, ts, dur, args, extra FROM event ORDER BY event_id;
SELECT name, severity, value FROM import_stats WHERE artifact_id = 1 ORDER BY name;
SELECT code, message FROM import_log WHERE code IN ('invalid_utf8', 'duplicate_key', 'event_not_object') ORDER BY rowid;
