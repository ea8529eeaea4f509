#!/usr/bin/env python3
"""The public cases of issue 29's classification, GEMM bound and
communication defects (check_bounds_evidence.py has the fixtures):

    check_bounds_evidence_public.py PROFDB PUBLIC_DIR WORK_DIR

Exits 77 when PUBLIC_DIR lacks the traces.  Each expected figure is
re-derived here from the raw JSON (exact decimal microseconds to ns,
correlation ids, interval unions), sharing no code with profdb:

- AMD-AGI__TraceLens/gpu_only_trace (MI210, no steps: the whole trace):
  Convolution dominates (MIOpen's batched_transpose_* and SubTensorOp*
  kernels with its igemm kernels), its transpose time is the
  batched_transpose_* kernels' and the advice is channels_last.
- AMD-AGI__TraceLens/trace (MI300X, kernels on device 2, deviceProperties
  list device 0): the GEMM bound is the aten::mm kernels' time above
  their FLOPs at 60% of the MI300X's 1307.4 TFLOP/s bf16 peak, the model
  assumed and said so.
- AMD-AGI__TraceLens/gaunernst_bert-small-uncased__1016001 (H100, GPU
  idle 93%): the GEMM finding says the GPU idles, and its saving is no
  more than the GEMM time that runs while the host blocks in a sync or
  after the step's CPU range (none here).
- AMD-AGI__TraceLens/google_owlv2-large-patch14-ensemble (GPU idle 53%):
  Softmax dominates; its critical-path time is the Softmax kernels' time
  inside the host's sync calls or the step's tail, and the bound is half
  of it (no shapes: a 2x faster Softmax, on the critical path only).
- kernel_saving_past_critical_path_at_40pct_idle: pytorch__kineto
  worker0.1623143089861 (GPU idle 43%): the Convolution saving is half its
  time the host waits for in the analysed steps (inside its syncs, or past
  a step's CPU range when the next step's work queues behind it: none
  here), not half of all of it;
  HTA df_index_resolver (idle 42%): no GEMM time inside a sync, no saving.
- low_gemm_efficiency_not_on_critical_path: TraceLens timesformer (idle
  59%): no GEMM time on the critical path, no saving; owlv2 (idle 53%):
  the saving is the critical path's share (64%) of the GEMM time.  Both
  top shapes are K=64 q @ k^T matmuls, memory-bound on their H100: the
  saving is their time above the memory roofline (issue 44, item 6).
- AMD-AGI__TraceLens/resnet_act_checkpoint (rank 0 of 8, the GPU ~30 ms
  behind the CPU): the collectives and compute kernels clipped to the
  analysed spans cover at most the spans per rank step, and the
  exposed_communication saving is min(exposed transfer, compute not beside
  it) within the spans per analysed step; the 7 peers not loaded are named.
- facebookresearch__HolisticTraceAnalysis/sampled_rank-0 + -1 (2 of 128
  ranks): the 126 peers not loaded are named, confidence low.
"""
import gzip
import json
import os
import re
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_report import union  # noqa: E402
from checklist import finding, findings_of, run_checks  # noqa: E402

TL = "AMD-AGI__TraceLens"
HTA = "facebookresearch__HolisticTraceAnalysis"


