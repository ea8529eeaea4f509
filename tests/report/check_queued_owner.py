#!/usr/bin/env python3
"""Who owns GPU idle time that begins with GPU work already queued (issue
44, item 3: "idle with queued work goes to an owner that says what the GPU
waited on"), on fixtures written here:

    check_queued_owner.py PROFDB CASE PUBLIC_DIR WORK_DIR

CASE is queued_idle_owner: three traces of 6 steps of 10 ms whose second
kernel is launched early and starts late, the GPU idle meanwhile:
  event   a cudaStreamWaitEvent on the launching thread before the launch
  graph   the kernel is a node of a cudaGraphLaunch
  unseen  nothing recorded explains the wait
Each must give the queued_idle finding, saving 0, owning exactly the queued
idle time re-derived here from the raw events (check_idle_owner's
queued_idle), with that owner; and no host-side finding may promise it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import run_case  # noqa: E402
from check_idle_owner import T, US, queued_idle, report, saving, span, x  # noqa: E402

HOST_RULES = ("gpu_idle", "launch_bound", "explicit_sync", "synchronization", "allocator_calls")


def owner_trace(owner):
    """6 steps: a 500 us kernel on stream 7 at +120 us; a 1 ms kernel on
    stream 8 launched at +200 us that starts at +8 ms."""
    t = T()
    for i in range(6):
        s = 1000 + i * 10000
        x(t.ev, "user_annotation", f"ProfilerStep#{i + 1}", s, 10000)
        t.kernel(s + 120, 500)
        t.corr += 1
        if owner == "event":
            x(t.ev, "cuda_runtime", "cudaStreamWaitEvent", s + 180, 3)
        launch = "cudaGraphLaunch" if owner == "graph" else "cudaLaunchKernel"
        x(t.ev, "cuda_runtime", launch, s + 200, 5, correlation=t.corr)
        x(t.ev, "kernel", "void waits_kernel()", s + 8000, 1000, tid=8, pid=0, device=0,
          stream=8, correlation=t.corr)
    return t.doc()


def case_queued_idle_owner(profdb, public_dir, work):
    problems = []
    for owner in ("event", "graph", "unseen"):
        doc = owner_trace(owner)
        xs = doc["traceEvents"]
        steps = [span(e) for e in xs if e["name"].startswith("ProfilerStep#")][1:]
        queued = sum(queued_idle(xs, st)[1] for st in steps) / len(steps) * US
        if queued <= 0:
            problems.append(f"{owner}: the fixture has no queued idle")
            continue
        f = report(profdb, work, "queued_owner_" + owner, doc)
        q = f.get("queued_idle")
        if not q:
            problems.append(f"{owner}: no queued_idle finding (rules: {sorted(f)})")
            continue
        if q["expected_saving_ns"] != 0 or q["expected_saving_pct"] != 0:
            problems.append(f"{owner}: queued_idle promises {q['expected_saving_ns']} ns")
        figures = q["evidence"]["figures"]
        if abs(figures["queued_idle_ns"] - queued) > 1:
            problems.append(f"{owner}: queued_idle_ns {figures['queued_idle_ns']}, want {queued}")
        got = figures.get(owner + "_ns")
        if got is None or abs(got - queued) > 1:
            problems.append(f"{owner}: {owner}_ns {got}, want all {queued} ns of queued idle")
        if [s["owner"] for s in q["subjects"]] != [owner] * len(q["subjects"]):
            problems.append(f"{owner}: subjects' owners {q['subjects']}")
        if not any(s["operation"] == "void waits_kernel()" for s in q["subjects"]):
            problems.append(f"{owner}: the waiting kernel is not a subject: {q['subjects']}")
        host = sum(saving(f, r) for r in HOST_RULES)
        step_idle = sum(queued_idle(xs, st)[0] for st in steps) / len(steps) * US
        if host > step_idle + 1:
            problems.append(f"{owner}: host-side findings promise {host} > {step_idle} ns "
                            "(the idle with nothing queued)")
    return problems


if __name__ == "__main__":
    sys.exit(run_case(globals()))
