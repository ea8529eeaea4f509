-- flows pair by (category, id); orphans on either side are kept; ids are
-- per-category namespaces (ac2g 1 and fwdbwd 1 are different flows); an
-- old category name is normalized and the raw one kept.
SELECT cat, flow_id, start_event_id, start_ts, end_event_id, end_ts, events
FROM flow ORDER BY cat, flow_id;
SELECT ph, cat, raw_cat, flow_id, typeof(flow_id), bp FROM flow_event ORDER BY event_id;
SELECT name, value FROM import_stats WHERE name LIKE 'flow%' OR name = 'category_alias' ORDER BY name;