def load(path):
    with gzip.open(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def ns(x):
    return int(Decimal(x) * 1000)


def overlap(xs, ys):
    """Length covered by both the union of xs and the union of ys."""
    return union(xs) + union(ys) - union(list(xs) + list(ys))


def report(profdb, work, name, paths):
    return findings_of(profdb, work, name, paths, ok=(0, 3))


def kernels(doc):
    return [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and "dur" in e]


def gpu_only_trace(profdb, public, work, problems):
    path = os.path.join(public, TL, "gpu_only_trace.json.gz")
    ks = kernels(load(path))
    tr = sum(ns(e["dur"]) for e in ks if e["name"].lower().startswith("batched_transpose_"))
    conv = sum(ns(e["dur"]) for e in ks if re.match(
        r"(batched_transpose_|subtensorop|igemm_(fwd|bwd|wrw))", e["name"].lower()))
    elementwise = sum(ns(e["dur"]) for e in ks if "elementwise_kernel" in e["name"])
    f = finding(report(profdb, work, "gpu_only_trace", [path]), "dominant_category")
    if conv <= elementwise:
        problems.append(f"gpu_only_trace: convolution {conv} not above elementwise {elementwise}")
    if not f or f["evidence"]["figures"].get("category") != "Convolution":
        problems.append(f"gpu_only_trace: dominant {f and f['title']}")
        return
    fig = f["evidence"]["figures"]
    if fig.get("category_ns") != conv or fig.get("transpose_ns") != tr:
        problems.append(f"gpu_only_trace: convolution {fig.get('category_ns')} / transposes "
                        f"{fig.get('transpose_ns')}, want {conv} / {tr}")
    if "model.to(memory_format=torch.channels_last)" not in f["action"]:
        problems.append(f"gpu_only_trace: action {f['action']}")


def mm_flops(dims):
    (m, k), (k2, n) = dims[0][:2], dims[1][:2]
    return 2 * m * k * n


def mi300x_trace(profdb, public, work, problems):
    path = os.path.join(public, TL, "trace.json.gz")
    doc = load(path)
    ev = doc["traceEvents"]
    listed = {d["id"]: d["name"] for d in doc.get("deviceProperties", [])}
    ks = kernels(doc)
    devices = {e["args"]["device"] for e in ks}
    by_corr = {e["args"]["correlation"]: e for e in ks}
    launches = [e for e in ev if e.get("cat") == "cuda_runtime" and "dur" in e
                and e["args"].get("correlation") in by_corr]
    mms = [e for e in ev if e.get("cat") == "cpu_op" and e["name"] == "aten::mm"
           and e["args"].get("Input Dims")]
    covered, flops = 0, 0
    for op in mms:
        a, b = ns(op["ts"]), ns(op["ts"]) + ns(op["dur"])
        mine = [by_corr[r["args"]["correlation"]] for r in launches
                if r["tid"] == op["tid"] and a <= ns(r["ts"]) and ns(r["ts"]) + ns(r["dur"]) <= b]
        covered += sum(ns(k["dur"]) for k in mine)
        flops += mm_flops(op["args"]["Input Dims"])
    gemm = sum(ns(e["dur"]) for e in ks if e["name"].startswith("Cijk_"))
    # flops / (0.6 x 1307.4e12 FLOP/s) in ns; scaled to all GEMM kernels
    saving = gemm * (covered - flops / (0.6 * 1307.4e3)) / covered
    f = finding(report(profdb, work, "mi300x_trace", [path]), "dominant_category")
    if devices & set(listed) or set(listed.values()) != {"AMD Instinct MI300X"}:
        problems.append(f"mi300x_trace: kernels on {devices}, listed {listed}: not the case")
    if not f:
        problems.append("mi300x_trace: no dominant_category finding")
        return
    if abs(f["expected_saving_ns"] - saving) > 1000 or "assumed" not in f["expected_impact"] \
            or "guess" in f["expected_impact"]:
        problems.append(f"mi300x_trace: saving {f['expected_saving_ns']}, want {saving:.0f}: "
                        f"{f['expected_impact']}")


# Calls that block the host until the GPU is done (CUDA runtime API,
# "API synchronization behavior"; the ops that read a device value).
SYNC = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
        "hipStreamSynchronize", "hipDeviceSynchronize", "hipMemcpy", "hipMemcpyWithStream",
        "aten::item", "aten::_local_scalar_dense", "aten::is_nonzero", "aten::equal"}
# Async copies block the host when their copy is to or from pageable
# memory (same reference; Kineto names the copy "... Pageable ...").
ASYNC_COPY = {"cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpy3DAsync", "hipMemcpyAsync",
              "hipMemcpy2DAsync", "hipMemcpy3DAsync"}
ATTENTION = re.compile(r"flash|fmha|attention|attn|sdpa|scaled_dot_product|mha_|xformers|"
                       r"flashinfer|kvcache|kv_cache|paged_")


