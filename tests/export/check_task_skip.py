#!/usr/bin/env python3
"""A job-array task skips an input the dataset already holds, and only
then (issue 25; ../shared/docs/SCALE.md, "skip an input whose hash is
already recorded"; export/export_record.c).

    check_task_skip.py PROFDB WORKDIR EXAMPLE_DIR

EXAMPLE_DIR: docs/examples/generated_gpu_run (two ranks and a memory
snapshot, in the repository).  Each file is exported as one task; then:
  - a re-run of each task is skipped: same exit code (3 for the snapshot,
    whose rank is a guess), a line saying as what it is held, and no file
    of the dataset touched (names, bytes, inodes and times the same);
  - profdb run through PATH skips too; export DB of the three loaded
    together writes no record (another build may have loaded the
    database) and removes those of the ranks it writes;
  - --force exports again, to the same bytes;
  - other options, a recorded file missing or resized, a record missing
    or damaged, and the same content under another name are exported
    again; a failed export leaves no record of the rank behind;
  - --threads 1 (the load on one thread) writes the same bytes;
  - a value that does not fit its column (a text pid) is named, exit 3;
    an integer written as a string (a text tid) is that integer;
  - -o naming a file, a truncated input and a dataset of snapshots only
    are said plainly.
"""
import json
import os
import shutil
import subprocess
import sys

PROFDB, WORK, EXAMPLE = (os.path.abspath(a) for a in sys.argv[1:4])
INPUTS = [os.path.join(EXAMPLE, f)
          for f in ("rank0.pt.trace.json", "rank1.pt.trace.json", "memory_snapshot.json")]
FIRST_CODES = [0, 0, 0]  # the snapshot has no rank: rank 0, its load's default (no warning)
failures = 0


def check(cond, what):
    global failures
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures += 1


def export(args, env=None):
    r = subprocess.run([PROFDB, "export"] + args, capture_output=True, text=True, env=env)
    return r.returncode, r.stderr


def state(d):
    """Every file under d (hidden ones too): its bytes, inode and mtime."""
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            st = os.stat(p)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = (fh.read(), st.st_ino, st.st_mtime_ns)
    return out


def records(d):
    out = {}
    for root, _, files in os.walk(os.path.join(d, "_inputs")):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                out[os.path.relpath(os.path.join(root, f), d)] = fh.read()
    return out


def parquet_bytes(d):
    return {k: v[0] for k, v in state(d).items() if k.endswith(".parquet")}


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
tasks = os.path.join(WORK, "tasks")

# ---- one task per input, then each again: skipped -----------------------
codes = [export([f, "-o", tasks, "-q"])[0] for f in INPUTS]
check(codes == FIRST_CODES, "tasks exit %s" % codes)
recs = records(tasks)
check(sorted(recs) == ["_inputs/snapshot/run=snapshot/rank=0.json",
                       "_inputs/trace/run=ws2-1/rank=0.json",
                       "_inputs/trace/run=ws2-1/rank=1.json"],
      "one record per exported artifact: %s" % sorted(recs))
rec0 = json.loads(recs["_inputs/trace/run=ws2-1/rank=0.json"])
check(rec0["kind"] == "trace" and rec0["rank"] == 0 and rec0["run"] == "ws2-1"
      and rec0["rank_source"] == "distributedInfo" and rec0["label"] == "rank0"
      and rec0["file_bytes"] == os.path.getsize(INPUTS[0]) and rec0["warnings"] == 0,
      "the record says what was exported: %s" % {k: rec0[k] for k in rec0 if k != "files"})
listed = [f["path"] for f in rec0["files"]]
on_disk = sorted(k for k in state(tasks) if "/run=ws2-1/rank=0/" in k)
check(sorted(p for p in listed if p.endswith(".parquet")) == on_disk,
      "it lists rank 0's Parquet files (%d)" % len(on_disk))
check("_summary/run=ws2-1/rank=0.db.zst" in listed, "and its summary")
check(all(f["bytes"] == os.path.getsize(os.path.join(tasks, f["path"]))
          for f in rec0["files"] if "bytes" in f), "with their sizes")

before = state(tasks)
for f, first in zip(INPUTS, FIRST_CODES):
    code, err = export([f, "-o", tasks])
    check(code == first, "%s again: exit %d, as the first time" % (os.path.basename(f), code))
    check("skipped" in err and "already in %s as the" % tasks in err and "files," not in err,
          "  it says it skipped: %s" % err.strip()[:160])
