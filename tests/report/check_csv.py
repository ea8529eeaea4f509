#!/usr/bin/env python3
"""profdb report / diff --csv DIR and --list, on the example GPU run and the
committed before/after fixtures.

    check_csv.py PROFDB SOURCE_DIR WORK_DIR

  * --csv DIR writes one ID.csv per section of the JSON (findings.csv,
    verdict.csv, gate.csv included) and nothing else; each parses as RFC
    4180 (Python's csv module, CRLF line ends), its header row is the
    section's column names and its rows are the JSON's rows, value for
    value: integers exactly (ns, bytes), reals to the same double, text
    whole (quotes, commas and newlines survive) except that a text a
    spreadsheet would run as a formula (= + - @ TAB first, not a number)
    has a leading ' (issue 40, C9), NULL as an empty field;
  * a section without rows still has its header row;
  * --list prints the summary id, then every id of the section list in
    order, each with its -- Title:, and runs no query (no database given);
  * an unknown option value (--csv without DIR) is a usage error (2).
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys

profdb, source, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []


def check(what, ok):
    if not ok:
        failures.append(what)


def cell(v):
    """A JSON value as the CSV writes it."""
    if v is None:
        return ""
    if isinstance(v, (dict, list)):
        return v  # compared after json.loads
    return v


def csv_text(v):
    """Text as the CSV writes it: a formula-like cell neutralised (C9)."""
    number = re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?%?", v)
    return "'" + v if v[:1] and v[0] in "=+-@\t" and not number else v


def compare(section_id, columns, rows, path):
    raw = open(path, "rb").read()
    check(f"{path}: lines end in CRLF", raw.endswith(b"\r\n") and b"\r\n" in raw)
    records = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    check(f"{section_id}: header {records[0] if records else None} != {columns}",
          records and records[0] == columns)
    check(f"{section_id}: {len(records) - 1} records, {len(rows)} rows",
          len(records) - 1 == len(rows))
    for i, (rec, row) in enumerate(zip(records[1:], rows)):
        for name, text in zip(columns, rec):
            want = row[name]
            if want is None:
                ok = text == ""
            elif isinstance(want, bool) or isinstance(want, int):
                ok = re.fullmatch(r"-?[0-9]+", text) is not None and int(text) == int(want)
            elif isinstance(want, float):
                ok = float(text) == want
            elif isinstance(want, (dict, list)):
                ok = json.loads(text) == want
            else:
                ok = text == csv_text(want)
            if not ok:
                failures.append(f"{section_id} row {i} {name}: csv {text!r}, json {want!r}")
                return


def run_and_compare(args, json_path, csv_dir, summary_key):
    shutil.rmtree(csv_dir, ignore_errors=True)
    p = subprocess.run([profdb, *args, "--json", json_path, "--csv", csv_dir],
                       capture_output=True, text=True)
    check(f"{args}: exit {p.returncode}: {p.stderr}", p.returncode in (0, 10))
    doc = json.load(open(json_path))
    want = {s["id"] + ".csv" for s in doc["sections"]} | {summary_key + ".csv"}
    if "gate" in doc:
        want.add("gate.csv")
    got = set(os.listdir(csv_dir))
    check(f"{args}: files {sorted(got ^ want)} differ from the JSON's sections", got == want)
    empty = 0
    for s in doc["sections"]:
        compare(s["id"], [c["name"] for c in s["columns"]], s["rows"],
                os.path.join(csv_dir, s["id"] + ".csv"))
        empty += not s["rows"]
    summary = doc[summary_key]
    if summary:
        compare(summary_key, list(summary[0].keys()), summary,
                os.path.join(csv_dir, summary_key + ".csv"))
    if "gate" in doc:
        checks = doc["gate"]["checks"]
        if checks:
            # JSON "passed" is a boolean there; the CSV has the raw 0/1
            for c in checks:
                if isinstance(c.get("passed"), bool):
                    c["passed"] = int(c["passed"])
            compare("gate", list(checks[0].keys()), checks, os.path.join(csv_dir, "gate.csv"))
    return doc, empty


# the report of the example GPU run (2 ranks, a snapshot)
db = os.path.join(work, "gpu.db")
if os.path.exists(db):
    os.remove(db)
subprocess.run([profdb, "load", "-q", os.path.join(source, "docs/examples/generated_gpu_run"),
                "-o", db], check=True)
doc, empty = run_and_compare(["report", db], os.path.join(work, "r.json"),
                             os.path.join(work, "report_csv"), "findings")
check("the example has findings", len(doc["findings"]) > 0)
check("some section has text with a comma or quote (quoting exercised)",
      any(isinstance(v, str) and ("," in v or '"' in v)
          for s in doc["sections"] for r in s["rows"] for v in r.values()))
for s in doc["sections"]:
    if not s["rows"]:
        lines = open(os.path.join(work, "report_csv", s["id"] + ".csv"), "rb").read()
        check(f"{s['id']}: an empty section has only its header row",
              lines.count(b"\r\n") == 1 and lines.startswith(s["columns"][0]["name"].encode()))

# the diff of the committed before/after fixtures, with a gate
fx = os.path.join(source, "tests/report/data")
before, after = os.path.join(work, "before.db"), os.path.join(work, "after.db")
for path, files in ((before, ["train_rank0.json", "memory_snapshot.json"]),
                    (after, ["after_rank0.json", "after_memory_snapshot.json"])):
    if os.path.exists(path):
        os.remove(path)
    subprocess.run([profdb, "load", "-q", *files, "-o", path], cwd=fx, check=True)
doc, _ = run_and_compare(["diff", before, after, "--fail-if", "step_time > +1%"],
                         os.path.join(work, "d.json"), os.path.join(work, "diff_csv"), "verdict")
check("the diff's gate is in the JSON", "gate" in doc)

# --list: ids and titles, no database needed
for command, listfile, summary, key in (("report", "queries/report.list", "queries/findings.sql",
                                         "findings"),
                                        ("diff", "queries/diff/diff.list",
                                         "queries/diff/verdict.sql", "verdict")):
    p = subprocess.run([profdb, command, "--list"], capture_output=True, text=True)
    check(f"{command} --list: exit {p.returncode} {p.stderr}", p.returncode == 0)
    ids = [l.strip() for l in open(os.path.join(source, listfile))
           if l.strip() and not l.startswith("#")]
    lines = p.stdout.splitlines()
    check(f"{command} --list: ids {[l.split()[0] for l in lines]} != {[key] + ids}",
          [l.split()[0] for l in lines if l.strip()] == [key] + ids)
    sub = "diff/" if command == "diff" else ""
    for line in lines[1:]:
        sid, title = line.split(None, 1)
        head = open(os.path.join(source, "queries", sub + sid + ".sql")).readline()
        check(f"{command} --list: {sid}: title {title!r} not the file's {head!r}",
              head.startswith("-- Title:") and head[len("-- Title:"):].strip() == title)

p = subprocess.run([profdb, "report", db, "--csv"], capture_output=True, text=True)
check(f"--csv without a folder: exit {p.returncode}", p.returncode == 2)

for f in failures:
    print("FAIL:", f)
print(f"csv: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
