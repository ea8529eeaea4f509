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
  allreduce, NCCL's generic kernel, launched inside the backward pass),
  then the optimizer step.  The exposed all-reduce can hide only behind
  the backward pass's compute (the optimizer waits for it, the next
  forward for the optimizer): the finding promises at most the backward
  compute not beside transfer, not all compute (which would promise the
  whole exposed transfer); the same with --scope trace.
- generic_kernel_advice: the same step with an all-gather (NCCL's generic
  kernel, 'Collective name' allgather): FSDP's advice, any compute.
- gradient_allreduce_no_steps: three such iterations without
  ProfilerSteps (every backward pass counts) and a tensor-parallel
  all-reduce launched in each forward (no gradient sync: any compute
  may hide it).

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

def report(profdb, work, name, docs, scope="steps"):
    import subprocess
    paths = []
    for r, doc in enumerate(docs):
        paths.append(os.path.join(work, f"{name}.rank{r}.json"))
        with open(paths[-1], "w") as f:
            json.dump(doc, f)
    out = os.path.join(work, name + ".out.json")
    r = subprocess.run([profdb, "report", *paths, "--json", out, "--scope", scope,
                        "--section", "findings",
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
    # (no peer loaded: the wait is unknown, empty rather than 0)
    compare(name, comm[0], dict(want, unmatched_ns=want["transfer_ns"], wait_ns=None), problems)
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


def launcher(ev):
    """kernel(name, launch, ts, dur, stream, **args): a kernel on device 0
    and the cudaLaunchKernel call at launch that launched it, appended to
    ev (correlation ids from 1)."""
    corr = 0

    def kernel(name, launch, ts, dur, stream, **extra):
        nonlocal corr
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": PID,
                   "tid": TID, "ts": launch, "dur": 5, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts,
                   "dur": dur, "args": {"device": 0, "stream": stream, "correlation": corr,
                                        **extra}})
    return kernel


