#!/usr/bin/env python3
"""Every profdb SQL function works when another extension that exports
generic symbols (stats_init, format_init, ...) was loaded first.

    check_decoy.py DECOY_SO PROFDB_SO PROFDB WORK_DIR

SQLite dlopens extensions with RTLD_GLOBAL, so a symbol of an extension
loaded earlier can be bound in place of a same-named one of profdb.so,
unless profdb.so exports only its entry point.  Each call below runs on
two connections, one that loaded the decoy and then profdb.so, and one
that loaded only profdb.so (the same library, already in the process);
both must give the result written here.
"""
import os
import sqlite3
import subprocess
import sys

decoy, profdb_so, profdb, work = sys.argv[1:5]
here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.dirname(here)
os.makedirs(work, exist_ok=True)
db = os.path.join(work, "decoy.db")
if os.path.exists(db):
    os.remove(db)
subprocess.run([profdb, "load", "-q", "-o", db,
                os.path.join(tests, "sql", "data", "trace_memory.json"),
                os.path.join(tests, "report", "data", "memory_snapshot.json")],
               check=True)

# One call per function of the extension, with the value it must give.
CALLS = [
    ("SELECT kernel_category('ampere_sgemm_128x64_tn')", [("GEMM",)]),
    ("SELECT op_family('aten::mm')", [("matmul",)]),
    ("SELECT frame_rank('/home/u/train.py')", [(0,)]),
    ("SELECT kernel_base('void at::native::k<4>(int)')", [("at::native::k",)]),
    ("SELECT interval_union(s, e) FROM (SELECT 0 s, 10 e UNION ALL SELECT 5, 20)", [(20,)]),
    ("SELECT interval_overlap(s, e, c) FROM (SELECT 0 s, 10 e, 1 c UNION ALL SELECT 5, 20, 0)",
     [(5,)]),
    ("SELECT interval_layers(s, e, l) FROM (SELECT 0 s, 10 e, 0 l UNION ALL SELECT 5, 20, 1)",
     [("[10,10]",)]),
    ("SELECT profdb_median(x) FROM (SELECT 1 x UNION ALL SELECT 3)", [(2.0,)]),
    ("SELECT profdb_percentile(x, 100) FROM (SELECT 1 x UNION ALL SELECT 3)", [(3,)]),
    ("SELECT profdb_fmt_bytes(1536), profdb_fmt_ns(1500000)", [("1.50 KiB", "1.50 ms")]),
    ("SELECT profdb_version() GLOB '[0-9]*.[0-9]*.[0-9]*'", [(1,)]),
    ("SELECT count(*) > 0 FROM mem_timeline(1, 0)", [(1,)]),
    ("SELECT peak_allocated > 0 FROM mem_peak(1, 0)", [(1,)]),
    ("SELECT count(*) > 0 FROM mem_live_at(1, 0, (SELECT peak_seq FROM mem_peak(1, 0)))",
     [(1,)]),
    ("SELECT count(*) > 0 FROM mem_trace_peak(1)", [(1,)]),
]


def connect(first):
    con = sqlite3.connect(db)
    con.enable_load_extension(True)
    for so in first:
        con.load_extension(so)
    return con


def run(con, sql):
    try:
        return con.execute(sql).fetchall()
    except sqlite3.Error as e:
        return "error: %s" % e


# The decoy first in this process: a library is relocated once, when it is
# first loaded, so loading profdb.so before the decoy would hide the bug.
with_decoy = connect([decoy, profdb_so])
reference = connect([profdb_so])
failures = 0
for sql, want in CALLS:
    ref, got = run(reference, sql), run(with_decoy, sql)
    if ref != want:
        print("FAIL (profdb.so alone) %s -> %r, want %r" % (sql, ref, want))
        failures += 1
    if got != want:
        print("FAIL (decoy loaded first) %s -> %r, want %r" % (sql, got, want))
        failures += 1
print("%d calls, %d failures" % (len(CALLS), failures))
sys.exit(1 if failures else 0)
