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
