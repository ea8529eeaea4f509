#!/usr/bin/env python3
"""check_report_dir.py PROFDB WORK JOB_DIR — profdb report DIR (the job
report from an exported dataset's summaries) equals the report of the same
job loaded into one database, section by section and finding by finding
(issue 25, item 3).  JOB_DIR: the public 8-rank DLRM job, or
docs/examples/generated_gpu_run (2 ranks and a memory snapshot).

Checks:
  1. eight job-array tasks (--files LIST --index I, shuffled) and
     `profdb export DB` each write one summary per rank,
     _summary/run=job42/rank=N.db.zst, and no temporary file;
  2. the traces are then deleted: `profdb report DIR` cannot have parsed
     them, and gives the JSON report of `profdb report DB` (every section's
     columns, rows and note, every finding; only 'inputs' differs), for
     the tasks' dataset and for export DB's; the Markdown too (but its
     Inputs line);
  3. independently of profdb: run_summary's kernels per rank equal the
     trace files' events with cat 'kernel', counted here with json;
  4. `profdb diff DIR_A DIR_B` equals `profdb diff DB DB` (but 'inputs');
  5. re-running one task (before the reports) leaves one summary per rank,
     and removes the temporary files a killed earlier run of it left (not
     those of other ranks; the killed run had removed the rank's record,
     so the re-run is not skipped);
  6. a damaged summary is refused with `profdb: FILE: ...`, exit 1; a
     dataset without summaries (export --table kernel) with exit 1; a
     summary of whole 128 KiB blocks (zstd's output size) is read;
  7. with a memory snapshot in the dataset, report DIR warns that the
     memory sections are not available from a dataset.
Exits 77 (skipped) when the public data is absent.
"""
import json
import re
import os
import random
import shutil
import sqlite3
import subprocess
import sys

profdb, work, dlrm = sys.argv[1], sys.argv[2], sys.argv[3]
if not os.path.isdir(dlrm):
    print(f"SKIPPED: {dlrm} is absent")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed += 1