def ddp_trace(steps=True, forward_allreduce=False, coll="allreduce"):
    """Three iterations of STEP us, each: forward compute F (and, with
    forward_allreduce, a tensor-parallel all-reduce launched in the
    forward, exposed), a backward pass (an autograd-engine event)
    launching compute B and then a gradient all-reduce running past B's
    end, then an optimizer range launching a short kernel O once the
    all-reduce is done.  With steps, each iteration is a ProfilerStep (the
    first one warm-up); without, the trace is analysed whole.  Times in us
    from the iteration's start s."""
    ev = []
    kernel = launcher(ev)
    generic = "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"
    for i in range(3):
        s = 1000 + i * STEP
        if steps:
            ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}",
                       "pid": PID, "tid": TID, "ts": s, "dur": STEP - 1})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": PID, "tid": TID,
                   "ts": s + 50, "dur": 3800})
        kernel(GEMM, s + 100, s + 200, 3000, 7)  # F
        if forward_allreduce:
            kernel(generic, s + 3300, s + 3300, 600, 20,
                   **{"Collective name": "allreduce", "Process Group Name": "1"})
        ev.append({"ph": "X", "cat": "cpu_op",
                   "name": "autograd::engine::evaluate_function: MmBackward0",
                   "pid": PID, "tid": TID, "ts": s + 4000, "dur": 4000})
        kernel(GEMM, s + 4100, s + 4200, 2000, 7)  # B
        kernel(generic, s + 6250, s + 6300, 3500, 20,
               **{"Collective name": coll, "Process Group Name": "0"})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step",
                   "pid": PID, "tid": TID, "ts": s + 8500, "dur": 1000})
        kernel(GEMM, s + 8600, s + 9850, 100, 7)  # O
    return {"schemaVersion": 1, "traceEvents": ev,
            "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}}


def ddp_expected(doc, scope):
    """The finding's figures per rank step, from the events: the spans
    (the analysed steps' CPU ranges, which hold their GPU work; the trace
    from its first to its last event without steps or with --scope
    trace), the backward passes
    (the autograd-engine events), the kernels launched inside them, the
    all-reduces among those (gradient syncs: hidden only by backward
    compute) and the rest."""
    ev = doc["traceEvents"]
    steps = sorted((e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000) for e in ev
                   if e["name"].startswith("ProfilerStep#"))[1:]
    spans = (scope == "steps" and steps) or [(min(e["ts"] for e in ev) * 1000,
                       max(e["ts"] + e.get("dur", 0) for e in ev) * 1000)]
    backward = [(e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000) for e in ev
                if e["name"].startswith("autograd::engine")]
    launch = {e["args"]["correlation"]: e["ts"] * 1000 for e in ev if e["cat"] == "cuda_runtime"}
    ks = [(e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000, e["name"] != GEMM,
           any(a <= launch[e["args"]["correlation"]] < b for a, b in backward))
          for e in ev if e["cat"] == "kernel"]
    transfer = clip([(a, b) for a, b, comm, _ in ks if comm], spans)
    coll = {(e["ts"] * 1000): e["args"].get("Collective name") for e in ev if e["cat"] == "kernel"}
    gradient = clip([(a, b) for a, b, comm, bw in ks
                     if comm and bw and coll[a] == "allreduce"], spans)
    compute = clip([(a, b) for a, b, comm, _ in ks if not comm], spans)
    bcompute = clip([(a, b) for a, b, comm, bw in ks if not comm and bw], spans)
    n = len(spans)
    exposed = union(transfer) - both(transfer, compute)
    grad_exposed = union(gradient) - both(gradient, compute)
    free = union(compute) - both(transfer, compute)
    backward_free = union(bcompute) - both(bcompute, transfer)
    hide_grad = min(grad_exposed, backward_free)
    hide = hide_grad + min(exposed - grad_exposed, max(free - hide_grad, 0))
    return {"exposed_ns": exposed / n, "allreduce_exposed_ns": grad_exposed / n,
            "backward_free_ns": backward_free / n, "hideable_ns": hide / n,
            "unbounded_ns": min(exposed, free) / n}


def ddp_case(profdb, work, name, doc, scope="steps"):
    want = ddp_expected(doc, scope)
    out = report(profdb, work, name, [doc], scope)
    f = [x for x in out["findings"] if x["rule"] == "exposed_communication"]
    if not f:
        return [f"{name}: no exposed_communication finding (want a saving of "
                f"{want['hideable_ns']})"], None
    fig, problems = f[0]["evidence"]["figures"], []
    for key in ("exposed_ns", "allreduce_exposed_ns", "backward_free_ns", "hideable_ns"):
        if abs(fig.get(key, -1) - want[key]) > 0.5:
            problems.append(f"{name}: finding {key} {fig.get(key)}, want {want[key]}")
    if abs(f[0]["expected_saving_ns"] - want["hideable_ns"]) > 0.5:
        problems.append(f"{name}: saving {f[0]['expected_saving_ns']}, want {want['hideable_ns']}")
    # the fixture is the pattern: all compute would hide more of the
    # exposed transfer than the backward pass's can
    if want["allreduce_exposed_ns"] and not want["hideable_ns"] < want["unbounded_ns"]:
        problems.append(f"{name}: fixture: {want}")
    if want["allreduce_exposed_ns"] and "backward pass" not in f[0]["observation"]:
        problems.append(f"{name}: the observation does not say only the backward pass can hide it")
    return problems, f[0]


def case_gradient_allreduce_behind_backward_only(profdb, data, work):
    # steps, and the same trace analysed whole (--scope trace: every
    # iteration's backward pass, not only the first)
    doc = ddp_trace()
    return (ddp_case(profdb, work, "gradient_allreduce_behind_backward_only", doc)[0]
            + ddp_case(profdb, work, "gradient_allreduce_scope_trace", doc, "trace")[0])


def case_gradient_allreduce_no_steps(profdb, data, work):
    # no ProfilerSteps: three iterations in one span, each backward pass
    # counts; an all-reduce launched in the forward (tensor parallel) is no
    # gradient sync: any compute may hide it
    return ddp_case(profdb, work, "gradient_allreduce_no_steps",
                    ddp_trace(steps=False, forward_allreduce=True))[0]


def case_generic_kernel_advice(profdb, data, work):
    # NCCL's generic kernels (ncclDevKernel_Generic) do not name their
    # collective: the advice follows 'Collective name' (an all-gather: FSDP's
    # prefetch), not the kernel name (which would read as an all-reduce);
    # an all-gather in the backward pass is no gradient all-reduce: any
    # compute may hide it
    problems, f = ddp_case(profdb, work, "generic_kernel_advice", ddp_trace(coll="allgather"))
    if f and ("FSDP" not in f["action"] or "all-gathers" not in f["hypothesis"]):
        problems.append(f"generic_kernel_advice: {f['hypothesis']} / {f['action']}")
    return problems


def case_activation_collectives_promised_to_overlap(profdb, data, work):
    # a forward-only trace (inference: operators recorded, no backward pass,
    # no FSDP): its collectives carry activations (tensor parallelism), each
    # feeding the next layer, so no setting overlaps them (issue 44's audit
    # of unseen traces: a 2-rank tensor-parallel Llama's 503 ms of
    # all-gathers were told to use FSDP prefetch, 23 ms promised)
    ev = []
    kernel = launcher(ev)
    gather = "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
    for i in range(3):
        s = 1000 + i * STEP
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}",
                   "pid": PID, "tid": TID, "ts": s, "dur": STEP - 1})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": PID, "tid": TID,
                   "ts": s + 50, "dur": 200})
        kernel(GEMM, s + 100, s + 200, 2000, 7)
        ev.append({"ph": "X", "cat": "cpu_op", "name": "c10d::allgather_", "pid": PID,
                   "tid": TID, "ts": s + 300, "dur": 100})
        kernel(gather, s + 350, s + 2300, 5000, 20,
               **{"Collective name": "all_gather", "Process Group Name": "0"})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": PID, "tid": TID,
                   "ts": s + 500, "dur": 200})
        kernel(GEMM, s + 550, s + 7400, 2000, 7)
    doc = {"schemaVersion": 1, "traceEvents": ev,
           "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}}
    out = report(profdb, work, "activation_collectives", [doc])
    f = [x for x in out["findings"] if x["rule"] == "exposed_communication"]
    if not f:
        return ["activation_collectives: no exposed_communication finding (5 ms of each 10 ms "
                "step is exposed transfer: the user must still see it)"]
    problems = []
    if f[0]["expected_saving_ns"] != 0:
        problems.append(f"activation_collectives: saving {f[0]['expected_saving_ns']} ns from "
                        f"overlap, want 0 (each all-gather feeds the next layer)")
    if "carry activations" not in f[0]["observation"] or "FSDP" in f[0]["action"]:
        problems.append(f"activation_collectives: {f[0]['observation']} / {f[0]['action']}")
    return problems


if __name__ == "__main__":
    sys.exit(run_case(globals()))
