"""Round-4 hostile-input cases, text and hashing (issue 40: C4, C9, C11, L3).

usage: hostile4_text.py PROFDB CASE WORKDIR (one case per ctest test).
"""
import csv
import io
import itertools
import json
import os
import re
import resource
import shutil
import string
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile4_common import *  # noqa: E402,F401,F403

FFFD = "\ufffd".encode()
NODE_DIR = os.path.join(ROOT, "tests", "node")


def kernel_trace(out, names, ops=True):
    """A trace with one GPU kernel (and its CPU op) per name."""
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
           "ts": 0, "dur": 10 * len(names) + 10}]
    for i, n in enumerate(names):
        if ops:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "op:" + n, "pid": 1, "tid": 1,
                       "ts": 10 * i, "dur": 5, "args": {"External id": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": 10 * i + 2,
                   "dur": 3, "args": {"device": 0, "stream": 7, "correlation": i + 1,
                                      "External id": i + 1}})
    with open(out, "w") as f:
        json.dump({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1},
                   "traceEvents": ev}, f)


def load(names):
    kernel_trace(path("t.json"), names)
    r = run("load", path("t.json"), "-o", path("t.db"), "-q")
    check(r.returncode == 0, "load exit %d: %s" % (r.returncode, r.stderr[-300:]))
    return path("t.db")


# ---- C9: CSV formula cells and raw control bytes --------------------------

FORMULAS = ["=cmd|' /C calc'!A0", "+SUM(1+1)*cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
            "\tTAB=1+1", "\rCR=1+1", "=HYPERLINK(\"http://x\",\"y\")"]
CONTROLS = ["esc\x1b]0;pwned\x07\x1b[31mred", "c1\x85\x9b31m", "del\x7fx", "line1\nline2"]
NUMBERS = ["-3", "-1.5e3", "+7", "+0.5%"]


def is_number(cell):
    """A plain decimal number: a spreadsheet reads it as a number."""
    return re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?%?", cell) is not None


def bad_bytes(data):
    """Raw ESC, BEL, CR outside a CRLF line end, DEL, NUL or a C1 control."""
    body = data.replace(b"\r\n", b"\n")
    found = [c for c in (b"\x1b", b"\x07", b"\x7f", b"\x00", b"\r") if c in body]
    found += ["C1" for i in range(len(data) - 1)
              if data[i] == 0xC2 and 0x80 <= data[i + 1] <= 0x9F][:1]
    return found


def check_csv(name, data, want):
    check(not bad_bytes(data), "%s: raw control bytes %s" % (name, bad_bytes(data)))
    cells = [c for row in csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
             for c in row]
    for c in cells:
        check(not c[:1] or c[0] not in "=+-@\t\r" or is_number(c),
              "%s: formula cell %r" % (name, c))
    for w in want:
        check(w in cells, "%s: cell %r missing" % (name, w))


def case_c9_csv_injection():
    db = load(FORMULAS + CONTROLS + NUMBERS + ["plain"])
    r = run("report", db, "--top", "100", "--csv", path("csv"), "--json", os.devnull)
    check(r.returncode == 0, "report exit %d: %s" % (r.returncode, r.stderr[-300:]))
    want = ["'=cmd|' /C calc'!A0", "'+SUM(1+1)*cmd|' /C calc'!A0", "'-2+3", "'@SUM(A1)",
            "'\tTAB=1+1", "\ufffdCR=1+1", "esc\ufffd]0;pwned\ufffd\ufffd[31mred",
            "c1\ufffd\ufffd31m", "del\ufffdx", "line1\nline2", "plain"] + NUMBERS
    data = open(path("csv", "gpu_kernel_sum.csv"), "rb").read()
    check_csv("gpu_kernel_sum.csv", data, want)
    for f in sorted(os.listdir(path("csv"))):
        check_csv(f, open(path("csv", f), "rb").read(), [])
    # profdb query --csv: the same field writer; numbers from SQL untouched.
    r = run("query", db, "--csv",
            "SELECT value AS name, -5 AS neg, -2.5 AS r FROM _string"
            " WHERE value NOT LIKE 'op:%' ORDER BY value")
    check(r.returncode == 0, "query exit %d: %s" % (r.returncode, r.stderr[-300:]))
    check_csv("query --csv", r.stdout, want + ["-5", "-2.5"])


# ---- L3: a NUL in a name ---------------------------------------------------

def case_l3_nul_name():
    db = load(["nul\x00byte", "plain"])
    r = run("report", db, "--top", "100", "--csv", path("csv"), "--json", path("r.json"))
    check(r.returncode == 0, "report exit %d: %s" % (r.returncode, r.stderr[-300:]))
    data = open(path("csv", "gpu_kernel_sum.csv"), "rb").read()
    check(b"nul" + FFFD + b"byte" in data, "CSV: the name is cut at its NUL")
    check(b"\x00" not in data, "CSV: a raw NUL byte")
    r = run("query", db, "--csv", "SELECT value FROM _string WHERE value LIKE 'nul%'")
    check(b"nul" + FFFD + b"byte" in r.stdout, "query --csv: NUL not shown as U+FFFD")
    # memory_viz: the NUL kept (JSON \u0000, a byte of the pickle's str).
    snap = json.load(open(os.path.join(os.path.dirname(TRACE_A), "memory_snapshot.json")))
    text = json.dumps(snap).replace('"train_step"', '"train\\u0000step"')
    check("train\\u0000step" in text, "test: no train_step frame to rename")
    with open(path("snap.json"), "w") as f:
        f.write(text)
    r = run("load", path("snap.json"), "-o", path("s.db"), "-q")
    check(r.returncode == 0, "load snapshot exit %d: %s" % (r.returncode, r.stderr[-300:]))
    for out, want in (("w.json", b"train\\u0000step"), ("w.pickle", b"train\x00step")):
        r = run("export", path("s.db"), "--format", "memory_viz", "-o", path(out))
        check(r.returncode == 0, "memory_viz %s exit %d: %s" % (out, r.returncode,
                                                                r.stderr[-300:]))
        if r.returncode == 0:
            check(want in open(path(out), "rb").read(), "memory_viz %s: name cut at NUL" % out)
    if r.returncode == 0:
        json.load(open(path("w.json")))  # still valid JSON


