#!/usr/bin/env python3
"""check_threads.py PROFDB SRC WORK: the post-pass's rows go through the
writer's queue (loader/postpass.c, "HOW IT WORKS (threads)"): its scripts and
rows run on the writer thread while the main thread walks the slices.  Loaded
with the writer thread (--threads 2) and without it (--threads 1, every batch
written inline, in order) the shipped GPU example (two traces and a memory
snapshot) gives every table the same rows under the same rowids, the derived
tables are filled, and PROFDB_TIMING says what the writer thread did meanwhile.
"""
import os
import sqlite3
import subprocess
import sys

profdb, src, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
example = os.path.join(src, "docs", "examples", "generated_gpu_run")


def load(threads):
    db = os.path.join(work, f"t{threads}.db")
    if os.path.exists(db):
        os.unlink(db)
    r = subprocess.run([profdb, "load", "-q", "--threads", str(threads), example, "-o", db],
                       env=dict(os.environ, PROFDB_TIMING="1"), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"load --threads {threads}: exit {r.returncode}: {r.stderr[-400:]}")
    return db, r.stderr


def dump(db):
    c = sqlite3.connect(db)
    out = {}
    for name, sql in c.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"
                               " AND name NOT LIKE 'sqlite_%' ORDER BY name"):
        rowid = "WITHOUT ROWID" not in sql.upper()
        q = f'SELECT {"rowid, " if rowid else ""}* FROM "{name}"'
        rows = [list(r) for r in c.execute(q + (" ORDER BY rowid" if rowid else ""))]
        if not rowid:
            rows.sort(key=repr)
        if name in ("trace", "snapshot"):  # the load's own timing
            cols = [d[0] for d in c.execute(q + " LIMIT 0").description]
            for r in rows:
                r[cols.index("load_seconds")] = None
        out[name] = rows
    return out


(db1, _), (db2, err2) = load(1), load(2)
d1, d2 = dump(db1), dump(db2)
bad = [t for t in sorted(set(d1) | set(d2)) if d1.get(t) != d2.get(t)]
if bad:
    sys.exit(f"tables differ between --threads 1 and --threads 2: {', '.join(bad)}")
for t in ("step", "_slice_tree", "cpu_busy", "_op_stats", "_attr_ctx", "_gpu_link"):
    if not d2.get(t):
        sys.exit(f"{t}: no rows")
if "writer thread meanwhile: indexes and scripts" not in err2:
    sys.exit("PROFDB_TIMING: no line for the writer thread during the nesting")
print(f"ok: {len(d2)} tables identical with and without the writer thread")
