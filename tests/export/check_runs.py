#!/usr/bin/env python3
"""export.runs: the runs of a dataset (issue 45).
  * an export without --run that adds a second run to a dataset warns,
    naming the runs present and --run;
  * `report DIR` of a dataset of two runs warns that it covers both;
    `report DIR --run NAME` is the report of that run alone (equal to the
    report of a dataset holding only it, all but "inputs");
  * an unknown --run is exit 1 naming the runs; --run on a database is
    refused (exit 2); `diff DIR DIR --run A --run B` compares run A with
    run B.

    check_runs.py PROFDB SOURCE_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

profdb, source, work = [os.path.abspath(a) for a in sys.argv[1:4]]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chdir(work)
example = os.path.join(source, "docs", "examples", "generated_gpu_run")
traces = [os.path.join(example, f) for f in sorted(os.listdir(example)) if "trace" in f]
failures = []


def check(what, ok):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def run(*args):
    return subprocess.run([profdb, *args], capture_output=True, text=True)


def report(*args):
    p = run("report", *args, "--json", "r.json")
    assert p.returncode == 0, p.stderr
    with open("r.json") as f:
        d = json.load(f)
    d.pop("inputs")
    return d, p.stderr


run("export", *traces, "-o", "alone", "--run", "job1", "-q")
p = run("export", *traces, "-o", "ds", "--run", "job1")
check("an export with --run into a new dataset does not warn", "warning" not in p.stderr)
p = run("export", *traces, "-o", "ds")
check("a second run added without --run is warned about: %s" % p.stderr.strip()[-240:],
      p.returncode == 0 and "warning" in p.stderr and "2 runs (job1, ws2-1)" in p.stderr
      and "--run NAME" in p.stderr)
both, err = report("ds")
check("report DIR of two runs warns: %s" % err.strip()[:200],
      "holds 2 runs (job1, ws2-1)" in err and "--run NAME" in err)
one, err = report("ds", "--run", "job1")
alone, _ = report("alone")
check("report DIR --run job1 is the report of run job1 alone", one == alone and "warning" not in err)
check("and differs from the report of both runs", one != both)
p = run("report", "ds", "--run", "nope")
check("an unknown run: exit 1 naming the runs: %s" % p.stderr.strip()[:200],
      p.returncode == 1 and "job1, ws2-1" in p.stderr)
run("load", *traces, "-o", "a.db", "-q")
p = run("report", "a.db", "--run", "job1")
check("--run on a database is refused: %s" % p.stderr.strip()[:160],
      p.returncode == 2 and "--trace" in p.stderr)
p = run("diff", "ds", "ds", "--run", "job1", "--run", "ws2-1", "--json", "d.json")
with open("d.json") as f:
    d = json.load(f)
rows = [r for s in d["sections"] if s["id"] == "steps" for r in s["rows"]]
check("diff DIR DIR --run A --run B: one run a side (%s)" % [r["traces"] for r in rows],
      p.returncode == 0 and [r["traces"] for r in rows] == [2, 2])
sys.exit(1 if failures else 0)
