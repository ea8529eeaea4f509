#!/usr/bin/env python3
"""Event kinds and allocator actions are defined once, in
include/profdb/codes.h, and referred to by name everywhere else.

    check_codes.py SOURCE_DIR PROFDB WORK_DIR

Fails when
  * a .sql file (loader/, queries/) or any C source compares a kind or an
    action with a bare number (kind = 20, kind IN (10, 11), action = 0,
    CASE kind WHEN 10 ...), in SQL text or in C code;
  * C code keeps its own list of kind or action names (a line with three
    or more of them as string literals), or SQL inserts _kind /
    _alloc_action rows (only loader/codes.c does, from codes.h);
  * a new database's _kind / _alloc_action rows differ from codes.h;
  * the DDL comment of a storage table's kind column does not list exactly
    the kinds codes.h stores in that table (a kind added in one place).
"""
import os
import re
import sqlite3
import subprocess
import sys

src, profdb, work = sys.argv[1:4]
failures = []


def fail(msg):
    failures.append(msg)


# ---- the one definition -------------------------------------------------
codes_h = open(os.path.join(src, "include/profdb/codes.h")).read()
kinds = [(int(c), n, t) for c, n, t in
         re.findall(r'X\(\w+, (\d+), "(\w+)", "(\w+)"\)', codes_h)]
actions = [(int(c), n) for c, n in re.findall(r'X\(\w+, (\d+), "(\w+)"\)\s*\\?\n', codes_h)]
if len(kinds) < 10 or len(actions) < 5:
    sys.exit("cannot read the lists of include/profdb/codes.h")
names = {n for _, n, _ in kinds} | {n for _, n in actions}

# ---- no bare codes ------------------------------------------------------
BARE = re.compile(
    r"\b(kind|action)\s*(=|==|!=|<>|<=|>=|<|>)\s*\d"
    r"|\b(kind|action)\s+(NOT\s+)?IN\s*\(\s*\d"
    r"|\bCASE\s+(\w+\.)?(kind|action)\s+WHEN\s+\d", re.I)


def files(top, exts):
    for d, _, fs in os.walk(os.path.join(src, top)):
        for f in sorted(fs):
            if f.endswith(exts):
                yield os.path.join(d, f)


checked = 0
PRODUCT = ("loader", "report", "export", "cli")
for path in [p for top in PRODUCT + ("queries",) for p in files(top, (".sql",))]:
    checked += 1
    for i, line in enumerate(open(path), 1):
        code = line.split("--", 1)[0]
        if BARE.search(code):
            fail("%s:%d: bare kind/action code: %s" % (os.path.relpath(path, src), i,
                                                       line.strip()))
        if re.search(r"INSERT\b.*\bINTO\s+(_kind|_alloc_action)\b", code, re.I):
            fail("%s:%d: _kind/_alloc_action rows belong to include/profdb/codes.h"
                 % (os.path.relpath(path, src), i))
# C: string literals everywhere; code comparisons too, except in the
# report renderers (their 'kind' is a bracket kind, not an event kind).
for path in [p for top in PRODUCT + ("sqlext",) for p in files(top, (".c", ".h"))]:
    checked += 1
    rel = os.path.relpath(path, src)
    text = open(path).read()
    for i, line in enumerate(text.split("\n"), 1):
        literals = " ".join(re.findall(r'"((?:[^"\\]|\\.)*)"', line))
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line.split("//", 1)[0])
        if BARE.search(literals) or (not rel.startswith("report/") and BARE.search(code)):
            fail("%s:%d: bare kind/action code: %s" % (rel, i, line.strip()))
        listed = [s for s in re.findall(r'"(\w+)"', line) if s in names]
        if len(set(listed)) >= 3:
            fail("%s:%d: a hand-kept list of kind/action names (use codes.h): %s"
                 % (rel, i, line.strip()))

# ---- the database gets the rows of codes.h ------------------------------
os.makedirs(work, exist_ok=True)
db = os.path.join(work, "codes.db")
if os.path.exists(db):
    os.remove(db)
subprocess.run([profdb, "load", "-q", "-o", db,
                os.path.join(src, "tests/report/data/train_rank0.json")], check=True)
con = sqlite3.connect(db)
got = con.execute("SELECT kind, name, storage FROM _kind ORDER BY kind").fetchall()
if got != sorted(kinds):
    fail("_kind rows %r differ from codes.h %r" % (got, sorted(kinds)))
got = con.execute("SELECT code, name FROM _alloc_action ORDER BY code").fetchall()
if got != sorted(actions):
    fail("_alloc_action rows %r differ from codes.h %r" % (got, sorted(actions)))

# ---- the storage tables' kind comments name exactly their kinds ---------
ddl_files = ("loader/schema_trace.sql", "loader/schema_trace_events.sql")
ddl = {f: open(os.path.join(src, f)).read() for f in ddl_files}
for table in sorted({t for _, _, t in kinds}):
    pattern = (r"CREATE TABLE IF NOT EXISTS %s\(.*?-- kind code \(_kind\):(.*?)\n\s*kind "
               % re.escape(table))
    found = [(f, m) for f in ddl_files for m in [re.search(pattern, ddl[f], re.S)] if m]
    if not found:
        fail("%s: %s has no 'kind code (_kind): ...' comment" % (" or ".join(ddl_files), table))
        continue
    where, m = found[0]
    listed = re.findall(r"\w+", m.group(1).replace("--", " "))
    want = [n for _, n, t in kinds if t == table]
    if listed != want:
        fail("%s: the kind comment of %s lists %s; codes.h stores %s there"
             % (where, table, ", ".join(listed), ", ".join(want)))

for f in failures:
    print("FAIL", f)
print("%d files checked, %d kinds, %d actions, %d failures"
      % (checked, len(kinds), len(actions), len(failures)))
sys.exit(1 if failures else 0)
