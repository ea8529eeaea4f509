#!/usr/bin/env python3
"""The job model on real public jobs replicated to more ranks (issue 23).

    check_job.py PROFDB PUBLIC_DIR WORK_DIR

bench/replicate_ranks.py copies a real job's ranks (same events and times,
rank / world_size rewritten); a job of more ranks that behave alike must
give the same findings, and its report must stay one page and cost about
linearly more.  On the public 8-rank DLRM job (facebookresearch__param/
dlrm_kineto) replicated to 64 and 256 ranks, and on HTA's two ranks of a
128-rank job (sampled_rank-0/1) replicated to 16:

  * item 2: every finding, expected_saving_ns and expected_saving_pct is the
    same at every rank count; no saving exceeds the longest job step; every
    percentage is in [0, 100];
  * item 3 (DLRM): the transfer not overlapped with compute is at most 7% of
    the job step (its collectives are mostly waiting for late ranks); the
    straggler saving is waiting time (at most the largest rank's wait per
    step) and exposed_communication, if any, promises only exposed transfer;
    the two together stay within the longest job step;
  * item 4: the Markdown at 256 ranks is at most 1.3x its length at 8
    (lines and bytes); the step chart is a distribution; the HTML folds
    the per-rank rows;
  * item 5: profdb diff of the job against its replica shows no step time
    change and passes --fail-if 'step_time > +1%' and 'step_time < -1%';
  * item 6: the report's cost grows about linearly from 8 to 256 ranks
    (32x): its SQL steps (SQLite's VM steps, PROFDB_TIMING's count, on
    one connection: the same on a busy machine as on a quiet one)
    at most 32x, and at most 4.05x from 64 to 256 ranks.  Its CPU time
    is printed, not checked: seconds on a shared machine vary by more
    than the margin (bench/job_bench.sh times the curve up to 1024 ranks).

Skipped (77) without the public data.
"""
import json
import os
import resource
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import check, finish  # noqa: E402

profdb, public, work = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
replicate = os.path.join(here, "..", "..", "bench", "replicate_ranks.py")
dlrm = os.path.join(public, "facebookresearch__param", "dlrm_kineto")
hta = os.path.join(public, "facebookresearch__HolisticTraceAnalysis")
if not os.path.isdir(dlrm) or not os.path.isdir(hta):
    print("public data not found: skipped")
    sys.exit(77)
