#!/usr/bin/env python3
"""Communication measured on the analysed spans' timeline (issue 29), one
case per defect:

    check_comm_timeline.py PROFDB CASE DATA WORK_DIR

The `communication` section and the `exposed_communication` finding used
to measure the collective kernels the analysed steps LAUNCHED, unclipped,
while the finding divides by the steps' spans: when the GPU runs behind
the CPU a step's collectives run before its span, and the collective time
per rank step can exceed the step (TraceLens resnet_act_checkpoint: 20.26
ms of collectives in an 18.77 ms step).  Now each collective kernel's
waiting and transfer parts, and the compute kernels, are clipped to the
analysed spans (as the step time is) before their unions.

- gpu_lags_cpu: three 10 ms steps (the first is warm-up); each launches a
  6 ms all-reduce that runs at once on its own stream and a 7 ms compute
  kernel that runs after it and past the step's CPU range, so each span
  starts where the previous one's GPU work ends and the step's all-reduce
  starts before its span (step 2's by 3.5 ms).
- concurrent_streams: the same with each all-reduce split into two that
  overlap on two streams: their time is counted once (the same figures as
  gpu_lags_cpu), not summed.
- wait_clipped_to_span: two ranks of one job with the gpu_lags_cpu
  timeline; rank 1 reaches each all-reduce 1 ms late, so rank 0 waits
  1 ms inside its kernel: in step 2 the waiting lies wholly before the
  span (none counted), in step 3 wholly inside it.

- gradient_allreduce_behind_backward_only (issue 44): a DDP-like step,
  forward compute, then a backward pass (autograd-engine event) whose
  compute ends before its gradient all-reduce ('Collective name'
  allreduce, NCCL's generic kernel), then the optimizer step.  The
  exposed all-reduce can hide only behind the backward pass's compute
  (the optimizer waits for it, the next forward for the optimizer): the
  finding promises at most the backward compute not beside transfer,
  not all compute (which would promise the whole exposed transfer).

Every expected figure is derived here from the fixture's events by this
file's own code: the spans by TensorBoard's rule (the CPU range widened to
the GPU work the step launched, never before the previous span's end),
each kernel clipped to them, the waiting split at the last peer's start,
then interval unions; asserted exactly (integer ns), with comm_ns at most
the spans' time per trace and device.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_report import union  # noqa: E402  (time covered by intervals)
from checklist import run_case  # noqa: E402

NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
GEMM = "ampere_sgemm_128x64_tn"
STEP, PID, TID = 10000, 7000, 1  # us


def trace(rank, world, streams, late_us=0):
    """Three steps of STEP us at 1000 + i * STEP: per step an all-reduce
    on streams (a list of (start, end) offsets and a stream each), started
    late_us later on this rank but ending at the same time, and a compute
    kernel at +7000 for 7000 us (past the CPU range: the GPU lags)."""
    ev, corr = [], 0

    def kernel(name, launch, ts, dur, stream, **extra):
        nonlocal corr
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": PID,
                   "tid": TID, "ts": launch, "dur": 5, "args": {"correlation": corr}})
        args = {"device": rank, "stream": stream, "correlation": corr, **extra}
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": rank, "tid": stream,
                   "ts": ts, "dur": dur, "args": args})

    for i in range(3):
        s = 1000 + i * STEP
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}",
                   "pid": PID, "tid": TID, "ts": s, "dur": STEP - 1})
        for j, (a, b, stream) in enumerate(streams):
            kernel(NCCL, s + 200 + j, s + a + late_us, b - a - late_us, stream,
                   **{"Collective name": f"allreduce{j}", "Process Group Name": "0"})
        kernel(GEMM, s + 100, s + 7000, 7000, 7)
    doc = {"schemaVersion": 1, "traceEvents": ev}
    if world:
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world}
    return doc


# ---- the independent model -------------------------------------------------

def both(xs, ys):
    """Time covered by the union of xs and by the union of ys."""
    return union(xs) + union(ys) - union(list(xs) + list(ys))


def clip(ivs, spans):
    return [(max(a, s), min(b, e)) for a, b in ivs for s, e in spans if a < e and b > s]


def model(doc):
    """Spans (ns) of the analysed steps and the kernels (ns), each with the
    step that launched it."""
    ev = doc["traceEvents"]
    steps = sorted((e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000) for e in ev
                   if e["cat"] == "user_annotation")
    launch = {e["args"]["correlation"]: e["ts"] * 1000 for e in ev if e["cat"] == "cuda_runtime"}
    ks = []
    for e in ev:
        if e["cat"] == "kernel":
            t = launch[e["args"]["correlation"]]
            step = [i for i, (a, b) in enumerate(steps) if a <= t < b][0]
            ks.append(dict(e, a=e["ts"] * 1000, b=(e["ts"] + e["dur"]) * 1000, step=step))
    spans, prev = [], None
    for i, (a, b) in enumerate(steps):
        mine = [k for k in ks if k["step"] == i]
        lo = min([a] + [k["a"] for k in mine])
        hi = max([b] + [k["b"] for k in mine])
        lo = lo if prev is None else max(lo, prev)
        spans.append((lo, hi))
        prev = hi
    return spans[1:], ks  # the first step is warm-up


def expected(doc, wait_of=lambda k: 0):
    """The communication row of this trace, and the finding's per rank
    step figures, over the analysed spans."""
    spans, ks = model(doc)
    comm = [k for k in ks if k["name"] == NCCL]
    wait = clip([(k["a"], k["a"] + wait_of(k)) for k in comm if wait_of(k) > 0], spans)
    transfer = clip([(k["a"] + wait_of(k), k["b"]) for k in comm if k["b"] > k["a"] + wait_of(k)],
                    spans)
    compute = clip([(k["a"], k["b"]) for k in ks if k["name"] != NCCL], spans)
    ov = both(transfer, compute)
    row = {"comm_ns": union(clip([(k["a"], k["b"]) for k in comm], spans)),
           "wait_ns": union(wait), "transfer_ns": union(transfer),
           "compute_ns": union(compute), "overlapped_ns": ov,
           "exposed_comm_ns": union(transfer) - ov}
    window = sum(e - s for s, e in spans)
    launched = union([(k["a"], k["b"]) for k in comm if k["step"] >= 1])
    return row, spans, window, launched


# ---- running profdb ----------------------------------------------------------

def report(profdb, work, name, docs):
    import subprocess
    paths = []
    for r, doc in enumerate(docs):
        paths.append(os.path.join(work, f"{name}.rank{r}.json"))
        with open(paths[-1], "w") as f:
            json.dump(doc, f)
    out = os.path.join(work, name + ".out.json")
    r = subprocess.run([profdb, "report", *paths, "--json", out, "--section", "findings",
                        "--section", "communication", "--section", "step_time"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0, f"{name}: profdb report exit {r.returncode}: {r.stderr[:300]}"
    with open(out) as f:
        return json.load(f)


def rows(doc, section):
    return [s for s in doc["sections"] if s["id"] == section][0]["rows"]


def compare(name, got, want, problems):
    for key, v in want.items():
        if got.get(key) != v:
            problems.append(f"{name}: {key} {got.get(key)}, want {v}")


def single_rank(profdb, work, name, streams):
    # a one-rank job: no peer is missing, so the whole unmatched time counts
    # as transfer (with peers not loaded and no sizes the finding would
    # promise nothing: check_bounds_evidence.py comm_overlap_beyond_compute)
    doc = trace(0, 1, streams)
    want, spans, window, launched = expected(doc)
    out = report(profdb, work, name, [doc])
    problems = []
    comm = rows(out, "communication")
    if len(comm) != 1:
        return [f"{name}: communication rows {comm}"]
    # the spans this file derives are profdb's: the same wall time
    walls = [r["wall_ns"] for r in rows(out, "step_time")]
    if sorted(walls) != sorted(e - s for s, e in spans):
        problems.append(f"{name}: step walls {walls}, want {[e - s for s, e in spans]}")
    compare(name, comm[0], dict(want, unmatched_ns=want["transfer_ns"]), problems)
    if not comm[0]["comm_ns"] <= window or launched <= want["comm_ns"]:
        problems.append(f"{name}: comm {comm[0]['comm_ns']} of window {window}; launched "
                        f"{launched} (the fixture must run collectives before the spans)")
    # the finding, per rank step: the same figures over the 2 analysed steps
    f = [x for x in out["findings"] if x["rule"] == "exposed_communication"]
    if not f:
        return problems + [f"{name}: no exposed_communication finding"]
    fig, n = f[0]["evidence"]["figures"], len(spans)
    hide = min(want["exposed_comm_ns"], want["compute_ns"] - want["overlapped_ns"]) / n
    for key, v in (("comm_ns", want["comm_ns"] / n), ("exposed_ns", want["exposed_comm_ns"] / n),
                   ("hideable_ns", hide)):
        if abs(fig.get(key, -1) - v) > 0.5:
            problems.append(f"{name}: finding {key} {fig.get(key)}, want {v}")
    if abs(f[0]["expected_saving_ns"] - hide) > 0.5 or not fig["comm_ns"] <= window / n:
        problems.append(f"{name}: saving {f[0]['expected_saving_ns']}, want {hide}; comm "
                        f"{fig['comm_ns']} per rank step of {window / n}")
    return problems


def case_gpu_lags_cpu(profdb, data, work):
    # step 2: all-reduce 11.5-17.5 ms, span 15-25 ms: 2.5 ms counted (was 6)
    return single_rank(profdb, work, "gpu_lags_cpu", [(500, 6500, 20)])


def case_concurrent_streams(profdb, data, work):
    # two all-reduces at once on streams 20 and 21 covering 0.5-6.5 ms of
    # each step: 8.5 ms in the spans once, 11 ms if summed
    problems = single_rank(profdb, work, "concurrent_streams", [(500, 4500, 20), (2500, 6500, 21)])
    one = trace(0, 1, [(500, 6500, 20)])
    two = trace(0, 1, [(500, 4500, 20), (2500, 6500, 21)])
    if expected(one)[0] != expected(two)[0]:
        problems.append("concurrent_streams: the model counts the overlap twice")
    return problems


def case_wait_clipped_to_span(profdb, data, work):
    docs = [trace(0, 2, [(500, 6500, 20)]), trace(1, 2, [(500, 6500, 20)], late_us=1000)]
    # rank 0 waits from its start to rank 1's start (1 ms) in each instance
    starts = {}
    for r, d in enumerate(docs):
        for e in d["traceEvents"]:
            if e.get("cat") == "kernel" and e["name"] == NCCL:
                starts.setdefault(e["ts"] // STEP, {})[r] = e["ts"] * 1000
    out = report(profdb, work, "wait_clipped_to_span", docs)
    comm = {r["rank"]: r for r in rows(out, "communication")}
    problems = []
    for r, d in enumerate(docs):
        def wait_of(k, r=r):
            inst = starts[k["ts"] // STEP]
            return min(max(inst.values()) - inst[r], k["b"] - k["a"])
        want, spans, window, _ = expected(d, wait_of)
        compare(f"wait_clipped_to_span rank {r}", comm.get(r, {}), dict(want, unmatched_ns=0),
                problems)
        if not comm.get(r, {}).get("comm_ns", window + 1) <= window:
            problems.append(f"wait_clipped_to_span rank {r}: comm above the window {window}")
    # rank 0: step 2's waiting (11.5-12.5 ms) is before its span (15 ms);
    # step 3's (21.5-22.5 ms) inside span 2: 1 ms, where 2 ms were counted
    if comm.get(0, {}).get("wait_ns") != 1000 * 1000:
        problems.append(f"wait_clipped_to_span: rank 0 wait {comm.get(0, {}).get('wait_ns')}, "
                        "want 1 ms")
    return problems


def ddp_trace():
    """Three steps of STEP us (the first warm-up), each: forward compute
    F, a backward pass launching compute B, then a gradient all-reduce
    past B's end, then an optimizer range launching a short kernel O once
    the all-reduce is done.  Times in us from the step start s."""
    ev, corr = [], 0
    generic = "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"

    def kernel(name, launch, ts, dur, stream, **extra):
        nonlocal corr
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": PID,
                   "tid": TID, "ts": launch, "dur": 5, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts,
                   "dur": dur, "args": {"device": 0, "stream": stream, "correlation": corr,
                                        **extra}})

    for i in range(3):
        s = 1000 + i * STEP
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}",
                   "pid": PID, "tid": TID, "ts": s, "dur": STEP - 1})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": PID, "tid": TID,
                   "ts": s + 50, "dur": 3800})
        kernel(GEMM, s + 100, s + 200, 3000, 7)  # F
        ev.append({"ph": "X", "cat": "cpu_op",
                   "name": "autograd::engine::evaluate_function: MmBackward0",
                   "pid": PID, "tid": TID, "ts": s + 4000, "dur": 4000})
        kernel(GEMM, s + 4100, s + 4200, 2000, 7)  # B
        kernel(generic, s + 6250, s + 6300, 3500, 20,
               **{"Collective name": "allreduce", "Process Group Name": "0"})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step",
                   "pid": PID, "tid": TID, "ts": s + 8500, "dur": 1000})
        kernel(GEMM, s + 8600, s + 9850, 100, 7)  # O
    return {"schemaVersion": 1, "traceEvents": ev,
            "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}}


def case_gradient_allreduce_behind_backward_only(profdb, data, work):
    doc = ddp_trace()
    ev = doc["traceEvents"]
    steps = sorted((e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000) for e in ev
                   if e["name"].startswith("ProfilerStep#"))[1:]
    bwd = sorted(e["ts"] * 1000 for e in ev if e["name"].startswith("autograd::engine"))
    opt = sorted(e["ts"] * 1000 for e in ev if e["name"].startswith("Optimizer.step#"))
    # each step's backward pass: its first backward event to the next optimizer start
    windows = [(b, min(o for o in opt if o >= b)) for b in bwd]
    launch = {e["args"]["correlation"]: e["ts"] * 1000 for e in ev if e["cat"] == "cuda_runtime"}
    ks = [(e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000, e["name"] != GEMM,
           any(a <= launch[e["args"]["correlation"]] < b for a, b in windows))
          for e in ev if e["cat"] == "kernel"]
    transfer = clip([(a, b) for a, b, comm, _ in ks if comm], steps)
    compute = clip([(a, b) for a, b, comm, _ in ks if not comm], steps)
    backward = clip([(a, b) for a, b, comm, bw in ks if not comm and bw], steps)
    n = len(steps)
    exposed = (union(transfer) - both(transfer, compute)) / n  # all of it all-reduce
    free = (union(compute) - both(transfer, compute)) / n
    backward_free = (union(backward) - both(backward, transfer)) / n
    want = min(exposed, backward_free)
    out = report(profdb, work, "gradient_allreduce_behind_backward_only", [doc])
    problems = []
    f = [x for x in out["findings"] if x["rule"] == "exposed_communication"]
    if not f:
        return [f"no exposed_communication finding (want a saving of {want})"]
    fig = f[0]["evidence"]["figures"]
    for key, v in (("exposed_ns", exposed), ("allreduce_exposed_ns", exposed),
                   ("backward_free_ns", backward_free), ("hideable_ns", want)):
        if abs(fig.get(key, -1) - v) > 0.5:
            problems.append(f"finding {key} {fig.get(key)}, want {v}")
    if abs(f[0]["expected_saving_ns"] - want) > 0.5:
        problems.append(f"saving {f[0]['expected_saving_ns']}, want {want}")
    # the fixture is the pattern: all compute would hide the whole exposed
    # transfer, the backward pass's only part of it
    if not (min(exposed, free) == exposed and want < exposed):
        problems.append(f"fixture: exposed {exposed}, free {free}, backward {backward_free}")
    if "backward pass" not in f[0]["observation"]:
        problems.append("the observation does not say only the backward pass can hide it")
    return problems


if __name__ == "__main__":
    sys.exit(run_case(globals()))
