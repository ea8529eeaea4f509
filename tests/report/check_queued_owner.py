#!/usr/bin/env python3
"""Who owns GPU idle time that begins with GPU work already queued (issue
44, item 3: "idle with queued work goes to an owner that says what the GPU
waited on"), on fixtures written here:

    check_queued_owner.py PROFDB CASE PUBLIC_DIR WORK_DIR

CASE is queued_idle_owner: four traces of 6 steps of 10 ms, three whose
second kernel is launched early and starts late, the GPU idle meanwhile:
  event   a cudaStreamWaitEvent on the launching thread before the launch
  graph   the kernel is a node of a cudaGraphLaunch
  unseen  nothing recorded explains the wait
and one (switch) with 200 kernels queued at once, 5 us apart on the GPU.
Each must give the queued_idle finding, saving 0, owning exactly the queued
idle time re-derived here from the raw events (check_idle_owner's
queued_idle), with that owner; and no host-side finding may promise it.

CASE explicit_sync_on_work_launched_before_trace: the trace opens in an
explicit cudaDeviceSynchronize that waits 5 ms for 200 kernels whose launch
calls the trace does not hold (launched before it began: a harness's
previous iteration), 1 us apart on the GPU; then six iterations of a 1 ms
GEMM launched after 100 us of host work.  The gaps between the queued
kernels are not the sync's: explicit_sync must not promise them; and the
backlog is no step's own work: with it the GPU looks busy over 90% of
the time, without it about half, so dominant_category's saving is bounded
by the critical path (issue 44's audits: TraceLens' Qwen1.5 trace, 500
such gaps promised to explicit_sync, its 13.5 ms backlog lifting the
busy share from 65% to 92%).
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import run_case  # noqa: E402
from check_idle_owner import T, US, queued_idle, report, saving, span, x  # noqa: E402

HOST_RULES = ("gpu_idle", "launch_bound", "explicit_sync", "synchronization", "allocator_calls")


def owner_trace(owner):
    """6 steps: a 500 us kernel on stream 7 at +120 us; a 1 ms kernel on
    stream 8 launched at +200 us that starts at +8 ms.  switch: instead,
    200 kernels of 20 us launched together at +100 us, each starting 5 us
    after the one before ends."""
    t = T()
    for i in range(6):
        s = 1000 + i * 10000
        x(t.ev, "user_annotation", f"ProfilerStep#{i + 1}", s, 10000)
        if owner == "switch":
            for j in range(200):
                t.corr += 1
                x(t.ev, "cuda_runtime", "cudaLaunchKernel", s + 100 + j * 0.01, 0.005,
                  correlation=t.corr)
                x(t.ev, "kernel", "void waits_kernel()", s + 400 + j * 25, 20, tid=7, pid=0,
                  device=0, stream=7, correlation=t.corr)
            continue
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
    for owner in ("switch", "event", "graph", "unseen"):
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
        if owner == "event":  # a dataset's summary keeps the stream-wait calls
            ds = os.path.join(work, "dataset_event")
            shutil.rmtree(ds, ignore_errors=True)
            src = os.path.join(work, "queued_owner_event.json")
            subprocess.run([profdb, "export", "-q", src, "-o", ds, "--run", "r"], check=True,
                           stdout=subprocess.DEVNULL)
            out = subprocess.run([profdb, "report", ds, "--section", "findings", "--json", "-"],
                                 check=True, capture_output=True, text=True).stdout
            d = {x["rule"]: x for x in json.loads(out)["findings"]}.get("queued_idle")
            if not d or d["evidence"]["figures"] != figures:
                problems.append(f"report DIR's queued_idle {d and d['evidence']['figures']} "
                                f"differs from the database's {figures}")
        host = sum(saving(f, r) for r in HOST_RULES)
        step_idle = sum(queued_idle(xs, st)[0] for st in steps) / len(steps) * US
        if host > step_idle + 1:
            problems.append(f"{owner}: host-side findings promise {host} > {step_idle} ns "
                            "(the idle with nothing queued)")
    return problems


def case_explicit_sync_on_work_launched_before_trace(profdb, public_dir, work):
    gemm = "ampere_sgemm_128x64_nn"
    t = T()
    x(t.ev, "cuda_runtime", "cudaDeviceSynchronize", 1000, 200 * 25 + 2)
    for j in range(200):  # no correlation, no launch call: launched before the trace
        x(t.ev, "kernel", gemm, 1000 + j * 25, 24, tid=7, pid=0, device=0, stream=7)
    ts = 1000 + 200 * 25 + 10
    for i in range(6):
        x(t.ev, "cpu_op", "aten::mul", ts, 100)
        t.kernel(ts + 120, 1000, name=gemm)
        ts += 1130
    f = report(profdb, work, "backlog", t.doc())
    problems = []
    if saving(f, "explicit_sync") > 2 * US:
        problems.append(f"explicit_sync promises {saving(f, 'explicit_sync')} ns: the 199 gaps "
                        f"of 1 us between kernels queued before the trace are not the sync's")
    q = f.get("queued_idle")
    if not q or q["evidence"]["figures"].get("switch_ns", 0) < 199 * 1 * US:
        problems.append(f"queued_idle does not own the 199 gaps of 1 us: "
                        f"{q and q['evidence']['figures']}")
    # GPU busy 92% with the backlog, 51% without: the GEMMs' saving is
    # bounded by the critical path (the backlog is no step's own work)
    d = f.get("dominant_category")
    if not d or d["evidence"]["figures"].get("critical_path_ns") is None:
        problems.append(f"dominant_category is not bounded by the critical path: "
                        f"{d and d['evidence']['figures']}")
    return problems


def zero_length_trace():
    """6 steps of 10 ms, each 200 kernels 40 us apart that the clock shows
    as lasting 0 us (a microsecond-resolution trace), each launched 11 us
    before it starts: the host feeds every one; nothing is queued in the
    gaps between them."""
    t = T()
    for i in range(6):
        s = 1000 + i * 10000
        x(t.ev, "user_annotation", f"ProfilerStep#{i + 1}", s, 10000)
        for j in range(200):
            t.corr += 1
            x(t.ev, "cuda_runtime", "cudaLaunchKernel", s + 89 + j * 40, 5, correlation=t.corr)
            x(t.ev, "kernel", "void tiny_kernel()", s + 100 + j * 40, 0, tid=7, pid=0,
              device=0, stream=7, correlation=t.corr)
    return t.doc()


def case_queued_idle_zero_length_kernels(profdb, public_dir, work):
    """A kernel that starts (and, under the clock's resolution, ends) when a
    gap begins is not queued in it: before, every gap after such a kernel
    counted as idle with work queued (PyTorch's public resnet50 trace: 5.64
    ms a step, all of it this), withheld from gpu_idle."""
    doc = zero_length_trace()
    xs = doc["traceEvents"]
    steps = [span(e) for e in xs if e["name"].startswith("ProfilerStep#")][1:]
    queued = sum(queued_idle(xs, st)[1] for st in steps)
    f = report(profdb, work, "zero_length", doc)
    problems = []
    if queued != 0:
        problems.append(f"the fixture has {queued} us of queued idle")
    if "queued_idle" in f:
        problems.append(f"queued_idle fires: {f['queued_idle']['title']}")
    # the host feeds every kernel: launch_bound may promise the launch
    # calls' CPU time (200 calls of 5 us a step), all of it GPU idle time
    lb = f.get("launch_bound")
    want = 200 * 5 * US
    if not lb or lb["expected_saving_ns"] != want:
        problems.append(f"launch_bound promises {lb and lb['expected_saving_ns']} ns, want the "
                        f"launch calls' {want} ns (rules: {sorted(f)})")
    return problems


if __name__ == "__main__":
    sys.exit(run_case(globals()))