# ---- C4: a file name that is not UTF-8 -------------------------------------

def duckdb(sql):
    """One DuckDB query through tests/node, or None when it is not installed."""
    if not shutil.which("node") or not os.path.isdir(
            os.path.join(NODE_DIR, "node_modules", "@duckdb", "node-api")):
        return None
    code = ("const {DuckDBInstance} = await import('@duckdb/node-api');"
            "const c = await (await DuckDBInstance.create(':memory:')).connect();"
            "try { const r = await c.runAndReadAll(process.argv[1]);"
            " console.log(JSON.stringify(r.getRowsJson())); }"
            "catch (e) { console.log('ERROR ' + e.message); process.exit(1); }")
    return subprocess.run(["node", "--input-type=module", "-e", code, sql], cwd=NODE_DIR,
                          capture_output=True, timeout=120)


def case_c4_nonutf8_label():
    src = os.fsencode(path("in"))
    os.makedirs(src)
    name = os.path.join(src, b"rank0_\xff\xfe.json")
    shutil.copy(TRACE_A, name)
    r = subprocess.run([ctx.profdb, "export", name, "-o", path("ds"), "--run", "j1",
                        "--compression", "none", "-q"], capture_output=True, timeout=300)
    check(r.returncode == 0, "export exit %d: %s" % (r.returncode, r.stderr[-300:]))
    files = []
    for d, _, fs in os.walk(path("ds")):
        files += [os.path.join(d, f) for f in fs if f.endswith(".parquet")]
    check(files, "no Parquet files")
    raw, fixed = b"rank0_\xff\xfe", b"rank0_" + FFFD + FFFD
    for f in files:
        data = open(f, "rb").read()
        check(raw not in data, "%s: the label's invalid bytes written raw" % f)
    trace = [f for f in files if os.sep + "trace" + os.sep in f]
    check(len(trace) == 1, "trace files: %s" % trace)
    for f in trace:
        # the label column's dictionary and the profdb.source metadata
        check(open(f, "rb").read().count(fixed) >= 2, "%s: repaired label missing" % f)
    r = duckdb("SELECT label FROM read_parquet('%s/trace/*/*/*.parquet')" % path("ds"))
    if r is None:
        print("DuckDB half skipped: no node or tests/node/node_modules")
        return
    check(r.returncode == 0, "DuckDB: %s" % (r.stdout + r.stderr)[-400:].decode("utf-8",
                                                                               "replace"))
    check("rank0_\ufffd\ufffd" in r.stdout.decode("utf-8", "replace"), "DuckDB label: %r"
          % r.stdout[-200:])


# ---- C11: the Parquet dictionary's hash ------------------------------------

def fnv_colliding_names(k):
    """2^k names whose 32-bit FNV-1a hashes agree in their low 20 bits: "k"
    and k blocks, each one of two 5-letter blocks that take FNV-1a's state
    (mod 2^20) back to where it was."""
    prime, mask = 16777619, (1 << 20) - 1
    inv = pow(prime, -1, 1 << 32)

    def step(h, b):
        return ((h ^ b) * prime) & 0xFFFFFFFF
    s0 = step(2166136261, ord("k")) & mask
    letters = [ord(c) for c in string.ascii_letters]
    after3 = {}
    for b in itertools.product(letters, repeat=3):
        s = s0
        for x in b:
            s = step(s, x) & mask
        after3.setdefault(s, b)
    blocks = []
    for b5, b4 in itertools.product(letters, repeat=2):
        s = (((((s0 * inv) & mask) ^ b5) * inv) & mask) ^ b4  # state before byte 4
        if s in after3:
            blocks.append(bytes(after3[s]) + bytes([b4, b5]))
            if len(blocks) == 2:
                break
    assert len(blocks) == 2
    return ["k" + b"".join(c).decode() for c in itertools.product(blocks, repeat=k)]


def cpu_seconds(*args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = run(*args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    check(r.returncode == 0, "%s exit %d: %s" % (args[0], r.returncode, r.stderr[-300:]))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def case_c11_dictionary_hash():
    names = fnv_colliding_names(17)
    control = ["k%0*d" % (len(names[0]) - 1, i) for i in range(len(names))]
    for n, ns in (("hostile", names), ("control", control)):
        kernel_trace(path(n + ".json"), ns, ops=False)
        r = run("load", path(n + ".json"), "-o", path(n + ".db"), "-q")
        check(r.returncode == 0, "load %s exit %d" % (n, r.returncode))
    t0 = time.time()
    hostile = cpu_seconds("export", path("hostile.db"), "-o", path("ds_h"), "--run", "h", "-q")
    plain = cpu_seconds("export", path("control.db"), "-o", path("ds_c"), "--run", "c", "-q")
    print("export CPU: %d FNV-colliding names %.2f s, ordinary names %.2f s (%.0f s wall)"
          % (len(names), hostile, plain, time.time() - t0))
    check(hostile <= 2.5 * plain + 0.5, "colliding names %.2f s vs %.2f s: not linear"
          % (hostile, plain))


if __name__ == "__main__":
    main(globals())
