"""Shared plumbing of the round-4 hostile-input cases (issue 40).

Each tests/reliability/hostile4_GROUP.py defines case_NAME() functions (one
per defect, named after it: c1_..., c3_..., l2_...) and ends with
`main(globals())`.  A case builds its hostile input here, from the shapes of
the reproducers in the shared repro folder (never copied from it), and
asserts what docs/reliability.md promises: exit code, message, which files
exist afterwards.  Exit 77 (skipped) only where the machine cannot run a
case.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TRACE_A = os.path.join(ROOT, "docs", "examples", "generated_gpu_run", "rank0.pt.trace.json")
TRACE_B = os.path.join(ROOT, "docs", "examples", "generated_gpu_run", "rank1.pt.trace.json")


class Ctx:
    profdb = None  # the binary under test
    work = None  # this case's own folder, empty at the start
    failures = []


ctx = Ctx()


def check(ok, msg):
    if not ok:
        ctx.failures.append(msg)
        print("FAIL", msg)
    return ok


def run(*args, **kw):
    """profdb with args; stdout and stderr captured (bytes)."""
    kw.setdefault("capture_output", True)
    kw.setdefault("timeout", 300)
    return subprocess.run([ctx.profdb, *args], **kw)


def path(*names):
    return os.path.join(ctx.work, *names)


def sanitizer_report(stderr):
    """True when an ASan/UBSan report is in stderr (bytes or str)."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    return "AddressSanitizer" in text or "runtime error:" in text or "LeakSanitizer" in text


def main(cases):
    ctx.profdb = os.path.abspath(sys.argv[1])
    case, ctx.work = sys.argv[2], os.path.abspath(sys.argv[3])
    shutil.rmtree(ctx.work, ignore_errors=True)
    os.makedirs(ctx.work)
    cases["case_" + case]()
    if ctx.failures:
        print("%d failure(s)" % len(ctx.failures))
        sys.exit(1)
    print("ok")