def one_step_critical_path(ev, is_category):
    """For a trace of one analysed ProfilerStep: its span (CPU start to the
    end of the last GPU work it launched), the GPU busy time in it, and the
    time of the kernels is_category(name) picks that runs while the host
    blocks in a SYNC call or after the step's CPU range."""
    step = [e for e in ev if e.get("cat") == "user_annotation"
            and e["name"].startswith("ProfilerStep")]
    assert len(step) == 1, len(step)
    s0, s1 = ns(step[0]["ts"]), ns(step[0]["ts"]) + ns(step[0]["dur"])
    launch = {e["args"]["correlation"]: ns(e["ts"]) for e in ev
              if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    mine = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e
            and s0 <= launch.get(e["args"].get("correlation"), ns(e["ts"])) < s1]
    end = max([s1] + [ns(e["ts"]) + ns(e["dur"]) for e in mine])
    busy = union([(max(ns(e["ts"]), s0), min(ns(e["ts"]) + ns(e["dur"]), end)) for e in mine])
    cat = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in mine
           if e.get("cat") == "kernel" and is_category(e["name"].lower())]
    pageable = {e["args"].get("correlation") for e in ev
                if e.get("cat") == "gpu_memcpy" and "Pageable" in e["name"]}
    waits = [(max(ns(e["ts"]), s0), min(ns(e["ts"]) + ns(e["dur"]), end)) for e in ev
             if (e.get("name") in SYNC or (e.get("name") in ASYNC_COPY and e.get(
                 "args", {}).get("correlation") in pageable))
             and "dur" in e and e.get("cat") in ("cuda_runtime", "cpu_op")
             and ns(e["ts"]) < end and ns(e["ts"]) + ns(e["dur"]) > s0] + [(s1, end)]
    return end - s0, busy, union(cat), overlap(cat, waits)


def bert_mostly_idle(profdb, public, work, problems):
    path = os.path.join(public, TL, "gaunernst_bert-small-uncased__1016001.json.gz")
    span, busy, gemm, crit = one_step_critical_path(
        load(path)["traceEvents"], lambda n: re.search(r"gemm|cutlass|cublas|nvjet|xmma", n))
    idle = 100 * (1 - busy / span)
    f = finding(report(profdb, work, "bert_mostly_idle", [path]), "dominant_category")
    if not f:
        problems.append("bert_mostly_idle: no dominant_category finding")
        return
    if f"idles {idle:.0f}%" not in f["title"] or "keep the GPU busy" not in f["action"]:
        problems.append(f"bert_mostly_idle: idle {idle:.1f}%: {f['title']} / {f['action'][:80]}")
    if f["expected_saving_ns"] > crit or f["evidence"]["figures"].get("critical_path_ns") != crit:
        problems.append(f"bert_mostly_idle: saving {f['expected_saving_ns']}, critical path "
                        f"{f['evidence']['figures'].get('critical_path_ns')}, want <= {crit}")


def owlv2_critical_path(profdb, public, work, problems):
    # GPU idle 53%: Softmax dominates, and 168 ms of its 263 ms run while
    # the host waits; no shapes, so the bound is half of that share
    path = os.path.join(public, TL, "google_owlv2-large-patch14-ensemble__1016001.json.gz")
    span, busy, softmax, crit = one_step_critical_path(
        load(path)["traceEvents"], lambda n: "softmax" in n and not ATTENTION.search(n))
    f = finding(report(profdb, work, "owlv2_critical_path", [path]), "dominant_category")
    if not f or f["evidence"]["figures"].get("category") != "Softmax":
        problems.append(f"owlv2_critical_path: {f and f['title']}")
        return
    fig = f["evidence"]["figures"]
    want = (softmax / 2) * crit / softmax
    if fig.get("critical_path_ns") != crit or fig.get("category_ns") != softmax \
            or abs(f["expected_saving_ns"] - want) > 1 or busy >= span / 2:
        problems.append(f"owlv2_critical_path: saving {f['expected_saving_ns']}, want {want}; "
                        f"critical {fig.get('critical_path_ns')} / {crit}, softmax "
                        f"{fig.get('category_ns')} / {softmax}, busy {busy} of {span}")


