#!/usr/bin/env python3
"""mcp.dataset: profdb mcp's report tools on a Parquet dataset of profdb
export (issue 45): findings, read_section and diff take the dataset's
folder and answer what `profdb report DIR --json` / `profdb diff DIR DIR
--json` give (only "inputs" may differ); run selects a run; the sql tool
on a dataset names DuckDB; max_rows "ten" is refused with its name.

    check_dataset.py PROFDB SOURCE_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

profdb, source, work = sys.argv[1:4]
example = os.path.join(source, "docs", "examples", "generated_gpu_run")
failures = []


def check(what, ok):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


shutil.rmtree(work, ignore_errors=True)
allowed = os.path.join(work, "allowed")
os.makedirs(allowed)
ds = os.path.join(allowed, "ds")
traces = [os.path.join(example, f) for f in sorted(os.listdir(example)) if "trace" in f]
subprocess.run([profdb, "export", *traces, "-o", ds, "--run", "job1", "-q"], check=True)


def cli_json(*args):
    out = os.path.join(work, "cli.json")
    p = subprocess.run([profdb, *args, "--json", out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(out) as f:
        d = json.load(f)
    d.pop("inputs", None)
    return d


def mcp(calls):
    msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    for i, (name, args) in enumerate(calls, 1):
        msgs.append({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                     "params": {"name": name, "arguments": args}})
    p = subprocess.run([profdb, "mcp", "--allow", allowed],
                       input="".join(json.dumps(m) + "\n" for m in msgs),
                       capture_output=True, text=True, timeout=300)
    got = {}
    for line in p.stdout.splitlines():
        m = json.loads(line)
        got[m.get("id")] = m
    return [got[i]["result"] for i in range(1, len(calls) + 1)]


def body(result):
    text = result["content"][0]["text"]
    if result.get("isError"):
        return text
    d = json.loads(text)
    d.pop("inputs", None)
    return d


findings, section, diff, by_run, no_run, sql, rows = mcp([
    ("findings", {"db": ds}),
    ("read_section", {"db": ds, "section": "step_time"}),
    ("diff", {"before": ds, "after": ds, "sections": ["steps"]}),
    ("findings", {"db": ds, "run": "job1"}),
    ("findings", {"db": ds, "run": "nope"}),
    ("sql", {"db": ds, "query": "SELECT 1"}),
    ("sql", {"db": ds, "query": "SELECT 1", "max_rows": "ten"}),
])
want = cli_json("report", ds, "--section", "findings")
check("findings on a dataset is not an error: %s" % str(body(findings))[:300],
      not findings.get("isError"))
check("findings on a dataset equal profdb report DIR --json --section findings",
      body(findings) == want)
check("read_section on a dataset equals profdb report DIR --section step_time",
      not section.get("isError") and body(section) == cli_json("report", ds, "--section",
                                                               "step_time"))
check("diff of two datasets equals profdb diff DIR DIR --json",
      not diff.get("isError") and body(diff) == cli_json("diff", ds, ds, "--section", "verdict",
                                                         "--section", "steps"))
check("run selects a dataset's run", not by_run.get("isError") and body(by_run) == want)
check("an unknown run is an error naming the runs: %s" % body(no_run)[:200],
      no_run.get("isError") and "job1" in body(no_run))
check("sql on a dataset names DuckDB: %s" % body(sql)[:200],
      sql.get("isError") and "DuckDB" in body(sql) and "disk I/O" not in body(sql))
check("max_rows \"ten\" is refused with its name: %s" % body(rows)[:200],
      rows.get("isError") and "max_rows" in body(rows) and "ten" in body(rows))
sys.exit(1 if failures else 0)
