#!/usr/bin/env python3
"""Every finding rule of queries/findings/ on a fixture where it must
fire and one where it must not (the near miss: the same pattern below the
rule's threshold or the saving floor).

    check_rules.py PROFDB WORK_DIR

The fixtures are written here, deterministically, into WORK_DIR: small
Kineto traces of three 10 ms steps (the first is warm-up) and allocator
snapshots, each holding just what the rule looks at.  For each case the
report's JSON must (or must not) contain a finding of that rule, with the
output contract's fields.  The straggler rule is tested with its own
multi-rank fixtures.
"""
import json
import os
import subprocess
import sys

GEMM = "ampere_sgemm_128x64_tn"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
MiB = 1 << 20
STEP = 10000  # us


def backward(t, s):
    """A backward pass's node, 20 us at the step's start (launching nothing)."""
    t.op("autograd::engine::evaluate_function: AddBackward0", s + 60, 20)


class Trace:
    def __init__(self, steps=True, shapes=True):
        self.events, self.corr, self.steps, self.shapes = [], 0, steps, shapes

    def x(self, cat, name, ts, dur, tid=100, pid=1, **args):
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                            "ts": ts, "dur": dur, "args": args})

    def op(self, name, ts, dur):
        self.x("cpu_op", name, ts, dur, **({"Input Dims": [[8, 8]]} if self.shapes else {}))

    def gpu(self, name, ts, dur, cat="kernel", launch_dur=5, launch_ts=None, stream=7):
        """GPU work and the runtime call that launches it (at launch_ts,
        by default just before the step's start + 1 us)."""
        self.corr += 1
        lts = ts - 100 if launch_ts is None else launch_ts
        api = {"kernel": "cudaLaunchKernel", "gpu_memcpy": "cudaMemcpyAsync",
               "gpu_memset": "cudaMemsetAsync"}[cat]
        self.x("cuda_runtime", api, lts, launch_dur, correlation=self.corr)
        self.x(cat, name, ts, dur, tid=stream, pid=0, device=0, stream=stream,
               correlation=self.corr)

    def build(self, per_step, n=3):
        for i in range(n):
            s = 1000 + i * STEP
            if self.steps:
                self.x("user_annotation", f"ProfilerStep#{i + 1}", s, STEP - 1)
            self.op("aten::add", s + 1, 50)
            per_step(self, s)
        return {"schemaVersion": 1, "traceEvents": self.events,
                "deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 80 << 30}]}


def busy(t, s, gpu_us=9500, name=GEMM):
    """Keeps the GPU busy gpu_us of the step with one kernel."""
    t.gpu(name, s + 200, gpu_us, launch_ts=s + 100)


def seg(addr, size, blocks):
    return {"device": 0, "address": addr, "total_size": size, "stream": 0,
            "segment_type": "large", "blocks": [
                {"address": a, "size": sz, "requested_size": rq, "state": st, "frames": fr}
                for a, sz, rq, st, fr in blocks]}


def frames(*names):
    return [{"filename": "/home/u/train.py", "line": 10 + i, "name": n}
            for i, n in enumerate(names)]


def snapshot(segments, events=(), settings=None):
    return {"segments": segments, "device_traces": [list(events)],
            "allocator_settings": settings or {"expandable_segments": False}}


def alloc_events(addr, size, n, stack):
    out = []
    for i in range(n):
        out += [{"action": "alloc", "addr": addr, "size": size, "time_us": 3 * i, "frames": stack},
                {"action": "free_requested", "addr": addr, "size": size, "time_us": 3 * i + 1},
                {"action": "free_completed", "addr": addr, "size": size, "time_us": 3 * i + 2}]
    return out


def fragmented(gap_mib, n_segments=12):
    """n segments of 64 MiB, each with one live 32 MiB block at its start, a
    gap_mib free hole, then a live block filling the rest: external
    fragmentation gap_mib per segment at the peak (no events: the peak is
    the final state)."""
    segs, evs = [], []
    for i in range(n_segments):
        a = 0x7F0000000000 + i * 64 * MiB
        tail = 64 * MiB - 32 * MiB - gap_mib * MiB
        segs.append(seg(a, 64 * MiB, [
            (a, 32 * MiB, 32 * MiB, "active_allocated", frames("weights")),
            (a + 32 * MiB, gap_mib * MiB, 0, "inactive", []),
            (a + (32 + gap_mib) * MiB, tail, tail, "active_allocated", frames("act"))]))
    return snapshot(segs, evs)


def one_source(mib, function="forward"):
    """A 128 MiB segment: mib MiB allocated by one line (in function), the
    rest in 1 MiB blocks from as many lines."""
    a = 0x7F0000000000
    rest = [(a + i * MiB, MiB, MiB, "active_allocated", frames("other%d" % i))
            for i in range(mib, 128)]
    return snapshot([seg(a, 128 * MiB, [
        (a, mib * MiB, mib * MiB, "active_allocated", frames(function))] + rest)])


def trace_of(per_step, **kw):
    return Trace(**kw).build(per_step)


# rule -> (fires: [files, extra args], quiet: [files, extra args])
def cases():
    T, S = "trace", "snapshot"
    return {
        "gpu_idle": ((T, trace_of(lambda t, s: busy(t, s, 2000))),
                     # a CPU-bound run: 40 us of GPU work per 10 ms step
                     (T, trace_of(lambda t, s: busy(t, s, 40)))),
        # 800 us of loading with nothing else running, or 20 us.
        "data_loading": ((T, trace_of(lambda t, s: (busy(t, s, 5000), t.x(
                             "user_annotation", "enumerate(DataLoader)#_Iter.__next__", s + 9100, 800)))),
                         (T, trace_of(lambda t, s: (busy(t, s), t.x(
                             "user_annotation", "enumerate(DataLoader)#_Iter.__next__", s + 9700, 20))))),
        # Host blocked 3 ms in an op's sync (.item()): after the GPU
        # finished (fires) or while it runs.  A bare synchronize outside any
        # op is explicit_sync's (lib/38_claim.sql).
        "synchronization": ((T, trace_of(lambda t, s: (busy(t, s, 5000), t.op(
                                "aten::item", s + 5000, 3000), t.x(
                                "cuda_runtime", "cudaStreamSynchronize", s + 5005, 2990)))),
                            (T, trace_of(lambda t, s: (busy(t, s, 9500), t.op(
                                "aten::item", s + 300, 3000), t.x(
                                "cuda_runtime", "cudaStreamSynchronize", s + 305, 2990))))),
        "explicit_sync": ((T, trace_of(lambda t, s: (busy(t, s, 5000), t.x(
                              "cuda_runtime", "cudaDeviceSynchronize", s + 5000, 3000)))),
                          (T, trace_of(lambda t, s: (busy(t, s, 9500), t.x(
                              "cuda_runtime", "cudaDeviceSynchronize", s + 300, 3000))))),
        # 150 kernels of 5 us per step, 20 us launches: launch-bound; 80 in all are too few.
        "launch_bound": ((T, trace_of(lambda t, s: [t.gpu(ADD, s + 100 + 30 * i, 5, launch_dur=20,
                                                          launch_ts=s + 80 + 30 * i)
                                                    for i in range(150)])),
                         (T, trace_of(lambda t, s: [t.gpu(ADD, s + 100 + 30 * i, 5, launch_dur=20,
                                                          launch_ts=s + 80 + 30 * i)
                                                    for i in range(40)]))),
        # GEMM 8 ms of 10: fires; GEMM 100 us (100% of GPU time, 0.5% of the step): floor.
        "dominant_category": ((T, trace_of(lambda t, s: busy(t, s, 8000))),
                              (T, trace_of(lambda t, s: busy(t, s, 100)))),
        # A 3 ms copy with no kernel running, the host waiting for it, or
        # hidden behind a kernel.
        "memcpy": ((T, trace_of(lambda t, s: (busy(t, s, 5000), t.gpu(
                       "Memcpy HtoD (Pageable -> Device)", s + 6000, 3000, cat="gpu_memcpy",
                       stream=8), t.x("cuda_runtime", "cudaDeviceSynchronize", s + 5950, 3100)))),
                   (T, trace_of(lambda t, s: (busy(t, s, 9500), t.gpu(
                       "Memcpy HtoD (Pageable -> Device)", s + 1000, 3000, cat="gpu_memcpy",
                       stream=8))))),
        # Fill kernels 2 ms; or 16 us (60% of a tiny GPU time, noise).
        "fill_kernels": ((T, trace_of(lambda t, s: (busy(t, s, 6000), t.gpu(FILL, s + 6500, 2000)))),
                         (T, trace_of(lambda t, s: (busy(t, s, 10), t.gpu(FILL, s + 6500, 16))))),
        # A 3 ms all-reduce alone, or under a GEMM, in a training step (its
        # backward pass recorded: a forward-only trace's collectives carry
        # activations, which no setting overlaps).
        "exposed_communication": ((T, trace_of(lambda t, s: (busy(t, s, 5000), backward(t, s),
                                      t.gpu(NCCL, s + 6000, 3000, stream=20)))),
                                  (T, trace_of(lambda t, s: (busy(t, s, 9500), backward(t, s),
                                      t.gpu(NCCL, s + 1000, 3000, stream=20))))),
        "oom": ((S, snapshot([seg(0x7F0000000000, 2 * MiB, [
                    (0x7F0000000000, 2 * MiB, 2 * MiB, "active_allocated", frames("f"))])],
                    [{"action": "oom", "size": 64 * MiB, "device_free": 0, "time_us": 1}])),
                (S, one_source(8))),
        # 12 MiB holes in 12 segments (18.75%), or 1 MiB holes (below 3%).
        "fragmentation": ((S, fragmented(12)), (S, fragmented(1))),
        "oom_risk": ((S, one_source(8), "--gpu-gb", "1"), (S, one_source(8), "--gpu-gb", "80")),
        # One line holds 100 of 128 MiB; or 4 MiB (under the 8 MiB floor).
        "peak_source": ((S, one_source(100)), (S, one_source(4))),
        "allocation_churn": ((S, snapshot([seg(0x7F0000000000, 2 * MiB, [
                                 (0x7F0000000000, 2 * MiB, 0, "inactive", [])])],
                                 alloc_events(0x7F0000000000, 1 * MiB, 150, frames("loop")))),
                             (S, snapshot([seg(0x7F0000000000, 2 * MiB, [
                                 (0x7F0000000000, 2 * MiB, 0, "inactive", [])])],
                                 alloc_events(0x7F0000000000, 1 * MiB, 20, frames("loop"))))),
        "need_snapshot": ((T, trace_of(lambda t, s: busy(t, s))),
                          (T, trace_of(lambda t, s: None))),
        "need_trace": ((S, one_source(8)), ("both", one_source(8))),
        "need_gpu_activity": ((T, trace_of(lambda t, s: None)),
                              (T, trace_of(lambda t, s: busy(t, s)))),
        "unanalysed_device": ((T, trace_of(lambda t, s: t.x("mtia_kernel", "mtia_op", s + 10, 50,
                                                            pid=0, tid=5))),
                              (T, trace_of(lambda t, s: None))),
        # GPU work only in the warm-up step, or in every step.
        # GPU work only before the first step (a first step with the only GPU
        # work is analysed, not dropped as warm-up: see lib/10_trace_scope.sql).
        "gpu_outside_steps": ((T, trace_of(lambda t, s: t.gpu(GEMM, 100, 800, launch_ts=10)
                                           if s == 1000 else None)),
                              (T, trace_of(lambda t, s: busy(t, s)))),
        "need_steps": ((T, trace_of(lambda t, s: busy(t, s), steps=False)),
                       (T, trace_of(lambda t, s: busy(t, s)))),
        "need_shapes": ((T, trace_of(lambda t, s: busy(t, s), shapes=False)),
                        (T, trace_of(lambda t, s: busy(t, s)))),
    }


def findings_of(profdb, work, name, doc, rule, inputs_after=(), extra=()):
    """Write doc as WORK/name.json, report it (with inputs_after and extra
    arguments) and return the findings of rule, or an error message."""
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    out = os.path.join(work, name + ".out.json")
    r = subprocess.run([profdb, "report", path, *inputs_after, *extra, "--section", "findings",
                        "--json", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        return f"exit {r.returncode}: {r.stderr.strip()[:300]}"
    with open(out) as f:
        return [x for x in json.load(f)["findings"] if x["rule"] == rule]


def main():
    profdb, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    problems, n = [], 0
    traced = os.path.join(work, "with_gpu.json")
    with open(traced, "w") as f:
        json.dump(trace_of(lambda t, s: busy(t, s)), f)
    for rule, pair in cases().items():
        for must_fire, (kind, doc, *extra) in zip((True, False), pair):
            name = f"{rule}.{'fires' if must_fire else 'quiet'}"
            found = findings_of(profdb, work, name, doc, rule,
                                [traced] if kind == "both" else [], extra)
            if isinstance(found, str):
                problems.append(f"{name}: {found}")
                continue
            n += 1
            if must_fire and not found:
                problems.append(f"{name}: rule {rule} does not fire")
            elif not must_fire and found:
                problems.append(f"{name}: rule {rule} fires: {found[0]['title']}")
            for x in found:
                if not 0 <= x["expected_saving_pct"] <= 100 or not isinstance(x["subjects"], list) \
                        or not x["evidence"].get("sections"):
                    problems.append(f"{name}: incomplete contract {x}")
    # The explicit_sync finding names the user's line around the sync.
    found = findings_of(profdb, work, "synchronization.source", trace_of(lambda t, s: (
        busy(t, s, 5000), t.x(
            "python_function", "/home/u/train.py(12): train_step", s + 4990, 3020,
            **{"Python id": 5, "Python parent id": 1}), t.x(
            "python_function", "/usr/lib/python3/dist-packages/torch/cuda/__init__.py(800): synchronize",
            s + 4995, 3010, **{"Python id": 6, "Python parent id": 5}), t.x(
            "cuda_runtime", "cudaDeviceSynchronize", s + 5000, 3000))), "explicit_sync")
    n += 1
    if not found or isinstance(found, str) or found[0]["subjects"][0].get("source") != "/home/u/train.py(12): train_step":
        problems.append(f"explicit_sync: subjects {found and found[0]['subjects']} do not "
                        "start with the user's line")
    # With more call sites than it lists, the three blocked longest, longest first.
    sites = (("a.py(1): fa", 5100, 800), ("b.py(2): fb", 6000, 1500),
             ("c.py(3): fc", 7600, 1000), ("d.py(4): fd", 8700, 1200))

    def four_sites(t, s):
        busy(t, s, 5000)
        for i, (frame, at, dur) in enumerate(sites):
            # work the sync waits for, still running as it begins (a sync
            # begun with nothing recorded to wait for waits on work outside
            # the trace: wait_outside_trace's)
            t.gpu(ADD, s + at - 100, 150, launch_ts=s + at - 150)
            t.x("python_function", "/home/u/" + frame, s + at - 5, dur + 10,
                **{"Python id": 10 + i, "Python parent id": 1})
            t.x("cuda_runtime", "cudaDeviceSynchronize", s + at, dur)
    found = findings_of(profdb, work, "explicit_sync.order", trace_of(four_sites), "explicit_sync")
    n += 1
    got = [] if not found or isinstance(found, str) else [x["source"] for x in found[0]["subjects"]]
    if got != ["/home/u/b.py(2): fb", "/home/u/d.py(4): fd", "/home/u/c.py(3): fc"]:
        problems.append(f"explicit_sync: subjects {got} are not the three longest blocked, longest first")
    # A stack through a module's __init__ holds parameters, not activations.
    for function, word in (("__init__", "parameters"), ("forward", "activations")):
        found = findings_of(profdb, work, f"peak_source.{function}", one_source(100, function),
                            "peak_source")
        n += 1
        if not found or isinstance(found, str) or word not in found[0]["hypothesis"]:
            problems.append(f"peak_source from {function}: hypothesis does not say {word}")
    for p in problems:
        print("FAIL", p)
    print(f"{n} rule cases, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