def clip(ivs, spans):
    return [(max(a, s), min(b, e)) for a, b in ivs for s, e in spans if a < e and b > s]


def resnet_comm(profdb, public, work, problems):
    """Collectives on the spans' timeline: the GPU runs ~30 ms behind the
    CPU, so step 16's collectives run before its span; each kernel is
    clipped to the analysed spans (TensorBoard's: the CPU range widened to
    the GPU work the step launched, never before the previous span's end).
    The steps have a backward pass (autograd-engine events): the exposed
    transfer of the all-reduces launched in it (DDP's gradient syncs) can
    hide only behind the compute launched in it, not the forward's (issue 44's audit: 2.43 ms promised, ~0.55 ms
    of backward compute)."""
    path = os.path.join(public, TL, "resnet_act_checkpoint.json.gz")
    doc = load(path)
    ev = doc["traceEvents"]
    steps = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
                   if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
    launch = {e["args"]["correlation"]: ns(e["ts"]) for e in ev
              if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    # the backward passes: the analysed steps' autograd-engine events
    backward = []
    for a, b in steps[1:]:
        backward += [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
                     if "dur" in e and e.get("cat") == "cpu_op" and a <= ns(e["ts"]) < b
                     and (e["name"].startswith("autograd::engine::evaluate_function")
                          or re.search(r"Backward[0-9]", e["name"]))]
    gpu = []  # (start, end, is kernel, is collective, step index that launched it,
    #           launched in a backward pass, is an all-reduce)
    for e in ev:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e:
            # the step of the launching call; one without it belongs to
            # the CPU step its start falls in
            t = launch.get(e["args"].get("correlation"), ns(e["ts"]))
            k = [i for i, (a, b) in enumerate(steps) if a <= t < b]
            gpu.append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["cat"] == "kernel",
                        "nccl" in e["name"].lower(), k[0] if k else None,
                        e["args"].get("correlation") in launch
                        and any(a <= t < b for a, b in backward),
                        e["args"].get("Collective name") == "allreduce"))
    spans, prev = [], None
    for i, (a, b) in enumerate(steps):
        lo = min([a] + [g[0] for g in gpu if g[4] == i])
        hi = max([b] + [g[1] for g in gpu if g[4] == i])
        spans.append((lo if prev is None else max(lo, prev), hi))
        prev = hi
    analysed = spans[1:]  # the first step is warm-up
    wall = sum(b - a for a, b in analysed)
    comm = clip([g[:2] for g in gpu if g[2] and g[3]], analysed)
    compute = clip([g[:2] for g in gpu if g[2] and not g[3]], analysed)
    allreduce = clip([g[:2] for g in gpu if g[2] and g[3] and g[5] and g[6]], analysed)
    backward = clip([g[:2] for g in gpu if g[2] and not g[3] and g[5]], analysed)
    launched = union([g[:2] for g in gpu if g[2] and g[3] and g[4] is not None and g[4] >= 1])
    both = overlap(comm, compute)
    exposed, free = union(comm) - both, union(compute) - both
    ar_exposed = union(allreduce) - overlap(allreduce, compute)
    backward_free = union(backward) - overlap(backward, comm)
    hide_ar = min(ar_exposed, backward_free)
    n = len(analysed)
    want = (hide_ar + min(exposed - ar_exposed, max(free - hide_ar, 0))) / n
    if not backward or not ar_exposed or not want < min(exposed, free) / n:
        problems.append(f"resnet_comm: the trace no longer shows the pattern: "
                        f"{len(backward)} backward events, all-reduce exposed {ar_exposed}, "
                        f"saving {want} of {min(exposed, free) / n}")
    world = doc["distributedInfo"]["world_size"]
    out = report(profdb, work, "resnet_comm", [path])
    f = finding(out, "exposed_communication")
    if not f:
        problems.append("resnet_comm: no finding")
        return
    fig = f["evidence"]["figures"]
    # the spans derived here are profdb's (the finding's job step), and
    # the collectives the steps launched run partly outside them
    if abs(fig.get("job_step_ns", 0) - wall / n) > 1 or launched <= union(comm):
        problems.append(f"resnet_comm: job step {fig.get('job_step_ns')}, want {wall / n}; "
                        f"launched collectives {launched}, in the spans {union(comm)}")
    # per rank step: collectives within the step, the saving within the
    # exposed transfer inside the spans and the compute left beside it
    if abs(fig.get("comm_ns", -1) - union(comm) / n) > 1 or not fig["comm_ns"] <= wall / n:
        problems.append(f"resnet_comm: comm {fig.get('comm_ns')} per rank step, want "
                        f"{union(comm) / n} <= the step {wall / n}")
    if abs(fig.get("backward_free_ns", -1) - backward_free / n) > 1 \
            or abs(fig.get("allreduce_exposed_ns", -1) - ar_exposed / n) > 1:
        problems.append(f"resnet_comm: backward compute free {fig.get('backward_free_ns')}, want "
                        f"{backward_free / n}; all-reduce exposed "
                        f"{fig.get('allreduce_exposed_ns')}, want {ar_exposed / n}")
    if abs(f["expected_saving_ns"] - want) > 1 or free >= exposed \
            or not f["expected_saving_ns"] <= exposed / n + 1:
        problems.append(f"resnet_comm: saving {f['expected_saving_ns']}, want {want} "
                        f"(exposed {exposed}, free {free} over {n} steps)")
    if f"other {world - 1} peer(s)" not in f["observation"] or f["confidence"] != "low":
        problems.append(f"resnet_comm: peers: {f['confidence']} {f['observation']}")
    # overlap hides under half of the exposed transfer: the action says to send less too
    if want < exposed / n / 2 and "send less" not in f["action"]:
        problems.append(f"resnet_comm: overlap hides {want} of {exposed / n}, yet the action "
                        f"only says to overlap: {f['action']}")