check(state(tasks) == before, "the skipped tasks touched no file (bytes, inodes, times)")
code, err = export(INPUTS[:1] + ["-o", tasks, "-q"])
check(code == 0 and err == "", "-q: skipped silently")
code, err = export(INPUTS[:1] + ["-o", tasks, "--table", "kernle"])
check(code == 2 and "no table 'kernle'" in err, "a held input with a bad --table: exit 2")
# Without --run, inputs loaded together derive their runs together: a task
# of two is exported (to the same bytes), one with --run may be skipped.
code, err = export(INPUTS[:2] + ["-o", tasks])
check(code == 0 and "skipped" not in err and parquet_bytes(tasks) == {
    k: v[0] for k, v in before.items() if k.endswith(".parquet")},
      "a task of two inputs without --run: exported, to the same bytes")
named = os.path.join(WORK, "named")
for f in INPUTS[:2]:
    export([f, "-o", named, "--run", "job7", "-q"])
code, err = export(INPUTS[:2] + ["-o", named, "--run", "job7"])
check(code == 0 and err.count("skipped") == 2 and "run job7" in err,
      "a task of two held inputs with --run: both skipped")
code, err = export([INPUTS[0], "-o", named])
check(code == 0 and "skipped" not in err, "  and without --run, the same input is exported (ws2-1)")
before = state(tasks)
lst = os.path.join(WORK, "inputs.txt")
with open(lst, "w") as fh:
    fh.write("\n".join(INPUTS) + "\n")
env = dict(os.environ, SLURM_ARRAY_TASK_ID="1")
code, err = export(["--files", lst, "-o", tasks], env)
check(code == 0 and "rank 1" in err and "skipped" in err, "--files with $SLURM_ARRAY_TASK_ID: skipped")

# profdb found on PATH, run from a folder holding a file named profdb (the
# build is the program's, not a file named like argv[0]): skipped.
bindir, cwd = os.path.join(WORK, "bin"), os.path.join(WORK, "cwd")
os.makedirs(bindir)
os.makedirs(cwd)
os.symlink(PROFDB, os.path.join(bindir, "profdb"))
open(os.path.join(cwd, "profdb"), "w").close()
r = subprocess.run(["profdb", "export", INPUTS[0], "-o", tasks], capture_output=True, text=True,
                   cwd=cwd, env=dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"]))
check(r.returncode == 0 and "skipped" in r.stderr, "profdb run through PATH: skipped as well")

# ---- export DB writes no record, and removes those of the ranks it writes -
# (a database may have been loaded by another build of profdb)
db = os.path.join(WORK, "all.db")
subprocess.run([PROFDB, "load"] + INPUTS + ["-o", db, "-q"], check=True)
from_db = os.path.join(WORK, "from_db")
code, _ = export([db, "-o", from_db, "-q"])
check(code == 0, "export DB exits 0 (the ranks its load decided: no warning)")
check(records(from_db) == {}, "export DB writes no record")
check(parquet_bytes(from_db) == parquet_bytes(tasks), "and the tasks' Parquet bytes")
code, err = export([db, "-o", tasks])
check(code == 0 and "skipped" not in err, "a database is never skipped")
check(records(tasks) == {}, "  and removes the records of the ranks it rewrote")
codes = []
for f in INPUTS:
    code, err = export([f, "-o", tasks])
    codes.append(code)
    check("skipped" not in err, "  so %s is exported again" % os.path.basename(f))
check(codes == FIRST_CODES and records(tasks) == recs, "  which writes the same records")

# ---- --threads (SCALE.md: a thread count from the scheduler or an option) --
before_bytes = parquet_bytes(tasks)
code, err = export([INPUTS[0], "-o", tasks, "--force", "--threads", "1"])
check(code == 0 and parquet_bytes(tasks) == before_bytes, "--threads 1: the same bytes")
for bad in ("0", "x", "1025"):
    code, err = export([INPUTS[0], "-o", tasks, "--threads", bad])
    check(code == 2 and "--threads %s: a number from 1 to 1024" % bad in err,
          "--threads %s is refused with exit 2" % bad)

# ---- --force, other options -----------------------------------------------
before = state(tasks)
code, err = export([INPUTS[0], "-o", tasks, "--force"])
after = state(tasks)
check(code == 0 and "skipped" not in err, "--force exports again")
check({k: v[0] for k, v in after.items() if ".parquet" in k or "_inputs" in k}
      == {k: v[0] for k, v in before.items() if ".parquet" in k or "_inputs" in k},
      "  to the same Parquet bytes and record")
changed = [k for k in after if "rank=0" in k and "ws2-1" in k and after[k][2] != before[k][2]]
check(len(changed) >= len(on_disk), "  rewriting rank 0's files (%d)" % len(changed))

code, err = export([INPUTS[1], "-o", tasks, "--group-rows", "100"])
check(code == 0 and "skipped" not in err, "other options (--group-rows 100): exported")
code, err = export([INPUTS[1], "-o", tasks, "--group-rows", "100"])
check(code == 0 and "skipped" in err, "  then held with those options")
code, err = export([INPUTS[1], "-o", tasks])
check(code == 0 and "skipped" not in err, "  and the default options export again")
code, err = export([INPUTS[1], "-o", tasks, "--table", "kernel"])
check(code == 0 and "skipped" not in err, "--table kernel: exported")
rec1 = json.loads(records(tasks)["_inputs/trace/run=ws2-1/rank=1.json"])
check([f["path"] for f in rec1["files"]] == ["kernel/run=ws2-1/rank=1/part-0000.parquet"],
      "  its record lists only the kernel file")
code, err = export([INPUTS[1], "-o", tasks])
check(code == 0 and "skipped" not in err, "  and a task of all tables exports again")

# ---- what is held is checked ------------------------------------------------
part = os.path.join(tasks, "kernel/run=ws2-1/rank=1/part-0000.parquet")
good = open(part, "rb").read()
os.remove(part)
code, err = export([INPUTS[1], "-o", tasks])
check(code == 0 and "skipped" not in err and open(part, "rb").read() == good,
      "a recorded file removed: exported again, the file back")
with open(part, "ab") as fh:
    fh.write(b"x")
code, err = export([INPUTS[1], "-o", tasks])
check(code == 0 and "skipped" not in err and open(part, "rb").read() == good,
      "a recorded file of another size: exported again")
summary = os.path.join(tasks, "_summary/run=ws2-1/rank=1.db.zst")
os.remove(summary)
code, err = export([INPUTS[1], "-o", tasks])
check(code == 0 and "skipped" not in err and os.path.exists(summary),
      "the summary removed: exported again")
rec = os.path.join(tasks, "_inputs/trace/run=ws2-1/rank=1.json")
os.remove(rec)
code, err = export([INPUTS[1], "-o", tasks])
check(code == 0 and "skipped" not in err and os.path.exists(rec), "the record removed: exported again")
with open(rec, "w") as fh:
    fh.write('{"kind": "trace", "files": [')
code, err = export([INPUTS[1], "-o", tasks])
check(code == 0 and "skipped" not in err and json.load(open(rec))["rank"] == 1,
      "a damaged record: exported again, the record rewritten")

# Same name and size, other bytes (one digit of a duration): another input.
text = open(INPUTS[0]).read()
at = text.index('"dur":') + len('"dur":')
while not text[at].isdigit():
    at += 1
while text[at + 1].isdigit():
    at += 1
changed_dir = os.path.join(WORK, "changed")
os.makedirs(changed_dir)
changed = os.path.join(changed_dir, "rank0.pt.trace.json")
with open(changed, "w") as fh:
    fh.write(text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1:])
