#!/usr/bin/env python3
"""cli.progress_log: progress off a terminal, as in a Slurm or CI log
(issue 45): with stderr a pipe, `profdb load`, `export`, `report DIR` and
`diff DIR DIR` print whole plain lines ("profdb: ..." with counts and
seconds, no carriage return or escape sequence) every
$PROFDB_PROGRESS_SECONDS (10 s by default; tiny here so a short run shows
them); -q / --quiet silences them.

    check_log_lines.py PROFDB SOURCE_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys

profdb, src, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
example = os.path.join(src, "docs", "examples", "generated_gpu_run")
traces = [os.path.join(example, f) for f in sorted(os.listdir(example)) if "trace" in f]
ds = os.path.join(work, "ds")
env = dict(os.environ, PROFDB_PROGRESS_SECONDS="0.000001")
failures = []


def run(args, quiet=False):
    r = subprocess.run([profdb, *args] + (["-q"] if quiet else []), capture_output=True,
                       env=env)
    err = r.stderr.decode("utf-8", "replace")
    if r.returncode != 0:
        failures.append(f"{args[0]}: exit {r.returncode}: {err[-300:]}")
    return err


cases = [
    ("load", ["load", example, "-o", os.path.join(work, "a.db")], r"\[\d/3\] .*MB read"),
    ("export", ["export", *traces, "-o", ds, "--run", "j"], r"export: trace \d of 2"),
    ("report DIR", ["report", ds, "--md", os.path.join(work, "r.md")],
     r"merging the dataset's summaries: \d of 2.*\n(.*\n)*.*report: section \d+ of \d+ \("),
    ("diff DIR DIR", ["diff", ds, ds, "--md", os.path.join(work, "d.md")],
     r"diff: section \d+ of \d+ \("),
]
for what, args, pattern in cases:
    if what == "load" and os.path.exists(args[-1]):
        os.unlink(args[-1])
    err = run(args)
    lines = err.splitlines()
    ok = re.search(pattern, err) and "\r" not in err and "\033" not in err and \
        all(l.startswith("profdb: ") for l in lines)
    print(("ok" if ok else "FAIL") + f": {what} into a pipe: plain progress lines with counts")
    if not ok:
        failures.append(f"{what}: {err[:600]!r}")
    if what == "load":
        os.unlink(args[-1])
    quiet = run(args, quiet=True)
    silent = not re.search(r"MB read| of \d|, \d+\.\d s", quiet)
    print(("ok" if silent else "FAIL") + f": {what} -q: no progress lines")
    if not silent:
        failures.append(f"{what} -q: {quiet[:300]!r}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