def sampled_ranks(profdb, public, work, problems):
    paths = [os.path.join(public, HTA, f"sampled_rank-{r}.json.gz") for r in (0, 1)]
    world = {load(p)["distributedInfo"]["world_size"] for p in paths}
    f = finding(report(profdb, work, "sampled_ranks", paths), "exposed_communication")
    if len(world) != 1:
        problems.append(f"sampled_ranks: world sizes {world}")
        return
    missing = world.pop() - len(paths)
    if not f or f"other {missing} peer(s)" not in f["observation"] or f["confidence"] != "low" \
            or f["evidence"]["figures"].get("peers_not_loaded") != missing:
        problems.append(f"sampled_ranks: {f and (f['confidence'], f['observation'])}")


GEMM_NAME = re.compile(r"gemm|cutlass|cublas|nvjet|xmma")


def is_gemm(n):
    return GEMM_NAME.search(n) and "igemm" not in n  # MIOpen's igemm_* are convolutions


def waited_in_sync(ev, is_category):
    """For a trace analysed whole or with no tail: the kernels
    is_category(name) picks, their time, and the part of it inside the
    host's SYNC calls."""
    # (older exporters write the categories Kernel, Runtime, Operator)
    cat = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
           if (e.get("cat") or "").lower() == "kernel" and "dur" in e
           and is_category(e["name"].lower())]
    waits = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
             if e.get("name") in SYNC and "dur" in e
             and (e.get("cat") or "").lower() in ("cuda_runtime", "runtime", "cpu_op", "operator")]
    return union(cat), overlap(cat, waits)