check(os.path.getsize(changed) == os.path.getsize(INPUTS[0]), "(a changed copy of rank 0, same size)")
code, err = export([changed, "-o", tasks])
check(code == 0 and "skipped" not in err, "same name and size, other content: exported")
code, err = export([INPUTS[0], "-o", tasks])
check(code == 0 and "skipped" not in err, "  and the original is exported again")

# Another build of profdb (here: one byte appended to the program) may
# write other bytes: it exports again.
other_build = os.path.join(WORK, "profdb-other")
shutil.copy(PROFDB, other_build)
with open(other_build, "ab") as fh:
    fh.write(b"\0")
r = subprocess.run([other_build, "export", INPUTS[0], "-o", tasks], capture_output=True, text=True)
check(r.returncode == 0 and "skipped" not in r.stderr, "another build of profdb: exported")
code, err = export([INPUTS[0], "-o", tasks])
check(code == 0 and "skipped" not in err, "  and this build exports again after it")

# A record of a run the task would not derive alone: not this task's files.
shifted_dir = os.path.join(WORK, "shifted")
os.makedirs(shifted_dir)
shifted = os.path.join(shifted_dir, "rank1.pt.trace.json")
t = json.load(open(INPUTS[1]))
for e in t["traceEvents"]:
    if isinstance(e.get("ts"), (int, float)):
        e["ts"] += 10 ** 10  # three hours later: its own time window
with open(shifted, "w") as fh:
    json.dump(t, fh)
islands = os.path.join(WORK, "islands")
code, _ = export([INPUTS[0], shifted, "-o", islands, "-q"])  # one task, two inputs
check(code == 0 and os.path.exists(os.path.join(islands, "_inputs/trace/run=ws2-2/rank=1.json")),
      "(a task of rank 0 and a later rank 1 without --run: rank 1 in run ws2-2)")
