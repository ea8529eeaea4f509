#!/usr/bin/env python3
"""The findings runner's checks and discovery, on a copy of the queries:

    check_runner.py PROFDB QUERIES WORK

1. a rule that reads a table its Reads: line does not declare is an error;
2. a Reads: name that no module builds and the database lacks is an error;
3. a new file in queries/findings/ is a new rule, with nothing else edited.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def report(profdb, queries, work):
    return subprocess.run([profdb, "report", os.path.join(HERE, "gpu_idle", "input.json"),
                           "--queries", queries, "--section", "findings", "--json", "-"],
                          capture_output=True, text=True, cwd=work)


def edited(src, work, name, rule, old, new):
    q = os.path.join(work, name)
    shutil.rmtree(q, ignore_errors=True)
    shutil.copytree(src, q)
    p = os.path.join(q, "findings", rule + ".sql")
    text = open(p).read() if os.path.exists(p) else ""
    assert old in text, (rule, old)
    with open(p, "w") as f:
        f.write(text.replace(old, new, 1))
    return q


def main():
    profdb, src, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    problems = []
    q = edited(src, work, "undeclared", "data_loading", "-- Reads: measure_claim, ",
               "-- Reads: ")
    r = report(profdb, q, work)
    if r.returncode == 0 or "reads 'measure_claim', which its Reads: line does not declare" \
            not in r.stderr:
        problems.append(f"undeclared read: exit {r.returncode}, {r.stderr.strip()[:300]}")
    q = edited(src, work, "unbuilt", "data_loading", "-- Reads: ", "-- Reads: measure_nothing, ")
    r = report(profdb, q, work)
    if r.returncode == 0 or "'measure_nothing' is built by no module" not in r.stderr:
        problems.append(f"unbuilt declaration: exit {r.returncode}, {r.stderr.strip()[:300]}")
    q = edited(src, work, "added", "need_steps", "", "")
    with open(os.path.join(q, "findings", "always.sql"), "w") as f:
        f.write("-- Rule: always\n-- Reads: measure_time\n"
                "SELECT 0.05 AS priority, 'always' AS rule, 'low' AS confidence, 'Always' AS title,"
                " 'o' AS observation, 'h' AS hypothesis, 'a' AS action, 'i' AS expected_impact,"
                " 'v' AS validation, 0 AS needs_artifact, 0 AS expected_saving_pct,"
                " NULL AS expected_saving_ns, NULL AS expected_saving_bytes, '[]' AS subjects,"
                " '{}' AS evidence, 0 AS cut_may_explain FROM measure_time;\n")
    r = report(profdb, q, work)
    if r.returncode != 0 or '"rule": "always"' not in r.stdout:
        problems.append(f"an added rule file: exit {r.returncode}, {r.stderr.strip()[:300]}")
    for p in problems:
        print("FAIL", p)
    print(f"3 runner checks, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
