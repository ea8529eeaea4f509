#!/usr/bin/env python3
"""report.csv_stdout_job_steps (issue 45, smaller items):
  * `report DB --csv - --section ID` writes that section's CSV to stdout
    and creates no folder named "-"; `--csv -` without exactly one section
    is refused (exit 2) and creates nothing;
  * `profdb --help` says the report writes Markdown, JSON, HTML and CSV;
  * the diff's "What was compared" counts job steps apart from rank steps:
    a job of one rank and its replica of 8 ranks read the same job_steps
    (rank_steps 8 times as many), as does the diff's scope line.

    check_csv_stdout_steps.py PROFDB SOURCE_DIR WORK_DIR
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
failures = []


def check(what, ok):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


trace0 = os.path.join(source, "docs", "examples", "generated_gpu_run", "rank0.pt.trace.json")
with open(trace0) as f:
    base = json.load(f)


def job(folder, ranks):
    os.makedirs(folder)
    for r in range(ranks):
        t = dict(base)
        t["distributedInfo"] = {"backend": "nccl", "rank": r, "world_size": ranks}
        with open(os.path.join(folder, f"rank{r}.json"), "w") as f:
            json.dump(t, f)
    subprocess.run([profdb, "load", folder, "-o", folder + ".db", "-q"], check=True)


job("one", 1)
job("eight", 8)

p = subprocess.run([profdb, "report", "one.db", "--csv", "-", "--section", "step_time_sum"],
                   capture_output=True, text=True)
check("--csv - --section ID: that section's CSV on stdout (%r)" % p.stdout[:60],
      p.returncode == 0 and p.stdout.startswith("label,steps,") and not os.path.exists("-"))
p = subprocess.run([profdb, "report", "one.db", "--csv", "-"], capture_output=True, text=True)
check("--csv - without one --section is refused: %s" % p.stderr.strip()[:160],
      p.returncode == 2 and "--section" in p.stderr and not os.path.exists("-"))

p = subprocess.run([profdb, "--help"], capture_output=True, text=True)
line = [l for l in p.stdout.splitlines() if l.strip().startswith("report")]
check("profdb --help: report writes Markdown, JSON, HTML, CSV: %s" % line,
      line and all(w in line[0] for w in ("Markdown", "JSON", "HTML", "CSV")))

subprocess.run([profdb, "diff", "one.db", "eight.db", "--section", "steps", "--json", "d.json"],
               check=True, stdout=subprocess.DEVNULL)
with open("d.json") as f:
    d = json.load(f)
rows = {r["side"]: r for r in d["sections"][0]["rows"]}
b, a = rows["before"], rows["after"]
check("a job and its 8x replica: the same job steps (%s vs %s)" % (b["job_steps"], a["job_steps"]),
      b["job_steps"] == a["job_steps"] > 0)
check("rank steps apart: 8 times as many (%s vs %s)" % (b["rank_steps"], a["rank_steps"]),
      a["rank_steps"] == 8 * b["rank_steps"] and a["traces"] == 8)
check("the scope line counts job steps: %s" % d["scope"],
      "%d job step(s) analysed" % b["job_steps"] in d["scope"] and "rank steps" in d["scope"])
sys.exit(1 if failures else 0)