def run(*args, code=0):
    p = subprocess.run([profdb, *args], capture_output=True, text=True)
    if p.returncode != code:
        print(f"profdb {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p


traces = os.path.join(work, "traces")
os.makedirs(traces)
names = sorted(f for f in os.listdir(dlrm) if f.endswith(".pt.trace.json"))
snapshots = [os.path.join(dlrm, f) for f in sorted(os.listdir(dlrm)) if "snapshot" in f]
nranks = 8 if "dlrm" in dlrm else 2
kernels = {}
for f in names:
    shutil.copy(os.path.join(dlrm, f), traces)
    with open(os.path.join(dlrm, f)) as fh:
        t = json.load(fh)
    kernels[t["distributedInfo"]["rank"]] = sum(
        1 for e in t["traceEvents"] if e.get("cat") == "kernel")
check(len(names) == nranks, f"{nranks} traces ({len(names)})")

db = os.path.join(work, "job.db")
run("load", traces, "-o", db, "--run", "job42", "-q")
listing = os.path.join(work, "inputs.txt")
with open(listing, "w") as fh:
    fh.writelines(os.path.join(traces, f) + "\n" for f in names)
ds_tasks, ds_db = os.path.join(work, "ds_tasks"), os.path.join(work, "ds_db")
order = list(range(nranks))
random.Random(25).shuffle(order)
codes = [run("export", "--files", listing, "--index", str(i), "-o", ds_tasks, "--run", "job42",
             "-q").returncode for i in order]
check(codes == [0] * nranks, f"{nranks} tasks exit 0 ({codes})")
check(run("export", db, "-o", ds_db, "-q").returncode == 0, "export DB exits 0")
# a task run again: its summary is rewritten in place (the report below
# is made after it), and the hidden files an earlier run of it left when
# it was killed while writing are removed; another rank's stay
last_rank = json.load(open(os.path.join(traces, names[-1])))["distributedInfo"]["rank"]
other_rank = (last_rank + 1) % nranks
sdir = os.path.join(ds_tasks, "_summary", "run=job42")
kdir = os.path.join(ds_tasks, "kernel", "run=job42", f"rank={last_rank}")
left = [os.path.join(sdir, f".rank={last_rank}.db.4242.tmp"),
        os.path.join(sdir, f".rank={last_rank}.db.zst.4242.tmp"),
        os.path.join(kdir, ".part-0000.parquet.4242.tmp")]
others = [os.path.join(sdir, f".rank={other_rank}.db.zst.4242.tmp"),
          os.path.join(sdir, f".rank={last_rank}0.db.zst.4242.tmp")]
for f in left + others:
    open(f, "wb").write(b"PAR1 cut short")
# A killed run had removed the rank's record first (export_record.c), so
# the re-run is not skipped as a held input.
os.remove(os.path.join(ds_tasks, "_inputs", "trace", "run=job42", f"rank={last_rank}.json"))
check(run("export", "--files", listing, "--index", str(nranks - 1), "-o", ds_tasks, "--run", "job42",
          "-q").returncode == 0, "the last task run again exits 0")
check(not any(os.path.exists(f) for f in left),
      f"the re-run removed the temporary files of a killed run of it "
      f"({[os.path.basename(f) for f in left if os.path.exists(f)]} left)")
check(all(os.path.exists(f) for f in others), "the re-run left other ranks' temporary files")
for f in others:
    os.remove(f)
for ds in (ds_tasks, ds_db):
    sdir = os.path.join(ds, "_summary", "run=job42")
    got = sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []
    check(got == [f"rank={r}.db.zst" for r in range(nranks)],
          f"{os.path.basename(ds)}: one summary per rank, no temporaries ({got})")
    size = sum(os.path.getsize(os.path.join(sdir, f)) for f in got)
    print(f"     summaries: {size} bytes")

ref_json = os.path.join(work, "db.json")
ref_md = run("report", db, "--json", ref_json).stdout
ref = json.load(open(ref_json))
shutil.rmtree(traces)  # report DIR must not need them


# The sections a dataset does not answer: the critical paths need every
# CPU operator, which summaries leave out (lib/90_unavailable.sql).
CP = ("critical_path", "critical_path_job")


def without_cp(md):
    """The Markdown without the critical path sections (their tables in a
    database's report, their entries under Not available in a dataset's)."""
    for sid in CP:
        md = re.sub(r'<a id="%s"></a>\n.*?(?=<a id=|\n## )' % sid, "", md, flags=re.S)
    md = re.sub(r"- a dataset's summaries keep only the CPU operators[^\n]*\n(  [^\n]*\n)*",
                "", md)
    return md


def same_report(ds, label):
    out = os.path.join(work, label + ".json")
    md = run("report", ds, "--json", out).stdout
    if not os.path.exists(out):
        check(False, f"{label}: profdb report DIR wrote its JSON")
        return
    got = json.load(open(out))
    check(set(got) == set(ref), f"{label}: the same top-level keys")
    for key in ref:
        if key not in ("inputs", "sections", "findings"):
            check(got.get(key) == ref[key], f"{label}: '{key}' equal")
    gs = {s["id"]: s for s in got["sections"]}
    for sid in CP:
        cp = gs.get(sid, {})
        check(not cp.get("rows") and "summaries" in json.dumps(cp),
              f"{label}: {sid} unavailable, saying why ({json.dumps(cp)[:200]})")
    bad = [s["id"] for s in ref["sections"]
           if s["id"] not in CP and gs.get(s["id"]) != s]
    check(not bad and len(gs) == len(ref["sections"]),
          f"{label}: all {len(ref['sections'])} sections equal (columns, rows, notes)"
          + (f"; differing: {bad}" if bad else ""))
    check(got["findings"] == ref["findings"],
          f"{label}: the {len(ref['findings'])} findings equal "
          f"({', '.join(f['id'] for f in ref['findings'])})")
    rows = {s["id"]: s for s in got["sections"]}["run_summary"]["rows"]
    per_rank = {r["rank"]: r["kernels"] for r in rows}
    check(per_rank == kernels, f"{label}: kernels per rank as counted in the JSON ({per_rank})")
    strip = lambda t: [l for l in without_cp(t).splitlines() if not l.startswith("- Inputs:")]
    check(strip(md) == strip(ref_md), f"{label}: the Markdown report equal (but its Inputs)")


if nranks == 8:
    check(ref["findings"] and any(f["id"] == "straggler" for f in ref["findings"]),
          "the job's report has findings, the straggler among them")
same_report(ds_tasks, "tasks")
same_report(ds_db, "export_db")

# diff DIR_A DIR_B
a, b = os.path.join(work, "diff_dir.json"), os.path.join(work, "diff_db.json")
run("diff", ds_tasks, ds_db, "--json", a)
run("diff", db, db, "--json", b)
da, dbb = json.load(open(a)), json.load(open(b))
da.pop("inputs"), dbb.pop("inputs")
check(da == dbb and da.get("sections"), "diff DIR_A DIR_B equals diff DB DB (but 'inputs')")

# damaged summary, no summaries
bad = os.path.join(work, "bad")
shutil.copytree(ds_tasks, bad)
victim = os.path.join(bad, "_summary", "run=job42", f"rank={nranks - 1}.db.zst")
with open(victim, "r+b") as fh:
    fh.truncate(os.path.getsize(victim) // 2)
p = run("report", bad, code=1)
check(p.returncode == 1 and f"profdb: {victim}: damaged summary" in p.stderr,
      f"a cut summary: exit 1 naming it ({p.stderr.strip()[:120]})")
# a summary whose database is a whole number of zstd's 128 KiB output
# blocks (1 summary in 32): read as any other (its decompression once
# ended on a call that read and wrote nothing and was taken as cut short)
aligned = os.path.join(work, "aligned")
shutil.copytree(ds_tasks, aligned)
target = os.path.join(aligned, "_summary", "run=job42", "rank=0.db.zst")
plain = target[:-4]
subprocess.run(["zstd", "-q", "-d", "-f", target, "-o", plain], check=True)
con = sqlite3.connect(plain)
con.execute("CREATE TABLE pad(b BLOB)")
while con.execute("PRAGMA page_count").fetchone()[0] * con.execute(
        "PRAGMA page_size").fetchone()[0] % (128 * 1024):
    con.execute("INSERT INTO pad VALUES (zeroblob(1000))")
    con.commit()
con.execute("DROP TABLE pad")  # its pages stay, free: the file keeps its size
con.commit()
con.close()
check(os.path.getsize(plain) % (128 * 1024) == 0, "a summary of a whole number of 128 KiB blocks made")
subprocess.run(["zstd", "-q", "-f", "--rm", plain, "-o", target], check=True)
out = os.path.join(work, "aligned.json")
p = run("report", aligned, "--json", out)
check(p.returncode == 0 and os.path.exists(out)
      and [x for x in json.load(open(out))["sections"] if x["id"] not in CP]
      == [x for x in ref["sections"] if x["id"] not in CP],
      f"a summary of whole 128 KiB blocks: read, the same report ({p.stderr.strip()[:80]})")

only = os.path.join(work, "only_kernel")
run("export", db, "-o", only, "--table", "kernel", "-q")
p = run("report", only, code=1)
check(p.returncode == 1 and "without summaries" in p.stderr,
      f"a dataset without summaries: exit 1 ({p.stderr.strip()[:80]})")

if snapshots:
    run("export", *snapshots, "-o", ds_tasks, "--run", "job42", "-q", code=3)  # rank 0: warned
    p = run("report", ds_tasks, "--json", os.path.join(work, "with_snapshot.json"))
    check(p.returncode == 0 and "memory sections are not available from a dataset" in p.stderr,
          f"a dataset with a snapshot: the memory sections said unavailable ({p.stderr.strip()[:90]})")

sys.exit(1 if failed else 0)
