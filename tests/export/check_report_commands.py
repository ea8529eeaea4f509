#!/usr/bin/env python3
"""The HTML report gives each finding the command that exports what it
names (issue 28, item 3), and each command works.

    check_report_commands.py PROFDB WORKDIR EXAMPLE_DIR

EXAMPLE_DIR: docs/examples/generated_gpu_run (two ranks and a memory
snapshot, in the repository).  Loaded into WORKDIR/run.db, reported as HTML;
every finding but the need_* ones (missing data) must carry one "Open it"
command; each is run in WORKDIR and must write its file:
  - memory findings (their subjects name a snapshot): a memory_viz window
    of that snapshot and device whose events include mem_peak's peak event;
  - the others: a Chrome-trace slice holding a process for every rank the
    finding's subjects name (all ranks when they name none).
The same report on the trace files themselves (a temporary database) must
prefix each command with the `profdb load ... -o run.db` that makes the
database it names.  The report on the dataset `profdb export` writes
(whose summaries hold not every event) must give `profdb export DIR
--format chrome --finding K` (which loads the traces the finding names
again): the same slice as --finding on the database, also where the ranks
come from the folder names (rank_0/, rank_1/; without distributedInfo): the
load decided them, the report and the export read the same.
"""
import csv
import html
import io
import json
import os
import pickle
import re
import shlex
import shutil
import subprocess
import sys

