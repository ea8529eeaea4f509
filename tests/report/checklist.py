"""A list of named checks for the report tests: each prints ok or FAIL, and
finish() exits 1 when any failed."""
import sys

failures = []


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def finish():
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


def run_case(cases):
    """main() of a test file of named cases: argv PROFDB CASE DATA WORK runs
    cases["case_" + CASE](PROFDB, DATA, WORK/CASE), which returns its
    problems (an AssertionError is one); prints them and returns the exit
    code, 1 when there were any."""
    import os
    profdb, case, data, work = sys.argv[1:5]
    work = os.path.join(work, case)
    os.makedirs(work, exist_ok=True)
    try:
        problems = cases["case_" + case](profdb, data, work)
    except AssertionError as e:
        problems = [str(e)]
    for p in problems:
        print("FAIL", p)
    print(f"{case}: {len(problems)} problem(s)")
    return 1 if problems else 0


def findings_of(profdb, work, name, inputs, ok=(0,)):
    """profdb report INPUTS --section findings, its JSON parsed (written to
    WORK/NAME.out.json); an exit code not in ok ends the test with FAIL."""
    import json
    import os
    import subprocess
    out = os.path.join(work, name + ".out.json")
    r = subprocess.run([profdb, "report", *inputs, "--json", out, "--section", "findings"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode not in ok:
        raise SystemExit(f"FAIL {name}: profdb report exit {r.returncode}: {r.stderr[:300]}")
    with open(out) as f:
        return json.load(f)


def findings_of_doc(profdb, work, name, doc):
    """findings_of() of a trace document, written as WORK/NAME.json."""
    import json
    import os
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return findings_of(profdb, work, name, [path])


def finding_text(f):
    """What a finding says, its texts joined (to search for advice)."""
    return " ".join(f[k] for k in ("title", "observation", "hypothesis", "action",
                                   "expected_impact"))


def finding(doc, rule):
    """The finding of that rule in a report's JSON, or None."""
    f = [x for x in doc["findings"] if x["rule"] == rule]
    return f[0] if f else None


def run_checks(checks, *args):
    """main()'s loop of a test file with a CHECKS list: each check(*args,
    problems) appends what it finds wrong; prints them and returns the exit
    code, 1 when there were any."""
    problems = []
    for check in checks:
        check(*args, problems)
    for p in problems:
        print("FAIL", p)
    print(f"{len(checks)} checks, {len(problems)} failed")
    return 1 if problems else 0


def merge_intervals(iv):
    """The union of intervals (a, b): disjoint [a, b] lists in order."""
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out