def waited_in_steps(ev, is_category):
    """For a trace with ProfilerSteps: the kernels is_category(name) picks,
    their time, and the part of it the host waits for in the analysed
    steps (all but the first): inside the host's SYNC calls, or past a
    step's CPU range (to the end of the GPU work it launched) when the
    next step launched GPU work before that end (it queued behind it; the
    last step's when the step before it was queued behind)."""
    steps = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
                   if e.get("name", "").startswith("ProfilerStep") and "dur" in e
                   and (e.get("cat") or "").lower() in ("cpu_op", "user_annotation", "operator"))
    launch = {e["args"]["correlation"]: ns(e["ts"]) for e in ev
              if (e.get("cat") or "").lower() in ("cuda_runtime", "runtime") and "dur" in e
              and "correlation" in e.get("args", {})}
    gpu = [(launch.get(e.get("args", {}).get("correlation")), ns(e["ts"]),
            ns(e["ts"]) + ns(e["dur"])) for e in ev
           if (e.get("cat") or "").lower() in ("kernel", "gpu_memcpy", "gpu_memset")
           and "dur" in e]

    def step_of(t):
        return next((i for i, (a, b) in enumerate(steps) if t is not None and a <= t < b), None)
    end = {}   # the end of the GPU work each step launched
    first = {}  # each step's first launch
    for lt, a, b in gpu:
        i = step_of(lt)
        if i is not None:
            end[i] = max(end.get(i, 0), b)
            first[i] = min(first.get(i, lt), lt)
    windows = []
    for i in range(1, len(steps)):
        a, b = steps[i]
        windows += [(max(ns(e["ts"]), a), min(ns(e["ts"]) + ns(e["dur"]), b)) for e in ev
                    if e.get("name") in SYNC and "dur" in e
                    and ns(e["ts"]) < b and ns(e["ts"]) + ns(e["dur"]) > a]
    queued = {i: i + 1 in first and first[i + 1] < end.get(i, 0) for i in range(len(steps))}
    for i in range(1, len(steps)):
        b = steps[i][1]
        last = i == len(steps) - 1  # counts when the step before it was queued behind
        if end.get(i, 0) > b and (queued[i] or (last and queued[i - 1])):
            windows.append((b, end[i]))
    cat = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
           if (e.get("cat") or "").lower() == "kernel" and "dur" in e
           and is_category(e["name"].lower())]
    return union(cat), overlap(cat, [w for w in windows if w[1] > w[0]]), len(steps) - 1


def kernel_saving_past_critical_path_at_40pct_idle(profdb, public, work, problems):
    # pytorch__kineto worker0 (GPU idle 43%): the Convolution time the host
    # waits for in the analysed steps, half of it (a 2x faster
    # convolution; was: half of all 58 ms per step).  None here: no
    # convolution runs inside a sync, and each step's 9-16 ms of GPU work
    # past its CPU range ends 48-62 ms before the next step launches any
    # (issue 44's audit: 2.56 ms promised for those tails)
    path = os.path.join(public, "pytorch__kineto", "worker0.1623143089861.pt.trace.json.gz")
    conv, crit, n = waited_in_steps(load(path)["traceEvents"],
                                    lambda n: any(x in n for x in ("conv", "dgrad", "wgrad",
                                                                   "winograd")))
    f = finding(report(profdb, work, "kineto_conv_40pct_idle", [path]), "dominant_category")
    if not f or f["evidence"]["figures"].get("category") != "Convolution":
        problems.append(f"kernel_saving_past_critical_path_at_40pct_idle: kineto {f and f['title']}")
    else:
        fig = f["evidence"]["figures"]
        cp = fig.get("critical_path_ns") or 0
        if cp != round(crit / n) or f["expected_saving_ns"] != round(crit / n / 2) \
                or not 10 < fig.get("gpu_idle_pct", 0) < 50:
            problems.append(f"kernel_saving_past_critical_path_at_40pct_idle: kineto saving "
                            f"{f['expected_saving_ns']}, critical {fig.get('critical_path_ns')}, "
                            f"want {crit} / {n} steps (of {conv}) / 2")
    # HTA df_index_resolver (GPU idle 42%): no GEMM time inside a sync, so
    # a faster GEMM saves nothing (was: a 41.39 ms guess)
    path = os.path.join(public, HTA, "df_index_resolver.json.gz")
    gemm, crit = waited_in_sync(load(path)["traceEvents"], is_gemm)
    f = finding(report(profdb, work, "hta_resolver_40pct_idle", [path]), "dominant_category")
    if crit != 0 or not f or f["expected_saving_ns"] != 0 \
            or f["evidence"]["figures"].get("critical_path_ns") != 0:
        problems.append(f"kernel_saving_past_critical_path_at_40pct_idle: HTA resolver: GEMM "
                        f"{gemm} ns, {crit} in syncs; {f and (f['expected_saving_ns'], f['title'])}")


