-- ts/dur are exact integer ns: integer µs, 3-decimal fixed point, 19
-- significant digits, exponents, negative values and numeric strings;
-- sub-ns digits round half to even; out-of-range and non-numbers are NULL
-- with the raw text kept in extra; so is a dur whose end (ts + dur) is
-- beyond int64 (found by fuzz_trace: a signed overflow).
SELECT name, ts, dur, extra FROM event WHERE ph = 'X' ORDER BY event_id;
SELECT name, ts, scope FROM instant;
SELECT name, value FROM import_stats WHERE name LIKE 'time%' OR name LIKE 'event_missing%'
  OR name = 'negative_dur' ORDER BY name;