code, err = export([shifted, "-o", islands])
check(code == 0 and "skipped" not in err and
      os.path.exists(os.path.join(islands, "_inputs/trace/run=ws2-1/rank=1.json")),
      "the task of that rank 1 alone is exported, to run ws2-1")
foo = os.path.join(WORK, "foo")
export([INPUTS[0], "-o", foo, "-q", "--run", "foo"])
code, err = export([INPUTS[0], "-o", foo])
check(code == 0 and "skipped" not in err and os.path.isdir(os.path.join(foo, "trace/run=ws2-1")),
      "a record of --run foo: the task without --run is exported (ws2-1)")

# The same content under another name: its label (in the files) differs.
other = os.path.join(WORK, "copy")
os.makedirs(other)
copy = os.path.join(other, "rank1_copy.pt.trace.json")
shutil.copy(INPUTS[1], copy)
code, err = export([copy, "-o", tasks])
check(code == 0 and "skipped" not in err, "the same content under another name: exported")
check(json.load(open(rec))["label"] == "rank1_copy", "  its record names it (rank 1 again)")
code, err = export([INPUTS[1], "-o", tasks])
check(code == 0 and "skipped" not in err and json.load(open(rec))["label"] == "rank1",
      "  and the original is exported again, not skipped")

# ---- a failed export leaves no record of the rank ---------------------------
# A file where rank 0's kernel folder goes: that table cannot be written.
kdir = os.path.join(tasks, "kernel/run=ws2-1/rank=0")
shutil.rmtree(kdir)
with open(kdir, "w") as fh:
    fh.write("not a folder")
code, err = export([INPUTS[0], "-o", tasks, "--force"])
rec0_path = os.path.join(tasks, "_inputs/trace/run=ws2-1/rank=0.json")
check(code != 0 and not os.path.exists(rec0_path),
      "a failed export (exit %d) removes the rank's record: %s" % (code, err.strip()[:120]))
os.remove(kdir)
code, err = export([INPUTS[0], "-o", tasks])
check(code == 0 and "skipped" not in err and os.path.exists(rec0_path),
      "  so that the next run exports it")
check(parquet_bytes(tasks) == parquet_bytes(from_db),
      "after all this, the tasks' dataset equals export DB's again")

# ---- a value that does not fit its column is named, not only counted -------
# PyTorch's legacy CPU traces write "pid": "CPU functions": cpu_op.pid is
# INT64, so those values are written as NULL (exit 3) and the task says so.
with open(INPUTS[0]) as fh:
    text_pid = json.load(fh)
for e in text_pid["traceEvents"]:
    if e.get("cat") == "cpu_op":
        e["pid"] = "CPU functions"
        e["tid"] = str(e["tid"])  # an integer as a string (Kineto 2021): kept
legacy = os.path.join(WORK, "rank5_text_pid.json")
with open(legacy, "w") as fh:
    json.dump(text_pid, fh)
code, err = export([legacy, "-o", os.path.join(WORK, "text_pid")])
ops = sum(1 for e in text_pid["traceEvents"] if e.get("cat") == "cpu_op")
check(code == 3 and ("cpu_op.pid: %d values are not integers (the first: 'CPU functions')" % ops) in err
      and "cpu_op.tid" not in err,
      "text pids: exit %d, named: %s" % (code, err.strip()[:160]))

# ---- what a user sees on three plain mistakes ------------------------------
not_dir = os.path.join(WORK, "a_file")
with open(not_dir, "w") as fh:
    fh.write("keep me")
code, err = export([INPUTS[0], "-o", not_dir])
check(code == 2 and "-o %s: not a folder" % not_dir in err and open(not_dir).read() == "keep me",
      "-o naming a file: exit %d, said before loading, the file kept: %s" % (code, err.strip()))
cut = os.path.join(WORK, "rank0_cut.json")
with open(INPUTS[0], "rb") as fh, open(cut, "wb") as out:
    out.write(fh.read()[:4000])
code, err = export([cut, "-o", os.path.join(WORK, "cut")])
check(code == 3 and "(with warnings)" in err,
      "a truncated input: exit %d, its summary line says so: %s" % (code, err.strip()[-80:]))
snaps = os.path.join(WORK, "snapshots_only")
export([INPUTS[2], "-o", snaps])
r = subprocess.run([PROFDB, "report", snaps], capture_output=True, text=True)
check(r.returncode == 1 and "memory snapshots only" in r.stderr and "export it again" not in r.stderr,
      "report of a dataset of snapshots only: exit %d, %s" % (r.returncode, r.stderr.strip()))

print("%d failure(s)" % failures)
sys.exit(1 if failures else 0)
