#!/usr/bin/env python3
"""Runs: which artifacts are ranks of one job (profdb load --run, the
report's grouping, load warnings, the snapshot's device capacity).

    check_runs.py PROFDB FIXTURES_DIR WORK_DIR

  * the four ranks of straggler/late loaded in two commands with --run job:
    no warning, one run 'job', rank 2 flagged;
  * a rank of another job added to run 'job': warned (rank already in the
    run), exit 0;
  * the same rank of two jobs loaded without names, overlapping in time:
    warned, and nothing is matched across them (no straggler finding);
  * the two-rank training fixture (world size 2) with straggler/late
    (world size 4): two runs, ranks compared only within each;
  * a memory snapshot in run 'a' and a trace in run 'b': the trace's
    device capacity is not used for the snapshot (capacity null), while
    in the same run it is.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import check, finish  # noqa: E402

profdb, fixtures, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
late = os.path.join(fixtures, "straggler", "late")
balanced = os.path.join(fixtures, "straggler", "balanced")


def load(db, *args):
    p = subprocess.run([profdb, "load", "-q", *args, "-o", db], stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stderr


def report(db):
    out = subprocess.run([profdb, "report", db, "--json", "-"], check=True, stdout=subprocess.PIPE).stdout
    doc = json.loads(out)
    return {s["id"]: s["rows"] for s in doc["sections"]}, doc["findings"]


def fresh(name):
    db = os.path.join(work, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    return db


db = fresh("named")
rc1, err1 = load(db, os.path.join(late, "rank0.json"), os.path.join(late, "rank1.json"), "--run", "job")
rc2, err2 = load(db, os.path.join(late, "rank2.json"), os.path.join(late, "rank3.json"), "--run", "job")
check("named: loads without warnings", rc1 == rc2 == 0 and "warning" not in err1 + err2)
sec, found = report(db)
check("named: one run 'job' with 4 ranks", sorted((r["run"], r["rank"]) for r in sec["rank_sum"])
      == [("job", r) for r in range(4)])
check("named: rank 2 flagged", [r["rank"] for r in sec["rank_sum"] if r["straggler"] == "yes"] == [2])
rc, err = load(db, os.path.join(balanced, "rank1.json"), "--run", "job")
check("named: a second rank 1 in run job is warned about, load still succeeds",
      rc == 0 and "warning: rank 1 is already in run job" in err)

db = fresh("unnamed")
load(db, late)
rc, err = load(db, os.path.join(balanced, "rank2.json"))
check("unnamed: the same rank of an overlapping job is warned about",
      rc == 0 and "warning: rank 2 is already in the overlapping traces of world size 4" in err)

db = fresh("two_runs")
load(db, os.path.join(fixtures, "train_rank0.json"), os.path.join(fixtures, "train_rank1.json"), late)
sec, found = report(db)
runs = {}
for r in sec["rank_sum"]:
    runs.setdefault(r["run"], []).append(r["rank"])
check("two world sizes: two runs, ranks compared within each",
      sorted(runs.values()) == [[0, 1], [0, 1, 2, 3]])
check("two world sizes: one straggler finding per run", len([f for f in found if f["rule"] == "straggler"]) == 2)

snapshot = os.path.join(fixtures, "memory_snapshot.json")
trace = os.path.join(fixtures, "train_rank0.json")
db = fresh("snapshot_other_run")
load(db, snapshot, "--run", "a")
load(db, trace, "--run", "b")
sec, _ = report(db)
check("snapshot of run a, trace of run b: no capacity", sec["mem_peak"][0]["capacity"] is None)
db = fresh("snapshot_same_run")
load(db, snapshot, trace, "--run", "a")
sec, _ = report(db)
check("snapshot and trace of run a: the trace's capacity", sec["mem_peak"][0]["capacity"] == 85097971712)

finish()
