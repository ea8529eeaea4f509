#!/usr/bin/env python3
"""Check the report's key figures against an independent computation.

    check_report.py PROFDB FIXTURE_DIR DATA_DIR WORK_DIR

Runs `profdb report ... --json` and recomputes, straight from the trace and
snapshot JSON (never from profdb's database or SQL), the figures users
act on:

  * step spans (the TensorBoard definition), wall time, GPU busy time and
    the priority breakdown (kernel > memcpy > memset > communication >
    runtime > data loading > CPU > other), by a sweep over elementary
    intervals rather than the report's union differences;
  * GPU utilization per device; the kernel table (total, count, min, max)
    of the work launched in the analysed steps; copies by direction;
  * host-sync time with nested calls counted once; collective time and its
    overlap with compute (clipped to the analysed spans); mean step per rank;
  * memory: reserved / allocated / inactive from the segments, the replayed
    peak, baseline and end (tests/real/check_memreplay.py's reference), and
    the allocator action counts;
  * profdb diff: the mean step time of each run and every kernel's time
    per step before and after (the fixtures' before/after pair, and HTA's
    control/test traces).

Always on the fixtures in FIXTURE_DIR; also on public traces and a
snapshot from DATA_DIR when it exists.
"""
import gzip
import json
import os
import subprocess
import sys
from decimal import Decimal, ROUND_HALF_EVEN

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "real"))
from check_memreplay import reference  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import merge_intervals as merged  # noqa: E402

GPU_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy",
            "Memcpy": "memcpy", "gpu_memset": "memset", "Memset": "memset"}
RUNTIME_CATS = {"cuda_runtime", "Runtime", "cuda_driver", "Driver"}
CPU_CATS = {"cpu_op", "Operator", "user_annotation", "python_function"}
# Blocking copies (issue 29) count unless their copy ran device to device
# (it does not block the host: CUDA runtime API, API synchronization).
SYNC_COPIES = {"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyPeer",
               "cudaMemcpyFromSymbol", "cudaMemcpyToSymbol", "cuMemcpyDtoH", "cuMemcpyDtoH_v2",
               "cuMemcpyHtoD", "cuMemcpyHtoD_v2", "hipMemcpy", "hipMemcpyWithStream",
               "hipMemcpyDtoH", "hipMemcpyHtoD", "hipMemcpy2D", "hipMemcpy3D", "hipMemcpyPeer",
               "hipMemcpyFromSymbol", "hipMemcpyToSymbol"}
# Async copies block the host only when their copy is to or from pageable
# host memory (CUDA runtime API, API synchronization behavior; Kineto
# names the copy "... Pageable ..."; issue 29).
ASYNC_COPIES = {"cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpy3DAsync", "hipMemcpyAsync",
                "hipMemcpy2DAsync", "hipMemcpy3DAsync"}
SYNC_NAMES = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
              "hipStreamSynchronize", "hipDeviceSynchronize", "hipEventSynchronize",
              "aten::item", "aten::_local_scalar_dense", "aten::is_nonzero",
              "aten::equal"} | SYNC_COPIES
failures = []
checks = [0]


def check(what, got, want):
    checks[0] += 1
    if got != want:
        failures.append(f"{what}: report {got!r}, expected {want!r}")


