#!/usr/bin/env python3
"""profdb-floor writes exactly the rows and indexes of the database it is
given, so that bench.py's floor column is the write time of the same
content as the load (not of less).

    check_floor.py PROFDB PROFDB_FLOOR SOURCE_DIR WORK_DIR

Loads a trace and a memory snapshot fixture, runs profdb-floor on the
result, and checks: the same tables with the same rows (compared as
multisets, both ways), the same named indexes with the same definitions,
and figures that add up.
"""
import os
import sqlite3
import subprocess
import sys

profdb, floor, src, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
loaded = os.path.join(work, "loaded.db")
out = os.path.join(work, "floor.db")
for p in (loaded, out):
    if os.path.exists(p):
        os.unlink(p)
subprocess.run([profdb, "load", "-q", os.path.join(src, "tests/report/data/train_rank0.json"),
                os.path.join(src, "tests/report/data/memory_snapshot.json"), "-o", loaded],
               check=True)
r = subprocess.run([floor, "-v", loaded, out], capture_output=True, text=True, check=True)
fig = dict(kv.split("=") for kv in r.stdout.split())
failures = []

db = sqlite3.connect(loaded)
db.execute("ATTACH ? AS f", (out,))


def schema(prefix, type_):
    return dict(db.execute(
        f"SELECT name, sql FROM {prefix}.sqlite_schema WHERE type = ? AND sql IS NOT NULL"
        " AND name NOT LIKE 'sqlite%'", (type_,)))


tables = schema("main", "table")
if schema("f", "table") != tables:
    failures.append("the floor database's tables differ from the loaded one's")
if schema("f", "index") != schema("main", "index") or not schema("f", "index"):
    failures.append("the floor database's indexes differ from the loaded one's")
total = 0
for t in tables:
    n = db.execute(f'SELECT count(*) FROM main."{t}"').fetchone()[0]
    total += n
    if db.execute(f'SELECT count(*) FROM f."{t}"').fetchone()[0] != n:
        failures.append(f"{t}: row counts differ")
    for a, b in (("main", "f"), ("f", "main")):
        extra = db.execute(f'SELECT count(*) FROM (SELECT * FROM {a}."{t}"'
                           f' EXCEPT SELECT * FROM {b}."{t}")').fetchone()[0]
        if extra:
            failures.append(f"{t}: {extra} rows of {a} not in {b}")
    if f"{t} " not in r.stderr:
        failures.append(f"{t}: no line in the -v output")
for must in ("_slice", "_gpu", "_alloc_event", "_segment"):
    if db.execute(f'SELECT count(*) FROM main."{must}"').fetchone()[0] == 0:
        failures.append(f"fixture has no {must} rows: the check would prove little")
if int(fig["rows"]) != total or int(fig["tables"]) != len(tables):
    failures.append(f"reported {fig['tables']} tables / {fig['rows']} rows,"
                    f" the database has {len(tables)} / {total}")
s = {k: float(v) for k, v in fig.items() if k.endswith("_s")}
if abs(s["floor_s"] - (s["insert_s"] + s["index_s"] + s["commit_s"])) > 0.0015 or \
        abs(s["floor_rows_s"] - (s["insert_s"] + s["commit_s"])) > 0.0015:
    failures.append(f"figures do not add up: {r.stdout}")
for f in failures:
    print("FAIL:", f)
print(f"floor: {len(tables)} tables, {total} rows compared; {r.stdout.strip()}")
sys.exit(1 if failures else 0)