os.makedirs(work, exist_ok=True)


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def job(name, sources, ranks):
    """Load `sources` replicated to `ranks` ranks (None: as they are)."""
    db = os.path.join(work, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    if ranks is None:
        inputs = sources
    else:
        out = os.path.join(work, name)
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([sys.executable, replicate, *sources, "--ranks", str(ranks), "-o", out],
                       check=True, stdout=subprocess.DEVNULL)
        inputs = [out]
    subprocess.run([profdb, "load", "-q", *inputs, "-o", db], check=True)
    if ranks is not None:
        shutil.rmtree(os.path.join(work, name))
    return db


def report(name, db):
    md, js, html = (os.path.join(work, name + x) for x in (".md", ".json", ".html"))
    before = cpu_children()
    run = subprocess.run([profdb, "report", db, "--md", md, "--json", js, "--html", html],
                         check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=dict(os.environ, PROFDB_TIMING="1", PROFDB_CONNECTIONS="1"),
                         text=True)
    cpu = cpu_children() - before
    steps = [int(line.split()[-2]) for line in run.stderr.splitlines()
             if line.startswith("profdb: timing: sql ")]
    with open(js) as f:
        doc = json.load(f)
    with open(md) as f:
        text = f.read()
    with open(html) as f:
        page = f.read()
    return doc, text, page, (cpu, steps[0] if len(steps) == 1 else None)


def section(doc, sid):
    return next((s["rows"] for s in doc["sections"] if s["id"] == sid), [])


def figures(doc):
    return [(f["rule"], f["expected_saving_ns"], f["expected_saving_pct"]) for f in doc["findings"]]


def job_steps(doc):
    """Job step k lasts as long as its slowest rank's step k."""
    steps = {}
    for r in section(doc, "step_time"):
        steps[r["step"]] = max(steps.get(r["step"], 0), r["wall_ns"])
    return steps


def invariants(tag, doc):
    steps = job_steps(doc)
    longest = max(steps.values())
    for f in doc["findings"]:
        check(f"{tag}: {f['rule']} saving pct in [0, 100]", 0 <= f["expected_saving_pct"] <= 100)
        if f["expected_saving_ns"] is not None:
            check(f"{tag}: {f['rule']} saves at most the longest job step "
                  f"({f['expected_saving_ns']} <= {longest})", f["expected_saving_ns"] <= longest)
    return steps


def diff_passes(tag, before, after):
    out = os.path.join(work, tag + ".diff.json")
    r = subprocess.run([profdb, "diff", before, after, "--json", out,
                        "--fail-if", "step_time > +1%", "--fail-if", "step_time < -1%"],
                       stdout=subprocess.DEVNULL)
    check(f"{tag}: diff against the replica passes both step_time gates", r.returncode == 0)
    with open(out) as f:
        d = json.load(f)
    mean = next((r for r in section(d, "step_time") if r["statistic"] == "mean"), None)
    check(f"{tag}: mean job step unchanged", mean and mean["delta_ns"] == 0)
    verdict = " ".join(v["statement"] for v in d.get("verdict", []))
    check(f"{tag}: verdict counts job steps, not ranks", "job step" in verdict)


# ---- DLRM: 8 -> 64 -> 256 ranks -------------------------------------------
docs = {}
for n in (8, 64, 256):
    db = job(f"dlrm{n}", [dlrm], None if n == 8 else n)
    docs[n] = (db, *report(f"dlrm{n}", db))
base = figures(docs[8][1])
print("DLRM findings at 8 ranks:", base)
check("dlrm: findings at 8 ranks (straggler among them)", any(f[0] == "straggler" for f in base))
for n in (64, 256):
    check(f"dlrm: {n} ranks: same findings, savings and percentages as 8",
          figures(docs[n][1]) == base)
for n, (db, doc, text, page, cpu) in docs.items():
    steps = invariants(f"dlrm{n}", doc)
    js = sum(steps.values()) / len(steps)
    comm = section(doc, "communication")
    rank_steps = len(section(doc, "step_time"))
    exposed = sum(r["exposed_comm_ns"] for r in comm) / rank_steps
    check(f"dlrm{n}: exposed transfer {100 * exposed / js:.2f}% of the job step <= 7%",
          exposed <= 0.07 * js)
    waiting = sum(r["wait_ns"] or 0 for r in comm)  # (empty: no peers loaded)
    check(f"dlrm{n}: most collective time is waiting for peers",
          waiting > 0.9 * sum(r["comm_ns"] for r in comm))
    by = {f["rule"]: f for f in doc["findings"]}
    strag = by.get("straggler")
    check(f"dlrm{n}: straggler finding", strag is not None)
    if strag:
        max_wait = max(r["wait_ns"] or 0 for r in comm)  # one analysed step per rank
        check(f"dlrm{n}: the straggler saving is waiting time",
              strag["expected_saving_ns"] <= max_wait)
        ex = by.get("exposed_communication")
        ex_ns = ex["expected_saving_ns"] if ex else 0
        check(f"dlrm{n}: exposed_communication promises only exposed transfer",
              ex_ns <= exposed + 1)
        check(f"dlrm{n}: straggler + communication within the longest job step",
              strag["expected_saving_ns"] + ex_ns <= max(steps.values()))

# One page: Markdown at 256 ranks <= 1.3x at 8.
t8, t256 = docs[8][2], docs[256][2]
print(f"Markdown: 8 ranks {t8.count(chr(10))} lines {len(t8)} bytes; "
      f"256 ranks {t256.count(chr(10))} lines {len(t256)} bytes")
check("dlrm: Markdown lines at 256 ranks <= 1.3x at 8", t256.count("\n") <= 1.3 * t8.count("\n"))
check("dlrm: Markdown bytes at 256 ranks <= 1.3x at 8", len(t256) <= 1.3 * len(t8))
check("dlrm256: per-rank sections summarized across ranks",
      "rows over 256 ranks" in t256 and "Outlying rows" in t256)
check("dlrm8: 8 ranks still shown row by row", "rows over 8 ranks" not in t8)
svg = os.path.join(work, "dlrm256.step_time.svg")
check("dlrm256: the step chart is a distribution over the ranks",
      os.path.exists(svg) and "distribution over 256 ranks" in open(svg).read())
check("dlrm256: the HTML folds the per-rank rows", "<details><summary>All 256 rows" in docs[256][3])
check("dlrm256: the HTML says what a job step is", "job step k is ProfilerStep k" in docs[256][3])

# Cost linear in ranks: 32x the ranks, at most 32x the SQL steps, and from
# 64 to 256 ranks at most 4x (a fixed part makes it less: 29.8x and 3.92x
# in Nov 2026; a lookup that scanned every rank's devices per operator
# row, a cost in the square of the ranks, made the second 4.10x, and took
# 8 s of 51 at 1024 ranks).  4.05x: room for another SQLite's plans.
(c8, s8), (c64, s64), (c256, s256) = (docs[n][4] for n in (8, 64, 256))
print(f"report CPU time: 8 ranks {c8:.2f} s, 64 ranks {c64:.2f} s, 256 ranks {c256:.2f} s")
print(f"report SQL steps: 8 ranks {s8}, 64 ranks {s64}, 256 ranks {s256}")
check("dlrm: the report counts its SQL steps (PROFDB_TIMING)", bool(s8 and s64 and s256))
if s8 and s256:
    check(f"dlrm: report SQL steps 8 -> 256 ranks x{s256 / s8:.2f} <= 32x", s256 <= 32 * s8)
if s64 and s256:
    check(f"dlrm: report SQL steps 64 -> 256 ranks x{s256 / s64:.2f} <= 4.05x",
          s256 <= 4.05 * s64)

# The diff and the gate over job steps.
diff_passes("dlrm8-vs-64", docs[8][0], docs[64][0])

# ---- HTA: 2 ranks of a 128-rank job -> 16 --------------------------------
pair = [os.path.join(hta, f"sampled_rank-{i}.json.gz") for i in (0, 1)]
h2 = job("hta2", pair, None)
h16 = job("hta16", pair, 16)
d2, _, _, _ = report("hta2", h2)
d16, _, _, _ = report("hta16", h16)
print("HTA findings at 2 ranks:", figures(d2))
check("hta: 16 ranks: same findings, savings and percentages as 2", figures(d16) == figures(d2))
invariants("hta2", d2)
invariants("hta16", d16)
diff_passes("hta2-vs-16", h2, h16)

# ---- Coherence: one warning per problem at load, a caveat in the report ----
mixed = os.path.join(work, "mixed.db")
if os.path.exists(mixed):
    os.remove(mixed)
subprocess.run([profdb, "load", "-q", dlrm, "--run", "job", "-o", mixed], check=True)
rep16 = os.path.join(work, "rep16")
subprocess.run([sys.executable, replicate, dlrm, "--ranks", "16", "-o", rep16], check=True,
               stdout=subprocess.DEVNULL)
r = subprocess.run([profdb, "load", "-q", rep16, "--run", "job", "-o", mixed],
                   stderr=subprocess.PIPE, text=True)
shutil.rmtree(rep16)
warnings = [line for line in r.stderr.splitlines() if "warning" in line]
print("\n".join(warnings))
# ranks 0-7 are already in the job (8 traces), and all 16 have another
# world size: two lines, not 24.
check("coherence: 16 traces of another world size warn once per problem, not per trace",
      len(warnings) == 2 and sum("and 7 more trace(s)" in w for w in warnings) == 1
      and sum("and 15 more trace(s)" in w for w in warnings) == 1)
check("coherence: the world size is named", any("world size 16" in w for w in warnings))
doc = report("mixed", mixed)[0]
check("coherence: the report's scope carries the caveat",
      "caveat: job job mixes world sizes" in doc["scope"] if isinstance(doc["scope"], str)
      else "caveat: job job mixes world sizes" in json.dumps(doc["scope"]))

sys.exit(finish())
