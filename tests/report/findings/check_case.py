#!/usr/bin/env python3
"""One finding rule on its fixture (a folder made by make_cases.py):

    check_case.py PROFDB FOLDER

Reports FOLDER/input*.json (with FOLDER/args) and checks that the rule named
by the folder fires with the expected title, observation, impact, subjects
and savings (expected.json): a change of the rule's question, numbers or
wording fails here.
"""
import json
import os
import subprocess
import sys


def main():
    profdb, folder = sys.argv[1:3]
    rule = os.path.basename(os.path.normpath(folder))
    args = []
    if os.path.exists(os.path.join(folder, "args")):
        args = open(os.path.join(folder, "args")).read().split()
    with open(os.path.join(folder, "expected.json")) as f:
        want = json.load(f)
    inputs = sorted(os.path.join(folder, n) for n in os.listdir(folder)
                    if n.startswith("input") and n.endswith((".json", ".json.gz")))
    r = subprocess.run([profdb, "report", *inputs, *args,
                        "--section", "findings", "--json", "-"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {rule}: exit {r.returncode}: {r.stderr.strip()[:400]}")
        return 1
    found = [x for x in json.loads(r.stdout)["findings"] if x["rule"] == rule]
    if not found:
        print(f"FAIL {rule}: the rule does not fire")
        return 1
    bad = [k for k in want if found[0].get(k) != want[k]]
    for k in bad:
        print(f"FAIL {rule}: {k} is {found[0].get(k)!r}, expected {want[k]!r}")
    if not bad:
        print(f"ok {rule}: {found[0]['title']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
