#!/usr/bin/env python3
"""The rank of a trace, decided once at load (docs/definitions.md#ranks),
read alike by the report, the Parquet export and the report of a dataset.

    check_rank.py PROFDB EXAMPLE WORK

EXAMPLE: docs/examples/train_cpu.pt.trace.json (no distributedInfo).  Its
copies (each with one more trailing space: another content, not a
duplicate) as host_rank3/ and host_rank5/ (folders), as job_rank7.json
(a file name), in worker9/rank_2.json (the file name wins), in a folder
without a rank (the default), with a distributedInfo.rank (it wins over
the name) and with load --rank (it wins over the name).
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
from checklist import check, finish  # noqa: E402

profdb, example, work = (os.path.abspath(a) for a in sys.argv[1:4])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
text = open(example).read()
copies = 0


def copy(rel, body=None):
    """A copy of the example at WORK/rel, its content made unique."""
    global copies
    copies += 1
    path = os.path.join(work, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write((body if body is not None else text) + " " * copies)
    return rel


def run(*args):
    return subprocess.run([profdb, *args], cwd=work, capture_output=True, text=True)


def ranks(db):
    with sqlite3.connect(os.path.join(work, db)) as c:
        return c.execute("SELECT path, rank, rank_source FROM trace ORDER BY trace_id").fetchall()


def scope(target):
    """The report's scope notes of target, and its stderr."""
    r = run("report", target, "--json", "-") if isinstance(target, str) else \
        run("report", *target, "--json", "-")
    return json.loads(r.stdout)["scope"], r.stderr


a3, a5 = copy("host_rank3/train_cpu.pt.trace.json"), copy("host_rank5/train_cpu.pt.trace.json")

# ---- the report of the inputs: ranks 3 and 5, one job, no warning -------
notes, err = scope(["host_rank3", "host_rank5"])
check("report INPUTS: ranks 3, 5 (%s)" % notes, "ranks 3, 5:" in notes)
check("report INPUTS: one job (no 'jobs (runs)' caveat)", "jobs (runs)" not in notes)
check("report INPUTS: no warning (%s)" % err.strip()[:200], "warning" not in err)

# ---- the load: rank_source of each rule ----------------------------------
f7 = copy("job_rank7.json")
w2 = copy("worker9/rank_2.json")
plain = copy("plain/train_cpu.pt.trace.json")
t = json.loads(text) if text.lstrip().startswith("{") else {"traceEvents": json.loads(text)}
t["distributedInfo"] = {"rank": 11}
di = copy("host_rank4/with_rank.json", json.dumps(t))
r = run("load", a3, a5, f7, w2, plain, di, "-o", "all.db", "-q")
check("load: exit 0 (%s)" % r.stderr.strip()[:200], r.returncode == 0)
got = {p: (k, s) for p, k, s in ranks("all.db")}
check("rank_source: folder name 3, 5 (%s)" % got,
      got[a3] == (3, "folder name") and got[a5] == (5, "folder name"))
check("rank_source: file name 7", got[f7] == (7, "file name"))
check("rank_source: the file name before its folder's (2, not 9)", got[w2] == (2, "file name"))
check("rank_source: default 0", got[plain] == (0, "default"))
check("distributedInfo.rank wins over the folder name (11, not 4)",
      got[di] == (11, "distributedInfo"))
r = run("load", "host_rank3/../plain/train_cpu.pt.trace.json", "--rank", "6", "-o", "opt.db", "-q")
check("load --rank 6: exit 0", r.returncode == 0)
check("--rank wins over the name: %s" % ranks("opt.db"), [x[1:] for x in ranks("opt.db")] == [(6, "option")])
opt_named = copy("host_rank8/opt.json")
run("load", opt_named, "--rank", "1", "-o", "opt2.db", "-q")
check("--rank 1 wins over host_rank8/", [x[1:] for x in ranks("opt2.db")] == [(1, "option")])
r = run("load", a3, a5, "--rank", "1", "-o", "bad.db")
check("load --rank with two files: usage error (%s)" % r.stderr.strip(),
      r.returncode == 2 and "names the rank of one input" in r.stderr)

# ---- the export: rank=3 and rank=5 of one run; report DIR alike ----------
r = run("export", "host_rank3", "host_rank5", "-o", "ds", "-q")
check("export INPUTS: exit 0 or 3 (%d)" % r.returncode, r.returncode in (0, 3))
check("export: no rank warning", "rank" not in r.stderr)
parts = sorted(os.listdir(os.path.join(work, "ds", "trace")))
check("export: one run (%s)" % parts, parts == ["run=local-1"])
check("export: rank=3 and rank=5",
      sorted(os.listdir(os.path.join(work, "ds", "trace", "run=local-1"))) == ["rank=3", "rank=5"])
notes, _ = scope("ds")
check("report DIR: ranks 3, 5, one job (%s)" % notes, "ranks 3, 5:" in notes and "jobs" not in notes)
r = run("export", "all.db", "-o", "ds2", "--rank", "3")
check("export DB --rank: usage error", r.returncode == 2 and "loaded already" in r.stderr)
r = run("report", "all.db", "--rank", "3")
check("report DB --rank: usage error", r.returncode == 2 and "loaded already" in r.stderr)
r = run("export", "host_rank3/../plain/train_cpu.pt.trace.json", "--rank", "4", "-o", "ds3", "-q")
check("export INPUT --rank 4: rank=4",
      os.path.isdir(os.path.join(work, "ds3", "trace", "run=local-1", "rank=4")))

# ---- the warning: once, at load, where a default rank is compared --------
p1, p2 = copy("plainA/t.json"), copy("plainB/t.json")
r = run("load", p1, p2, "-o", "warn.db", "-q")
lines = [x for x in r.stderr.splitlines() if "no rank" in x]
check("two traces without a rank in one run: one warning at load (%s)" % r.stderr.strip(),
      r.returncode == 0 and len(lines) == 1 and "rank 0 is already in" in lines[0])
r = run("export", "warn.db", "-o", "ds4", "-q")
check("their export does not warn about the rank again", "no rank" not in r.stderr)
r = run("load", plain, "-o", "single.db", "-q")
check("a single trace without a rank: no warning", "warning" not in r.stderr)
finish()
