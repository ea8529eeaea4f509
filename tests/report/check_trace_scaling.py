#!/usr/bin/env python3
"""The report's cost grows linearly with a trace's events.

    check_trace_scaling.py PROFDB WORK_DIR

Two real CUDA traces of tests/cuda are tiled 4 times (bench/scale_trace.py
--copies: each copy shifted past the last, ids offset, steps renumbered):
cudnn_cold has no ProfilerStep (its one span, the whole trace, grows 4x)
and host_bound has 6 steps (4x as many spans).  Each is loaded and
reported (every step, warm-up included) once and 4 times, and the
report's SQL work is compared in SQLite's virtual-machine steps
(PROFDB_TIMING's count: unlike seconds it does not depend on the
machine's load).  4x the events may cost at most 4.5x the steps (4x, and
an eighth for what grows with spans or names).  A statement whose work
grows with the square of a span's events fails here on small inputs, in
seconds (issue 44: each GPU idle gap joined with every host interval of
its span, 259 M SQL steps for cudnn_cold tiled 16 times, now linear).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCALE = os.path.join(ROOT, "bench", "scale_trace.py")
TRACES = ("cudnn_cold", "host_bound")
COPIES, LIMIT = 4, 4.5


def report_steps(profdb, trace, work, name):
    db = os.path.join(work, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([profdb, "load", "-q", trace, "-o", db], check=True)
    # (--include-warmup: every step analysed, so 4 copies are 4x the steps)
    run = subprocess.run([profdb, "report", db, "-q", "--include-warmup",
                          "--json", os.path.join(work, name + ".json")],
                         env=dict(os.environ, PROFDB_TIMING="1"), capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL report {name}: exit {run.returncode}: {run.stderr[-400:]}")
    steps = [int(line.split()[-2]) for line in run.stderr.splitlines()
             if line.startswith("profdb: timing: sql ")]
    if len(steps) != 1:
        sys.exit(f"FAIL report {name}: no SQL step count in PROFDB_TIMING's output")
    return steps[0]


def main():
    profdb, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    failed = 0
    for name in TRACES:
        src = os.path.join(ROOT, "tests", "cuda", name + ".pt.trace.json.gz")
        counts = []
        for k in (1, COPIES):
            out = os.path.join(work, f"{name}_x{k}.json")
            subprocess.run([sys.executable, SCALE, src, out, "1", "--copies", str(k)], check=True,
                           stdout=subprocess.DEVNULL)
            counts.append(report_steps(profdb, out, work, f"{name}_x{k}"))
        ratio = counts[1] / counts[0]
        ok = counts[1] <= LIMIT * counts[0]
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {name}: report SQL steps x1 {counts[0]}, x{COPIES} "
              f"{counts[1]}: x{ratio:.2f} (at most x{LIMIT})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
