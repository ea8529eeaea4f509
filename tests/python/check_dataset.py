#!/usr/bin/env python3
"""python.dataset: the package on a Parquet dataset of profdb export, and
profdb.trace_handler on a generated trace stream (issue 45).

    check_dataset.py PROFDB SOURCE_DIR BUILD_DIR WORK_DIR

The package is assembled from the source tree (python/profdb) and the
build's libprofdbpy.so (cmake --build BUILD_DIR --target profdbpy), as pip
installs it, and run by Debian's /usr/bin/python3:
  * profdb.open(DIR) of a dataset: report() equals `profdb report DIR
    --json` (all but "inputs"), section() its rows, findings() its
    findings, profdb.diff(DIR, DIR) `profdb diff DIR DIR --json`;
    report(run=...) selects a run, an unknown run raises naming the runs;
    sql() raises naming DuckDB (not "disk I/O error");
  * trace_handler("x.db") as torch.profiler's on_trace_ready: a fake
    profiler whose export_chrome_trace writes a generated trace, 3 cycles:
    3 traces in the database, no trace file left; trace_handler(DIR): one
    run per cycle in the dataset, each reported; a load that fails warns
    and keeps its trace (training goes on).
"""
import glob
import json
import os
import shutil
import subprocess
import sys

profdb, source, build, work = sys.argv[1:5]
SYS_PY = "/usr/bin/python3"
if not os.path.exists(SYS_PY):
    print("skipped: no /usr/bin/python3")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
pkg = os.path.join(work, "pkg", "profdb")
os.makedirs(pkg)
subprocess.run(["cmake", "--build", build, "--target", "profdbpy"], check=True,
               stdout=subprocess.DEVNULL)
for f in glob.glob(os.path.join(source, "python", "profdb", "*.py")):
    shutil.copy(f, pkg)
shutil.copy(os.path.join(build, "libprofdbpy.so"), os.path.join(pkg, "_clib.so"))
shutil.copytree(os.path.join(source, "queries"), os.path.join(pkg, "queries"))

example = os.path.join(source, "docs", "examples", "generated_gpu_run")
ds = os.path.join(work, "ds")
traces = [os.path.join(example, f) for f in sorted(os.listdir(example)) if "trace" in f]
subprocess.run([profdb, "export", *traces, "-o", ds, "--run", "job1", "-q"], check=True)


def cli_json(*args):
    out = os.path.join(work, "cli.json")
    subprocess.run([profdb, *args, "--json", out], check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


want = {"report": cli_json("report", ds), "diff": cli_json("diff", ds, ds)}
with open(os.path.join(work, "want.json"), "w") as f:
    json.dump(want, f)

inner = r'''
import json, os, sys, warnings
import profdb
work, ds, trace0 = sys.argv[1:4]
with open(os.path.join(work, "want.json")) as f:
    want = json.load(f)
failures = []
def check(what, ok):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)
def strip(d):
    d = dict(d); d.pop("inputs", None); return d

db = profdb.open(ds)
check("profdb.open(DIR) opens a dataset", db.dataset)
rep = db.report(html=False)
check("report() of a dataset equals profdb report DIR --json", strip(rep) == strip(want["report"]))
rows = db.section("step_time", frame=False)
wsec = [s for s in want["report"]["sections"] if s["id"] == "step_time"][0]
check("section() of a dataset is the CLI's rows", rows == wsec["rows"] and len(rows) > 0)
check("findings() of a dataset are the CLI's", db.findings() == want["report"]["findings"])
d = profdb.diff(ds, db, html=False)
check("profdb.diff(DIR, DIR) equals profdb diff DIR DIR --json", strip(d) == strip(want["diff"]))
check("report(run=...) selects the run", strip(db.report(run="job1", html=False)) == strip(rep))
try:
    db.report(run="nope", html=False); ok = False; msg = ""
except profdb.Error as e:
    msg = str(e); ok = "job1" in msg
check("an unknown run raises naming the runs: " + msg[-160:], ok)
try:
    db.sql("SELECT 1"); msg = ""
except profdb.Error as e:
    msg = str(e)
check("sql() on a dataset names DuckDB: " + msg[:160], "DuckDB" in msg and "I/O" not in msg)

class FakeProf:
    """What on_trace_ready gets from torch.profiler: export_chrome_trace."""
    def __init__(self, cycle):
        self.cycle = cycle
    def export_chrome_trace(self, path):
        with open(trace0) as f:
            t = json.load(f)
        for e in t["traceEvents"]:   # each cycle later: its own content and window
            if "ts" in e:
                e["ts"] = e["ts"] + self.cycle * 1000000
        with open(path, "w") as f:
            json.dump(t, f)

kept = os.path.join(work, "traces")
h = profdb.trace_handler(os.path.join(work, "stream.db"), trace_dir=kept)
for c in range(3):
    h(FakeProf(c))
n = profdb.open(os.path.join(work, "stream.db")).sql("SELECT count(*) AS n FROM trace",
                                                      frame=False)[0]["n"]
check("trace_handler(db): 3 cycles, 3 traces loaded (%d)" % n, n == 3)
check("trace_handler removes the traces it loaded", os.listdir(kept) == [])
hd = profdb.trace_handler(os.path.join(work, "stream_ds"), run="job")
for c in range(2):
    hd(FakeProf(c))
runs = sorted(os.listdir(os.path.join(work, "stream_ds", "_summary")))
check("trace_handler(DIR): one run per cycle: %s" % runs, runs == ["run=job-1", "run=job-2"])
r2 = profdb.open(os.path.join(work, "stream_ds")).report(run="job-2", html=False)
check("each cycle's run reports", r2["sections"] and "run=" not in r2["scope"])
bad = profdb.trace_handler(os.path.join(work, "no_such_folder", "x.db"), trace_dir=kept)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    bad(FakeProf(9))
said = " ".join(str(x.message) for x in w if "profdb" in str(x.message))
check("a failing load warns and keeps its trace: " + said[:200],
      "trace is kept" in said and len(os.listdir(kept)) == 1)
sys.exit(1 if failures else 0)
'''
p = subprocess.run([SYS_PY, "-c", inner, work, ds, traces[0]],
                   env=dict(os.environ, PYTHONPATH=os.path.dirname(pkg)))
sys.exit(p.returncode)
