#!/usr/bin/env python3
"""Run by check_package.py inside the venv (mode "full") and from the other
interpreter (mode "same-rows"): the installed profdb package against the
CLI.  Prints FAIL lines and exits 1 on any difference.

    inner.py PROFDB DLRM_DIR WORK_DIR full|same-rows
"""
import inspect
import json
import os
import sqlite3
import subprocess
import sys

import profdb

cli, dlrm, work, mode = sys.argv[1:5]
failures = []

Q = ("SELECT kernel_category(name) AS category, count(*) AS kernels, sum(dur) AS dur_ns, "
     "op_family('aten::mm') AS fam, profdb_median(dur) AS med_ns "
     "FROM kernel GROUP BY 1 ORDER BY dur_ns DESC, category")


def check(what, ok):
    if not ok:
        failures.append(what)


def cli_json(*args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    if p.returncode not in (0, 10):
        raise SystemExit(f"FAIL: {cli} {args}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


try:
    import pandas as pd
except ImportError:
    pd = None

ref_db = os.path.join(work, "cli.db")
if mode == "full":
    # the CLI's database, to compare the package's load with
    if os.path.exists(ref_db):
        os.remove(ref_db)
    subprocess.run([cli, "load", "-q", dlrm, "-o", ref_db], check=True)
    py_db = os.path.join(work, "py.db")
    if os.path.exists(py_db):
        os.remove(py_db)
    db = profdb.load(dlrm, py_db, progress=False)
    check("load returns a Database", isinstance(db, profdb.Database))
    for q in ("SELECT count(*) AS n, sum(dur) AS d FROM kernel",
              "SELECT rank, label, events FROM trace ORDER BY rank"):
        check(f"profdb.load gives the database profdb load gives: {q}",
              db.sql(q, frame=False) == cli_json("query", ref_db, "--json", q))
else:
    db = profdb.open(ref_db)

# db.sql equals profdb query (typed: integers exact)
want = cli_json("query", ref_db, "--json", Q)
got_rows = db.sql(Q, frame=False)
check(f"sql rows {got_rows[:2]} != profdb query {want[:2]}", got_rows == want and len(want) > 3)
if pd is not None:
    got = db.sql(Q)
    check("sql gives a pandas DataFrame", isinstance(got, pd.DataFrame))
    exp = pd.DataFrame.from_records([list(r.values()) for r in want], columns=list(want[0]))
    check(f"DataFrame differs from profdb query:\n{got}\n{exp}", got.equals(exp))
    check("integer columns stay int64", str(got["dur_ns"].dtype) == "int64")
elif mode == "full":
    failures.append("the venv (with --system-site-packages) has no pandas")
print(f"{mode}: python {sys.version.split()[0]}, pandas {'yes' if pd else 'no'}, "
      f"enable_load_extension {'yes' if hasattr(sqlite3.Connection, 'enable_load_extension') else 'no'}")

# every SQL function is there: table-valued mem_* included
check("positional params", db.sql("SELECT ?1 + 1 AS x", [41], frame=False) == [{"x": 42}])
check("named params", db.sql("SELECT :v AS v", {"v": "a"}, frame=False) == [{"v": "a"}])
check("mem_trace_peak is there",
      isinstance(db.sql("SELECT * FROM mem_trace_peak(1)", frame=False), list))
check("interval_union is there",
      db.sql("SELECT interval_union(ts, ts + dur) AS u FROM kernel", frame=False)[0]["u"] > 0)

if mode == "full":
    # report: the same dict as profdb report --json, findings identical
    rep = db.report()
    ref = cli_json("report", ref_db, "--json", "-")
    check("report is a dict", isinstance(rep, dict))
    check("findings equal the CLI's --json findings",
          rep["findings"] == ref["findings"] and len(ref["findings"]) > 0)
    rep_inputs = dict(rep, inputs=None)
    check("the whole report dict equals the CLI's (but inputs)",
          rep_inputs == dict(ref, inputs=None))
    hta = db.report(sections=["temporal_breakdown", "gpu_idle", "findings"], scope="hta",
                    html=False)
    ref_hta = cli_json("report", ref_db, "--json", "-", "--scope", "hta", "--section",
                       "temporal_breakdown", "--section", "gpu_idle", "--section", "findings")
    check("sections= and scope= as the CLI's", dict(hta, inputs=None) ==
          dict(ref_hta, inputs=None) and [s["id"] for s in hta["sections"]] ==
          ["temporal_breakdown", "gpu_idle"])
    sec = db.section("gpu_idle", frame=False)
    ref_sec = next(s for s in ref["sections"] if s["id"] == "gpu_idle")["rows"]
    check("section() is the section's rows", sec == ref_sec and len(sec) > 0)
    if pd is not None:
        check("section() is a DataFrame with the declared columns",
              list(db.section("gpu_idle").columns) ==
              [c["name"] for s in ref["sections"] if s["id"] == "gpu_idle" for c in s["columns"]])
    html = rep._repr_html_()
    check("_repr_html_ shows the HTML report in a frame",
          html.startswith("<iframe") and "srcdoc=" in html and "gpu_idle" in html)

    # diff: a dict with the gate verdict, as profdb diff --json
    d = profdb.diff(ref_db, db, gate=["step_time > +5%", "ooms > 0"])
    ref_d = cli_json("diff", ref_db, py_db, "--json", "-", "--fail-if", "step_time > +5%",
                     "--fail-if", "ooms > 0")
    check("diff is a dict", isinstance(d, dict))
    check("diff has the gate verdict", d.get("gate", {}).get("passed") is True)
    check("diff equals profdb diff --json", dict(d, inputs=None) == dict(ref_d, inputs=None))
    failing = profdb.diff(ref_db, ref_db, gate="step_time < 1000ms", html=False)
    check("a failing gate is a verdict, not an exception", failing["gate"]["passed"] is False)
    # a kernel named in neither run raises (profdb exits 2), unless allow_missing
    try:
        profdb.diff(ref_db, ref_db, gate="kernel[no_such_kernel] > +5%", html=False)
        failures.append("a kernel in neither run did not raise")
    except profdb.Error as e:
        check(f"a kernel in neither run: the message says so: {e}", "not in either run" in str(e))
    missing = profdb.diff(ref_db, ref_db, gate="kernel[no_such_kernel] > +5%", html=False,
                          allow_missing=True)
    check("allow_missing: not evaluated", missing["gate"]["checks"][0]["passed"] is None)

    # read-only, errors
    try:
        db.sql("DELETE FROM trace")
        failures.append("a writing statement was not refused")
    except profdb.Error as e:
        check(f"refusal names the cause: {e}", "readonly" in str(e))
    # issue 40, L5: a read-only handle writes no file (VACUUM INTO), and a
    # folder is named as one
    vacuumed = os.path.join(work, "vacuumed.db")
    try:
        db.sql(f"VACUUM INTO '{vacuumed}'")
        failures.append("VACUUM INTO ran on a read-only handle")
    except profdb.Error as e:
        check(f"VACUUM INTO refused: {e}", not os.path.exists(vacuumed))
    try:
        profdb.open(work)
        failures.append("profdb.open(folder) did not raise")
    except profdb.Error as e:
        check(f"profdb.open(folder) says it is a folder: {e}", "a folder, not a database" in str(e))
    try:
        profdb.load(os.path.join(work, "no-such.json"), os.path.join(work, "x.db"))
        failures.append("loading a missing file did not raise")
    except profdb.Error as e:
        check(f"load error names the file: {e}", "no-such.json" in str(e))

    # python -m profdb: the CLI from the package
    p = subprocess.run([sys.executable, "-m", "profdb", "report", "--list"],
                       capture_output=True, text=True)
    check(f"python -m profdb report --list: {p.returncode} {p.stderr}",
          p.returncode == 0 and p.stdout.split()[0] == "findings" and "gpu_idle" in p.stdout)
    # one command table (cli/cli_commands.c) for profdb and python -m profdb
    p = subprocess.run([sys.executable, "-m", "profdb", "--help"], capture_output=True, text=True)
    ref_help = subprocess.run([cli, "--help"], capture_output=True, text=True).stdout
    check(f"python -m profdb --help is profdb --help: {p.stdout[:300]}",
          p.returncode == 0 and p.stdout == ref_help and
          "report DB|INPUT...       write the resource report (Markdown, JSON, HTML, CSV)"
          in p.stdout)


    # The report's options are defined once (report/report_params.c): the
    # keywords of Database.report / profdb.diff, the MCP tools' schema and
    # the CLI's --help all carry each of them; a new option missing from
    # one of them fails here.
    from profdb._native import report_options
    opts = report_options()
    own = {"report": {"self", "sections", "html", "progress", "run"},
           "diff": {"before", "after", "gate", "sections", "html", "progress", "allow_missing",
                    "run"}}
    for command, f in (("report", profdb.Database.report), ("diff", profdb.diff)):
        keywords = set(inspect.signature(f).parameters) - own[command]
        names = {o["name"] for o in opts if o[command]}
        check(f"{command}: keywords {sorted(keywords)} are its options {sorted(names)}",
              keywords == names and names)
        helptext = subprocess.run([cli, command, "--help"], capture_output=True,
                                  text=True).stdout
        for o in opts:
            check(f"{command} --help has {o['flag']}: {o[command]}",
                  (f"  {o['flag']} " in helptext) == o[command])
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    lst = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    bad = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
           "params": {"name": "findings", "arguments": {"db": ref_db, "top": 0}}}
    p = subprocess.run([sys.executable, "-m", "profdb", "mcp", "--allow", work],
                       input="".join(json.dumps(m) + "\n" for m in (init, lst, bad)),
                       capture_output=True, text=True)
    answers = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    tools = {t["name"]: t["inputSchema"]["properties"] for t in answers[1]["result"]["tools"]}
    for tool, command in (("findings", "report"), ("read_section", "report"), ("diff", "diff")):
        for o in opts:
            prop = tools[tool].get(o["name"])
            check(f"MCP {tool} has {o['name']} ({o['type']}) as {command} does: {prop}",
                  (prop is not None and prop["type"] == o["type"] and
                   prop.get("enum", []) == o["choices"]) == o[command])
    text = answers[2]["result"]["content"][0]["text"]
    check(f"MCP findings top=0 refused as the CLI refuses it: {text}",
          answers[2]["result"]["isError"] and "top needs a whole number of rows >= 1" in text)
    try:
        db.report(top=0, html=False)
        failures.append("report(top=0) did not raise")
    except ValueError as e:
        check(f"report(top=0) names the option: {e}", "top needs a whole number" in str(e))
    try:
        db.report(scope="bogus", html=False)
        failures.append("report(scope='bogus') did not raise")
    except ValueError as e:
        check(f"report(scope='bogus') names the choices: {e}", "steps, trace or hta" in str(e))

    # documented and typed
    for f in (profdb.load, profdb.open, profdb.diff, profdb.Database.sql, profdb.Database.report,
              profdb.Database.section, profdb.Report.frame):
        check(f"{f.__qualname__} has a docstring", bool(inspect.getdoc(f)))
        check(f"{f.__qualname__} has type hints",
              inspect.signature(f).return_annotation is not inspect.Signature.empty)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
