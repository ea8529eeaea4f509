#!/usr/bin/env python3
"""`profdb report` and `profdb diff` on every public file: they must succeed.

    check_public.py PROFDB DATA_DIR WORK_DIR

For each *.json / *.json.gz under DATA_DIR: the report exits 0, its JSON
parses, every section has rows or says why not (note), every column
declared is present in every row, and every finding has all its fields.
Then each file is diffed against the next one in name order (traces
against traces, snapshots and runs of different shapes: ranks, devices
and categories differ) with the same checks on the diff's JSON.
Exits 77 (skipped) when DATA_DIR does not exist.
"""
import json
import os
import subprocess
import sys

FINDING_FIELDS = ["priority", "id", "confidence", "title", "observation", "hypothesis",
                  "action", "expected_impact", "validation", "needs_artifact", "rule",
                  "expected_saving_pct", "expected_saving_ns", "subjects", "evidence"]
# Contract fields every rule fills already (the others are NULL where a rule
# does not state them yet).
REQUIRED_FIELDS = FINDING_FIELDS[:11]


def main():
    profdb, data, work = sys.argv[1:4]
    if not os.path.isdir(data):
        print(f"{data}: no public data; skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    paths = sorted(os.path.join(d, f) for d, _, files in os.walk(data) for f in files
                   if f.endswith((".json", ".json.gz")))
    problems, findings, verdicts = [], 0, 0
    out = os.path.join(work, "out.json")

    def run(args, name):
        r = subprocess.run([profdb, *args, "--json", out], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            problems.append(f"{name}: exit {r.returncode}: {r.stderr.strip()[:300]}")
            return None
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
        return doc

    for path in paths:
        name = os.path.relpath(path, data)
        doc = run(["report", path], name)
        if doc is None:
            continue
        for f in doc["findings"]:
            if list(f) != FINDING_FIELDS or not all(f[k] not in (None, "") for k in REQUIRED_FIELDS):
                problems.append(f"{name}: finding {f.get('id')} incomplete")
        findings += len(doc["findings"])
    for before, after in zip(paths, paths[1:]):
        name = f"diff {os.path.relpath(before, data)} {os.path.relpath(after, data)}"
        doc = run(["diff", before, after], name)
        if doc is None:
            continue
        for v in doc["verdict"]:
            if list(v) != ["topic", "statement"] or not v["statement"]:
                problems.append(f"{name}: verdict line {v} incomplete")
        verdicts += len(doc["verdict"])
    for p in problems:
        print("FAIL", p)
    print(f"{len(paths)} files reported ({findings} findings), {len(paths) - 1} diffs "
          f"({verdicts} verdict lines), {len(problems)} problem(s)")
    return 1 if problems or not paths else 0


if __name__ == "__main__":
    sys.exit(main())
