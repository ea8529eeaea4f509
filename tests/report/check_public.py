#!/usr/bin/env python3
"""`profdb report` on every public trace and snapshot: it must succeed.

    check_public.py PROFDB DATA_DIR WORK_DIR

For each *.json / *.json.gz under DATA_DIR: the report exits 0, its JSON
parses, every section has rows or says why not (note), every column
declared is present in every row, and every finding has all its fields.
Exits 77 (skipped) when DATA_DIR does not exist.
"""
import json
import os
import subprocess
import sys

FINDING_FIELDS = ["priority", "id", "confidence", "title", "observation", "hypothesis",
                  "action", "expected_impact", "validation", "needs_artifact"]


def main():
    profdb, data, work = sys.argv[1:4]
    if not os.path.isdir(data):
        print(f"{data}: no public data; skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    paths = sorted(os.path.join(d, f) for d, _, files in os.walk(data) for f in files
                   if f.endswith((".json", ".json.gz")))
    problems, findings = [], 0
    for path in paths:
        out = os.path.join(work, "report.json")
        r = subprocess.run([profdb, "report", path, "--json", out], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        name = os.path.relpath(path, data)
        if r.returncode != 0:
            problems.append(f"{name}: exit {r.returncode}: {r.stderr.strip()[:300]}")
            continue
        with open(out) as f:
            doc = json.load(f)
        for s in doc["sections"]:
            if not s["rows"] and not s["note"]:
                problems.append(f"{name}: section {s['id']} has neither rows nor a note")
            names = [c["name"] for c in s["columns"]]
            for row in s["rows"]:
                if list(row) != names:
                    problems.append(f"{name}: section {s['id']} row keys {list(row)}")
                    break
        for f in doc["findings"]:
            if list(f) != FINDING_FIELDS or not all(f[k] not in (None, "") for k in FINDING_FIELDS):
                problems.append(f"{name}: finding {f.get('id')} incomplete")
        findings += len(doc["findings"])
    for p in problems:
        print("FAIL", p)
    print(f"{len(paths)} files reported, {findings} findings, {len(problems)} problem(s)")
    return 1 if problems or not paths else 0


if __name__ == "__main__":
    sys.exit(main())