def ns(v):
    """Microseconds as written (int or Decimal) -> integer nanoseconds."""
    return int((Decimal(v) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def read_json(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def union(ivs):
    total, end = 0, None
    for a, b in sorted(ivs):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def intersect(xs, ys):
    """Length of the intersection of two unions of intervals."""
    xs, ys, total, i, j = merged(xs), merged(ys), 0, 0, 0
    while i < len(xs) and j < len(ys):
        a, b = max(xs[i][0], ys[j][0]), min(xs[i][1], ys[j][1])
        total += max(0, b - a)
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return total


def is_comm(name):
    n = name.lower()
    return "nccl" in n or "rccl" in n


class TraceModel:
    def __init__(self, path):
        doc = read_json(path)
        events = doc["traceEvents"] if isinstance(doc, dict) else doc
        self.rank = (doc.get("distributedInfo") or {}).get("rank", 0) if isinstance(doc, dict) else 0
        self.cpu, self.gpu, self.runtime_by_corr, self.steps = [], [], {}, {}
        gpu_step_ranges = {}
        for e in events:
            if e.get("ph") != "X" or "ts" not in e or "dur" not in e:
                continue
            cat, name = e.get("cat"), e.get("name", "")
            ts, dur = ns(e["ts"]), ns(e["dur"])
            args = e.get("args") or {}
            if cat in GPU_CATS:
                self.gpu.append({"kind": GPU_CATS[cat], "name": name, "ts": ts, "end": ts + dur,
                                 "dur": dur, "corr": args.get("correlation"),
                                 "device": args.get("device"), "bytes": args.get("bytes")})
            elif cat == "gpu_user_annotation" and name.startswith("ProfilerStep#"):
                a, b = gpu_step_ranges.get(name, (ts, ts + dur))
                gpu_step_ranges[name] = (min(a, ts), max(b, ts + dur))
            elif cat in RUNTIME_CATS or cat in CPU_CATS:
                kind = "runtime" if cat in RUNTIME_CATS else cat
                self.cpu.append({"kind": kind, "name": name, "ts": ts, "end": ts + dur,
                                 "dur": dur, "tid": (e.get("pid"), e.get("tid")),
                                 "corr": args.get("correlation")})
                if kind == "runtime" and args.get("correlation") is not None:
                    self.runtime_by_corr.setdefault(args["correlation"], ts)
                if (cat in ("user_annotation", "cpu_op", "Operator")
                        and name.startswith("ProfilerStep#") and name[13:].isdigit()):
                    self.steps.setdefault(int(name[13:]), (ts, ts + dur))
        order = sorted(self.steps, key=lambda n: (self.steps[n][0], n))

        def cpu_step(t):
            for n in order:
                a, b = self.steps[n]
                if a <= t < b:
                    return n
            return None

        for c in self.cpu:
            c["step"] = cpu_step(c["ts"])
        for g in self.gpu:
            launch = self.runtime_by_corr.get(g["corr"])
            step = cpu_step(launch) if launch is not None else None
            if step is None:  # no launch, or launched outside the steps
                for name, (a, b) in gpu_step_ranges.items():
                    if a <= g["ts"] < b:
                        step = int(name[13:])
                if step is None:
                    step = cpu_step(g["ts"])
            g["step"] = step
        # Spans: the TensorBoard definition.
        self.spans, prev_end = {}, None
        for n in order:
            a, b = self.steps[n]
            mine = [g for g in self.gpu if g["step"] == n]
            if mine:
                a, b = min(a, min(g["ts"] for g in mine)), max(b, max(g["end"] for g in mine))
            if prev_end is not None:
                a = max(a, prev_end)
            self.spans[n] = (a, max(b, a))
            prev_end = b if prev_end is None else max(prev_end, b)
        # Warm-up: the first step, when another non-empty step remains that
        # launched GPU work if the first one did.
        first = min(order) if order else None
        gpu_steps = {g["step"] for g in self.gpu}
        others = [n for n in order if n != first and self.spans[n][1] > self.spans[n][0]
                  and (n in gpu_steps or first not in gpu_steps)]
        warm = first if others else None
        self.analysed = [n for n in order if n != warm and self.spans[n][1] > self.spans[n][0]]

    def breakdown(self, n):
        """Wall time split by priority, by a sweep over elementary intervals."""
        a, b = self.spans[n]
        ivs = []
        for g in self.gpu:
            lvl = 4 if g["kind"] == "kernel" and is_comm(g["name"]) else \
                {"kernel": 1, "memcpy": 2, "memset": 3}[g["kind"]]
            ivs.append((g["ts"], g["end"], lvl))
        for c in self.cpu:
            if c["name"].startswith("ProfilerStep#"):
                continue
            lvl = 5 if c["kind"] == "runtime" else \
                6 if c["name"].startswith("enumerate(DataLoader)") else 7
            ivs.append((c["ts"], c["end"], lvl))
        ivs = [(max(x, a), min(y, b), lvl) for x, y, lvl in ivs if x < b and y > a]
        # Sweep: +1/-1 per level at each boundary; an elementary interval
        # goes to the lowest level present over it (8 = nothing recorded).
        points = {a: [0] * 9, b: [0] * 9}
        for x, y, lvl in ivs:
            points.setdefault(x, [0] * 9)[lvl] += 1
            points.setdefault(y, [0] * 9)[lvl] -= 1
        parts, live = [0] * 9, [0] * 9
        cuts = sorted(points)
        for lo, hi in zip(cuts, cuts[1:]):
            for lvl, d in enumerate(points[lo]):
                live[lvl] += d
            best = next((lvl for lvl in range(1, 8) if live[lvl] > 0), 8)
            parts[best] += hi - lo
        gpu_busy = union([(x, y) for x, y, lvl in ivs if lvl <= 4])
        return b - a, gpu_busy, parts


def report(profdb, inputs, work, name, extra=()):
    out = os.path.join(work, name + ".json")
    subprocess.run([profdb, "report", *inputs, "--json", out, "--top", "100000", *extra],
                   check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        doc = json.load(f)
    return {s["id"]: s for s in doc["sections"]}, doc


def check_traces(sections, models, tag):
    labels = {}
    for row in sections["run_summary"]["rows"]:
        labels[row["trace_id"]] = row["label"]
    step_rows = {(r["label"], r["step"]): r for r in sections["step_time"]["rows"]}
    by_label = {}
    for tid, m in models.items():
        label = labels[tid]
        by_label[label] = m
        window = 0
        for n in m.analysed:
            wall, busy, parts = m.breakdown(n)
            window += wall
            row = step_rows.get((label, n))
            if row is None:
                failures.append(f"{tag} {label} step {n}: missing from step_time")
                continue
            check(f"{tag} {label} step {n} wall_ns", row["wall_ns"], wall)
            check(f"{tag} {label} step {n} gpu_busy_ns", row["gpu_busy_ns"], busy)
            for col, lvl in (("kernel_ns", 1), ("memcpy_ns", 2), ("memset_ns", 3),
                             ("communication_ns", 4), ("runtime_ns", 5), ("dataloader_ns", 6),
                             ("cpu_ns", 7), ("other_ns", 8)):
                check(f"{tag} {label} step {n} {col}", row[col], parts[lvl])
        check(f"{tag} {label} analysed steps",
              sorted(k[1] for k in step_rows if k[0] == label), sorted(m.analysed))
        # GPU utilization of each device (streams together), over the spans.
        util = {r["device"]: r for r in sections.get("gpu_util", {}).get("rows", [])
                if r["label"] == label and r["stream"] == "all"}
        for dev in sorted({g["device"] for g in m.gpu}, key=str):
            busy = 0
            for n in m.analysed:
                a, b = m.spans[n]
                busy += union([(max(g["ts"], a), min(g["end"], b)) for g in m.gpu
                               if g["device"] == dev and g["ts"] < b and g["end"] > a])
            if busy:
                check(f"{tag} {label} device {dev} busy_ns", util.get(dev, {}).get("busy_ns"), busy)
                check(f"{tag} {label} device {dev} window_ns", util.get(dev, {}).get("window_ns"),
                      window)
    analysed = [(m, g) for m in models.values() for g in m.gpu if g["step"] in m.analysed]
    # Kernels launched in the analysed steps, by name.
    kernels = {}
    for _, g in analysed:
        if g["kind"] == "kernel":
            kernels.setdefault(g["name"], []).append(g["dur"])
    rows = {r["name"]: r for r in sections["gpu_kernel_sum"]["rows"]}
    check(f"{tag} kernel names", sorted(rows), sorted(kernels))
    for name, durs in kernels.items():
        r = rows.get(name, {})
        check(f"{tag} kernel {name[:40]} total", r.get("total_dur_ns"), sum(durs))
        check(f"{tag} kernel {name[:40]} instances", r.get("instances"), len(durs))
        check(f"{tag} kernel {name[:40]} min/max", (r.get("min_dur_ns"), r.get("max_dur_ns")),
              (min(durs), max(durs)))
    # Copies by direction.
    copies = {}
    for _, g in analysed:
        if g["kind"] == "memcpy":
            kind = next((k for k in ("HtoD", "DtoH", "DtoD", "HtoH", "PtoP") if k in g["name"]),
                        g["name"])
            c = copies.setdefault(kind, [0, 0, 0])
            c[0] += 1
            c[1] += int(g["bytes"] or 0)
            c[2] += g["dur"]
    rows = {r["copy_kind"]: r for r in sections.get("memcpy_sum", {}).get("rows", [])}
    for kind, (n, nbytes, dur) in copies.items():
        r = rows.get(kind, {})
        check(f"{tag} memcpy {kind}", (r.get("copies"), r.get("bytes"), r.get("total_dur_ns")),
              (n, nbytes, dur))
    # Host-blocking time: calls of the analysed steps clipped to the spans,
    # nested and concurrent calls counted once per trace; and the part of
    # it with no GPU work of that trace running (cudaStreamWaitEvent never
    # blocks the host, so it is not one of them).
    sync = idle = 0
    for m in models.values():
        if not m.gpu:  # no GPU: aten::item waits for nothing
            continue
        for n in m.analysed or []:
            a, b = m.spans[n]
            dtod = {g["corr"] for g in m.gpu if g["kind"] == "memcpy" and g["corr"] is not None
                    and ("DtoD" in g["name"] or "DeviceToDevice" in g["name"])}
            pageable = {g["corr"] for g in m.gpu if g["kind"] == "memcpy"
                        and g["corr"] is not None and "Pageable" in g["name"]}
            calls = [(max(c["ts"], a), min(c["end"], b)) for c in m.cpu
                     if (c["name"] in SYNC_NAMES
                         or (c["name"] in ASYNC_COPIES and c["corr"] in pageable))
                     and c["step"] in m.analysed
                     and not (c["name"] in SYNC_COPIES and c["corr"] in dtod)
                     and c["ts"] < b and c["end"] > a]
            gpu = [(max(g["ts"], a), min(g["end"], b)) for g in m.gpu
                   if g["ts"] < b and g["end"] > a]
            sync += union(calls)
            idle += union(calls) - intersect(calls, gpu)
    total = [r for r in sections.get("sync_sum", {}).get("rows", []) if r["name"].startswith("(all")]
    if sync:
        check(f"{tag} sync total", total[0]["total_dur_ns"] if total else None, sync)
        check(f"{tag} sync while GPU idle", total[0]["gpu_idle_ns"] if total else None, idle)
    # Collectives and their overlap with compute kernels, per trace and
    # device, on the analysed spans' timeline (issue 29): the kernels
    # running during the spans, whichever step launched them, clipped.
    comm_rows = {(r["label"], r["device"]): r for r in sections.get("communication", {}).get("rows", [])}
    for tid, m in models.items():
        devs = {}
        for g in m.gpu:
            if g["kind"] != "kernel":
                continue
            for n in m.analysed:
                a, b = m.spans[n]
                if g["ts"] < b and g["end"] > a:
                    devs.setdefault(g["device"], ([], []))[0 if is_comm(g["name"]) else 1].append(
                        (max(g["ts"], a), min(g["end"], b)))
        for dev, (comm, compute) in devs.items():
            if comm:
                r = comm_rows.get((labels[tid], dev), {})
                check(f"{tag} {labels[tid]} device {dev} comm", r.get("comm_ns"), union(comm))
                # Waiting for the last peer is split from transfer (issue
                # 23); only transfer counts as overlapped.  Without matched
                # peers everything is transfer: the whole overlap, and the
                # wait is unknown (empty), not 0.
                if r.get("unmatched_ns") == r.get("transfer_ns") and not r.get("wait_ns"):
                    check(f"{tag} {labels[tid]} device {dev} wait unknown without peers",
                          r.get("wait_ns"), None)
                    check(f"{tag} {labels[tid]} device {dev} overlap (no peers)",
                          r.get("overlapped_ns"), intersect(comm, compute))
                else:
                    check(f"{tag} {labels[tid]} device {dev} wait + transfer cover comm",
                          (r.get("wait_ns") or 0) + r.get("transfer_ns", 0) >= r.get("comm_ns", 0)
                          and r.get("overlapped_ns", 0) <= intersect(comm, compute)
                          and r.get("exposed_comm_ns") == r.get("transfer_ns", 0) - r.get("overlapped_ns", 0),
                          True)
    # Mean step per rank.
    if len(models) > 1:
        ranks = {r["label"]: r for r in sections["rank_sum"]["rows"]}
        for label, m in by_label.items():
            walls = [m.breakdown(n)[0] for n in m.analysed]
            if walls:
                check(f"{tag} {label} mean_wall_ns", ranks[label]["mean_wall_ns"],
                      int(Decimal(sum(walls)) / len(walls) + Decimal("0.5")))


def check_snapshot(sections, path, tag):
    snap = read_json(path)
    segments = snap["segments"] if isinstance(snap, dict) else snap
    devices = sorted({s.get("device", 0) for s in segments})
    summary = {r["device"]: r for r in sections["mem_summary"]["rows"]}
    for dev in devices:
        segs = [s for s in segments if s.get("device", 0) == dev]
        blocks = [b for s in segs for b in s["blocks"]]
        r = summary.get(dev, {})
        check(f"{tag} device {dev} reserved", r.get("reserved"), sum(s["total_size"] for s in segs))
        check(f"{tag} device {dev} allocated", r.get("allocated"),
              sum(b["size"] for b in blocks if b["state"] == "active_allocated"))
        check(f"{tag} device {dev} inactive", r.get("inactive"),
              sum(b["size"] for b in blocks if b["state"] == "inactive"))
        check(f"{tag} device {dev} segments", r.get("segments"), len(segs))
    peaks = {r["device"]: r for r in sections.get("mem_peak", {}).get("rows", [])}
    traces = snap.get("device_traces", []) if isinstance(snap, dict) else []
    for dev, trace in enumerate(traces):
        if not trace:
            continue
        baseline, timeline, *_ = reference(snap, dev)
        peak = max([baseline] + timeline)
        r = peaks.get(dev, {})
        check(f"{tag} device {dev} peak/baseline/end",
              (r.get("peak_allocated"), r.get("baseline"), r.get("end_allocated")),
              (peak, baseline, timeline[-1]))
        actions = {}
        for e in trace:
            actions[e["action"]] = actions.get(e["action"], 0) + 1
        got = {r["action"]: r["events"] for r in sections["mem_action_sum"]["rows"]
               if r["device"] == dev}
        check(f"{tag} device {dev} action counts", got, actions)


def check_diff(profdb, before, after, work, tag):
    """profdb diff: the mean step time and each kernel's time per step,
    before and after, against the two trace models."""
    out = os.path.join(work, tag + ".diff.json")
    subprocess.run([profdb, "diff", before, after, "--json", out, "--top", "100000"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        sections = {s["id"]: s for s in json.load(f)["sections"]}
    models = {"before": TraceModel(before), "after": TraceModel(after)}
    walls, kernels = {}, {}
    for side, m in models.items():
        w = [m.breakdown(n)[0] for n in m.analysed]
        walls[side] = Decimal(sum(w)) / len(w)
        for g in m.gpu:
            if g["kind"] == "kernel" and g["step"] in m.analysed:
                kernels.setdefault(g["name"], {"before": 0, "after": 0})[side] += g["dur"]
    mean = next(r for r in sections["step_time"]["rows"] if r["statistic"] == "mean")
    check(f"{tag} diff mean step (before, after)", (mean["before_ns"], mean["after_ns"]),
          (int(walls["before"] + Decimal("0.5")), int(walls["after"] + Decimal("0.5"))))
    rows = {r["kernel"]: r for r in sections["kernel"]["rows"] if r["matched_by"] == "name"}
    for name, t in kernels.items():
        if t["before"] and t["after"]:  # matched by name
            r = rows.get(name, {})
            per = {s: int(Decimal(t[s]) / len(models[s].analysed) + Decimal("0.5")) for s in t}
            check(f"{tag} diff kernel {name[:40]} per step", (r.get("before_ns"), r.get("after_ns"),
                  r.get("delta_ns")), (per["before"], per["after"], per["after"] - per["before"]))


def main():
    profdb, fixtures, data, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    inputs = [os.path.join(fixtures, f) for f in
              ("train_rank0.json", "train_rank1.json", "memory_snapshot.json")]
    sections, _ = report(profdb, inputs, work, "fixtures")
    check_traces(sections, {1: TraceModel(inputs[0]), 2: TraceModel(inputs[1])}, "fixtures")
    check_snapshot(sections, inputs[2], "fixtures")
    check_diff(profdb, inputs[0], os.path.join(fixtures, "after_rank0.json"), work, "fixtures")
    checked = 1
    if os.path.isdir(data):
        hta = os.path.join(data, "facebookresearch__HolisticTraceAnalysis")
        for name in ("control.json.gz", "test.json.gz", "rank0.json.gz",
                     "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "nccl_data.json.gz"):
            path = os.path.join(hta, name)
            if os.path.exists(path):
                sections, _ = report(profdb, [path], work, name)
                check_traces(sections, {1: TraceModel(path)}, name)
                checked += 1
        control, test = (os.path.join(hta, n) for n in ("control.json.gz", "test.json.gz"))
        if os.path.exists(control) and os.path.exists(test):
            check_diff(profdb, control, test, work, "hta_control_test")
        snap = os.path.join(data, "ZidongLiu__DeComFL", "memory.json.gz")
        if os.path.exists(snap):
            sections, _ = report(profdb, [snap], work, "decomfl")
            check_snapshot(sections, snap, "decomfl")
            checked += 1
    for f in failures:
        print("FAIL", f)
    print(f"{checked} report(s), {checks[0]} figures checked, {len(failures)} mismatch(es)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
