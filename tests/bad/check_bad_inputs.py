#!/usr/bin/env python3
"""Bad inputs made at test time (too big or too many to keep as files).

    check_bad_inputs.py PROFDB FIXTURE WORK_DIR

Each case asserts its outcome: the exit code, the message (with FILE and
OFFSET for malformed input) and what the database holds.  The small fixed
bad inputs (empty file, null, a number, not JSON, a pickle, corrupt gzip,
...) are golden cases in tests/loader/cases; these are the rest:

  * every prefix of a small real trace (FIXTURE) and of its gzip, at a few
    hundred evenly spaced offsets: exit 3 with status='truncated' and a
    prefix of the events, or exit 1 with "FILE:OFFSET: ..."; a gzip cut
    inside its trailer loads whole with gzip_incomplete noted; never a crash;
  * args nested 10,000 levels deep; a 1 MB name; 100,000 distinct names;
  * raw control characters in a string; NaN and Infinity (not JSON);
    1e999 and other unrepresentable times (kept in extra as text, ts NULL).
"""
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def load(profdb, path, db, *extra):
    if os.path.exists(db):
        os.unlink(db)
    r = subprocess.run([profdb, "load", "-q", *extra, path, "-o", db], capture_output=True,
                       text=True)
    return r.returncode, r.stderr


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def check_prefixes(profdb, fixture, work):
    data = open(fixture, "rb").read()
    full_db = os.path.join(work, "full.db")
    rc, err = load(profdb, fixture, full_db)
    if rc != 0:
        fail(f"the fixture itself does not load: {err}")
        return
    total = rows(full_db, "SELECT events FROM trace")[0][0]
    names = [r[0] for r in rows(full_db, "SELECT name FROM event ORDER BY event_id")]
    seen = {}
    loads = 0
    for kind, whole in (("json", data), ("gz", gzip.compress(data))):
        # every offset in the first 64 bytes (the header, the top-level
        # key), then 300 evenly spaced ones; the whole file loads fully.
        offsets = sorted(set(list(range(0, 64)) + [len(whole) * i // 300 for i in range(300)]))
        loads += len(offsets)
        for off in offsets:
            cut = os.path.join(work, f"cut.{kind}")
            body = whole[:off]
            with open(cut, "wb") as f:
                f.write(body)
            db = os.path.join(work, "cut.db")
            rc, err = load(profdb, cut, db)
            seen[rc] = seen.get(rc, 0) + 1
            where = f"{kind} prefix of {off} bytes"
            if rc == 3:
                st = rows(db, "SELECT status, truncated_at, events FROM trace")
                if len(st) != 1 or st[0][0] != "truncated":
                    fail(f"{where}: exit 3 but trace rows {st}")
                    continue
                got = [r[0] for r in rows(db, "SELECT name FROM event ORDER BY event_id")]
                if got != names[:len(got)] or st[0][2] > total:
                    fail(f"{where}: the loaded events are not a prefix of the trace's")
                if "truncated" not in err:
                    fail(f"{where}: no truncation warning: {err!r}")
            elif rc == 1:
                if not re.match(r"profdb: [^:]+(:\d+)?: ", err) or os.path.exists(db):
                    fail(f"{where}: exit 1 without a FILE:OFFSET message or with a database: {err!r}")
            elif rc == 0 and kind == "gz":
                # The deflate data ends inside the gzip trailer: the JSON
                # is whole, so everything loads and the missing trailer is
                # recorded.
                ev = rows(db, "SELECT events FROM trace")[0][0]
                st = rows(db, "SELECT value FROM import_stats WHERE name='gzip_incomplete'")
                if ev != total or st != [(1,)]:
                    fail(f"{where}: exit 0 with {ev} of {total} events, gzip_incomplete {st}")
            elif rc == 2 and off == 0:
                pass  # an empty file: usage-level error, checked by the golden cases
            else:
                fail(f"{where}: exit {rc}: {err[-300:]!r}")
    print(f"prefixes: {loads} loads, exit codes {dict(sorted(seen.items()))}")


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return path


def event(name, ts="1", extra=""):
    return ('{"ph":"X","cat":"cpu_op","name":%s,"pid":1,"tid":1,"ts":%s,"dur":1%s}'
            % (json.dumps(name), ts, extra))


def check_sizes(profdb, work):
    db = os.path.join(work, "t.db")
    # args nested 10,000 levels deep: loaded, the value kept whole
    depth = 10000
    deep = "[" * depth + "1" + "]" * depth
    rc, err = load(profdb, write(work, "deep.json", '{"traceEvents":[%s]}'
                                 % event("deep", extra=',"args":{"a":%s}' % deep)), db)
    if rc != 0:
        fail(f"deep nesting: exit {rc}: {err[-300:]!r}")
    else:
        v = rows(db, "SELECT args FROM cpu_op")[0][0]
        if v != '{"a":%s}' % deep:
            fail("deep nesting: the nested value was not kept exactly")
    # a 1 MB name
    big = "n" * (1 << 20)
    rc, err = load(profdb, write(work, "big.json", '{"traceEvents":[%s]}' % event(big)), db)
    if rc != 0 or rows(db, "SELECT length(name) FROM cpu_op") != [(1 << 20,)]:
        fail(f"1 MB name: exit {rc} {err[-200:]!r}")
    # 100,000 distinct names
    n = 100000
    text = '{"traceEvents":[' + ",".join(event(f"op_{i}", ts=str(i)) for i in range(n)) + "]}"
    rc, err = load(profdb, write(work, "names.json", text), db)
    if rc != 0 or rows(db, "SELECT count(DISTINCT name), count(*) FROM cpu_op") != [(n, n)]:
        fail(f"100k names: exit {rc} {err[-200:]!r}")
    print("sizes: 10k-deep args, 1 MB name, 100k names loaded")


def check_values(profdb, work):
    db = os.path.join(work, "v.db")
    # Raw control characters and NaN / Infinity are not JSON: exit 1 with
    # the offset of the bad byte, no database.
    for name, text in (("control", '{"traceEvents":[%s]}' % event("a\x01b").replace("\\u0001", "\x01")),
                       ("nan", '{"traceEvents":[%s]}' % event("nan", ts="NaN")),
                       ("infinity", '{"traceEvents":[%s]}' % event("inf", ts="Infinity"))):
        path = write(work, name + ".json", text)
        rc, err = load(profdb, path, db)
        if rc != 1 or not re.match(r"profdb: %s:\d+: " % re.escape(path), err) or os.path.exists(db):
            fail(f"{name}: want exit 1 and '{path}:OFFSET: ...', got {rc} {err!r}")
    # Numbers that are JSON but no int64 nanosecond time: ts NULL, the
    # text kept in extra, the event loaded.
    text = '{"traceEvents":[%s,%s,%s]}' % (event("huge", ts="1e999"),
                                           event("beyond", ts="99999999999999999999"),
                                           event("negative", ts="-5.5"))
    rc, err = load(profdb, write(work, "times.json", text), db)
    got = rows(db, "SELECT name, ts, extra FROM event ORDER BY event_id") if rc == 0 else []
    want = [("huge", None, '{"ts":"1e999"}'), ("beyond", None, '{"ts":"99999999999999999999"}'),
            ("negative", -5500, None)]
    if rc != 0 or got != want:
        fail(f"unrepresentable times: exit {rc}, rows {got}, want {want}")
    print("values: control characters, NaN, Infinity refused with offsets; 1e999 kept")


def main():
    profdb, fixture, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    check_prefixes(profdb, fixture, work)
    check_sizes(profdb, work)
    check_values(profdb, work)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