def low_gemm_efficiency_not_on_critical_path(profdb, public, work, problems):
    # timesformer (GPU idle 59%): only the GEMM time the host waits for
    # counts (was all of it, 22.94 ms): the GEMMs before its blocking
    # pageable copies (.cpu(): those copies block the host, docs/
    # definitions.md), about 79% of it; owlv2 (53%): 64% of the GEMM time
    # is, so at most that share of the time the shape would save at 60%
    # of peak
    for name, most in (("facebook_timesformer-base-finetuned-k400__1016002", 0.8),
                       ("google_owlv2-large-patch14-ensemble__1016001", 0.65)):
        path = os.path.join(public, TL, name + ".json.gz")
        span, busy, gemm, crit = one_step_critical_path(load(path)["traceEvents"], is_gemm)
        f = finding(report(profdb, work, "lowgemm_" + name[:12], [path]), "low_gemm_efficiency")
        if not f:
            problems.append(f"low_gemm_efficiency_not_on_critical_path: {name}: no finding")
            continue
        fig = f["evidence"]["figures"]
        # both shapes are K=64 batched matmuls (q @ k^T), memory-bound on
        # an H100 (issue 44, item 6): the floor is the larger of the time
        # at 60% of peak and the bytes (operands and result once, bf16) at
        # its 3350 GB/s; the calls counted from the FLOPs
        dims = json.loads(f["subjects"][0]["input_dims"])
        a, b = dims[0], dims[1]
        batch = 1
        for x in a[:-2]:
            batch *= x
        m, k, n = a[-2], a[-1], b[-1]
        flops = fig["peak_pct"] / 100 * fig["peak_tflops"] * 1e3 * fig["device_ns"]
        calls = flops / (2 * batch * m * n * k)
        moved = calls * 2 * batch * (m * k + k * n + m * n)
        compute = fig["device_ns"] * fig["peak_pct"] / 60
        s0 = fig["device_ns"] - max(compute, moved / 3350)
        if moved / 3350 <= compute or not fig.get("memory_bound"):
            problems.append(f"low_gemm_efficiency_not_on_critical_path: {name}: memory-bound "
                            f"{fig.get('memory_bound')}: {moved / 3350:.0f} ns of bytes, "
                            f"{compute:.0f} ns at 60% of peak")
        # profdb's GEMM category and this name pattern differ by < 2% of the time
        want = s0 * crit / gemm
        if fig.get("critical_path_ns") != crit or crit > most * gemm \
                or abs(f["expected_saving_ns"] - want) > 0.02 * s0 \
                or "critical path" not in f["observation"] + f["expected_impact"] \
                and crit < gemm:
            problems.append(f"low_gemm_efficiency_not_on_critical_path: {name}: saving "
                            f"{f['expected_saving_ns']}, want {want:.0f} (critical "
                            f"{fig.get('critical_path_ns')} / {crit} of {gemm})")


CHECKS = [gpu_only_trace, mi300x_trace, bert_mostly_idle, owlv2_critical_path, resnet_comm,
          sampled_ranks, kernel_saving_past_critical_path_at_40pct_idle,
          low_gemm_efficiency_not_on_critical_path]


def main():
    profdb, public, work = sys.argv[1:4]
    need = [os.path.join(public, TL, "gpu_only_trace.json.gz"),
            os.path.join(public, HTA, "sampled_rank-1.json.gz")]
    if not all(os.path.exists(p) for p in need):
        print("SKIP: the public traces are not there:", public)
        return 77
    os.makedirs(work, exist_ok=True)
    return run_checks(CHECKS, profdb, public, work)


if __name__ == "__main__":
    sys.exit(main())
