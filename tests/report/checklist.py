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