PROFDB, WORK, EXAMPLE = (os.path.abspath(a) for a in sys.argv[1:4])


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, cwd=None):
    r = subprocess.run(args, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        fail("%s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r


class Refuse(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError("refused: %s.%s" % (module, name))


def commands(page):
    """The text of each finding's "Open it" command, by finding, or None."""
    out = []
    for art in re.findall(r'<article class="finding.*?</article>', page, re.S):
        m = re.search(r"<dt>Open it</dt><dd><code>(.*?)</code>", art, re.S)
        out.append(html.unescape(m.group(1)) if m else None)
    return out


if os.path.exists(WORK):
    shutil.rmtree(WORK)
os.makedirs(WORK)
db = os.path.join(WORK, "run.db")
run([PROFDB, "load", EXAMPLE, "-o", db, "-q"])
page_path = os.path.join(WORK, "report.html")
run([PROFDB, "report", db, "--html", page_path, "--json", os.path.join(WORK, "report.json")])
findings = json.load(open(os.path.join(WORK, "report.json")))["findings"]
cmds = commands(open(page_path).read())
if len(cmds) != len(findings):
    fail("%d findings in the JSON, %d in the HTML" % (len(findings), len(cmds)))
kinds = set()
for f, cmd in zip(findings, cmds):
    rule, subjects = f["rule"], f["subjects"] or []
    if rule.startswith("need_"):
        if cmd:
            fail("%s: a command for a finding about missing data" % rule)
        continue
    if not cmd:
        fail("%s: no export command" % rule)
    argv = shlex.split(cmd)
    if argv[:3] != ["profdb", "export", db]:
        fail("%s: %r does not export %s" % (rule, cmd, db))
    out = argv[argv.index("-o") + 1]
    run([PROFDB] + argv[1:] + ["-q"], cwd=WORK)
    path = os.path.join(WORK, out)
    snaps = [s["snapshot"] for s in subjects if "snapshot" in s]
    if snaps:
        kinds.add("memory_viz")
        if "--at-peak" not in argv or "memory_viz" not in argv:
            fail("%s: %r is not a memory_viz window at the peak" % (rule, cmd))
        w = Refuse(open(path, "rb")).load()["profdb_window"]
        dev = [s["device"] for s in subjects if "device" in s][0]
        r = run([PROFDB, "query", db, "--csv",
                 "SELECT peak_seq FROM mem_peak(%d, %d)" % (snaps[0], dev)]).stdout
        peak = int(list(csv.DictReader(io.StringIO(r)))[0]["peak_seq"])
        if (w["snapshot_id"], w["device"]) != (snaps[0], dev) or not (
                w["first_seq"] <= peak <= w["last_seq"]):
            fail("%s: window %r does not hold the peak event %d" % (rule, w, peak))
    else:
        kinds.add("chrome")
        ev = json.load(open(path))["traceEvents"]
        names = {e["args"]["name"] for e in ev
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
        ranks = [s["rank"] for s in subjects if "rank" in s] or [0, 1]
        for rk in ranks:
            if not any(n == "rank %d" % rk or n.startswith("rank %d " % rk) for n in names):
                fail("%s: the slice has no process of rank %d (%s)" % (rule, rk, names))
if kinds != {"chrome", "memory_viz"}:
    fail("the example should give both kinds of command, gave %s" % kinds)

# the same report on the files: the commands first make run.db
files = sorted(os.path.join(EXAMPLE, n) for n in os.listdir(EXAMPLE) if n.endswith(".json"))
run([PROFDB, "report", *files, "--html", page_path])
cmds = [c for c in commands(open(page_path).read()) if c]
want = "profdb load %s -o run.db && profdb export run.db " % " ".join(map(shlex.quote, files))
bad = [c for c in cmds if not c.startswith(want)]
if not cmds or bad:
    fail("commands of a report on files: %r" % (bad or cmds)[:2])
# the same report on the dataset exported from run.db: its summaries hold
# not every event; each command is `profdb export DIR --finding K`, which
# loads the traces the finding names again (issue 45: short at any rank
# count); the slice equals --finding's on run.db.
def dataset_commands(ds, ds_findings, ds_cmds, db, cwd, tag):
    rules = [f["rule"] for f in ds_findings]
    checked = 0
    for k, (f, cmd) in enumerate(zip(ds_findings, ds_cmds)):
        rule = f["rule"]
        if rule.startswith("need_"):
            continue
        which = str(k + 1) if rules.count(rule) > 1 else rule
        argv = shlex.split(cmd or "")
        if argv[:5] != ["profdb", "export", ds, "--format", "chrome"] or \
                argv[5:7] != ["--finding", which] or "&&" in argv:
            fail("%s: %s: %r is not an export of the dataset's finding" % (tag, rule, cmd))
        out = argv[argv.index("-o") + 1]
        run([PROFDB] + argv[1:] + ["-q"], cwd=cwd)
        run([PROFDB, "export", db, "--format", "chrome", "--finding", which, "-o",
             "want_" + out, "-q"], cwd=cwd)
        got, want = (json.load(open(os.path.join(cwd, n))) for n in (out, "want_" + out))
        key = lambda d: sorted(json.dumps(e, sort_keys=True) for e in d["traceEvents"])
        if key(got) != key(want):
            fail("%s: %s: the slice of %r differs from --finding %s on %s" % (tag, rule, cmd, which, db))
        checked += 1
    return checked


ds = os.path.join(WORK, "dataset")
r = subprocess.run([PROFDB, "export", db, "-o", ds, "-q"], capture_output=True, text=True)
if r.returncode not in (0, 3):  # 3: the snapshot has no rank (a warning)
    fail("export %s: exit %d\n%s" % (db, r.returncode, r.stderr))
run([PROFDB, "report", ds, "--html", page_path, "--json", os.path.join(WORK, "ds.json")])
ds_findings = json.load(open(os.path.join(WORK, "ds.json")))["findings"]
if not dataset_commands(ds, ds_findings, commands(open(page_path).read()), db, WORK, "dataset"):
    fail("dataset: no finding's command was checked")

# Ranks from folder names: the same traces without distributedInfo, in
# rank_0/ and rank_1/, loaded by relative paths.  Their load gives them
# ranks 0 and 1 (trace.rank_source 'folder name'), which the report, the
# dataset and a load of the same paths again all read: each command,
# run where the load ran, loads the traces again and exports their slice.
nd = os.path.join(WORK, "nd")
traces = [f for f in files if f.endswith(".pt.trace.json")]
for k, f in enumerate(traces):
    os.makedirs(os.path.join(nd, "rank_%d" % k))
    with open(f) as fh:
        t = json.load(fh)
    t.pop("distributedInfo", None)
    with open(os.path.join(nd, "rank_%d" % k, "trace.json"), "w") as fh:
        json.dump(t, fh)
rel = ["nd/rank_%d/trace.json" % k for k in range(len(traces))]
run([PROFDB, "load", *rel, "-o", "nd.db", "-q"], cwd=WORK)
r = subprocess.run([PROFDB, "export", "nd.db", "-o", "nd_ds", "-q"], capture_output=True, text=True,
                   cwd=WORK)
if r.returncode not in (0, 3):
    fail("export nd.db: exit %d\n%s" % (r.returncode, r.stderr))
run([PROFDB, "report", "nd_ds", "--html", "nd.html", "--json", "nd.json"], cwd=WORK)
nd_findings = json.load(open(os.path.join(WORK, "nd.json")))["findings"]
page = open(os.path.join(WORK, "nd.html")).read()
checked = dataset_commands("nd_ds", nd_findings, commands(page), "nd.db", WORK, "nd")
if not checked or "the traces&#39; paths are relative" not in page and \
        "the traces' paths are relative" not in page:
    fail("nd: no command checked (%d), or no word on the relative paths" % checked)
print("ok: %d findings, %d export commands (chrome and memory_viz) ran" %
      (len(findings), sum(1 for f in findings if not f["rule"].startswith("need_"))))
