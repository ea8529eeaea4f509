#!/usr/bin/env python3
"""critical_path: the longest path through HTA's critical-path graph
(docs/definitions.md, "Critical path").

    check_critical_path.py PROFDB WORK_DIR [PUBLIC_DIR REFERENCE_DIR]

Fixture "chain" (no ProfilerStep: the whole trace), one thread, µs:
  aten::foo [10, 30] launches K (cudaLaunchKernel [12, 16], correlation 1);
  K runs on stream 7 at [40, 90]; cudaStreamSynchronize [35, 95] waits for
  it (a "Stream Sync" cuda_sync event); aten::bar [100, 110].
  Path: foo's start -> launch call's start (2, cpu_op) -> K's start (28,
  launch) -> K's end (50, gpu) -> the sync's end (0, sync) -> bar's start
  (0, dependency) -> bar's end (10, cpu_op): 90 us, 6 edges; bar the top CPU contributor.  The host's
  own path (foo 20 us, the sync call weighing 0 as HTA's blocking calls do,
  bar 10 us) is 30 us.
Variants:
  "nosync": no cuda_sync event.  --scope hta (HTA needs the event): K's end
    is a dead end, the path stops there: 80 us.  profdb's default takes the
    sync call to wait for the GPU work that ended in it: 90 us.
  "graph": K launched by cudaGraphLaunch.  --scope hta (HTA counts no
    graph launch in the queue, so K has no launch edge): K [40, 90] then
    the sync and bar: 60 us.  Default: the launch edge again: 90 us.
  "ns": K at [40.25, 90.75] us: default 2,000 + 28,250 + 50,500 + 10,000 =
    90,750 ns exactly.

Fixture "backward" (HTA merges the backward thread into the forward one
when one thread has events named '...forward...' and another
'...autograd...'), µs: thread 1 aten::linear [10, 30] inside "## forward
##" and aten::add_ [80, 90]; thread 2 autograd::engine::evaluate_function
[40, 70] > aten::mm [45, 65] > cudaLaunchKernel [50, 55].  Merged, the
path runs linear -> the backward pass -> add_: 20 + 30 + 10 = 60 us in 9
edges (HTA's own result on this fixture); threads apart it was 30 us.
Fixture "hta_reading" (HTA's reading of a trace, --scope hta), µs from B =
1712195495603000: aten::foo [B+10, B+110] holds cudaLaunchKernel, a
triton_poi_fused_0 call with a "stream": 0 arg (GPU work to HTA, so not
on its call stack), a cudaGraphLaunch of kernel_a and kernel_b (HTA links
the launch to the last of them only) and aten::tiny [B+70.2, B+70.9]
(HTA's rounding leaves it -1 us long: dropped); aten::bar at B+120.1 for
10 us (the double nearest B+120.1 is B+120.0: HTA's [120, 130], not [121,
130]).  HTA (run on this fixture): 110 us in 7 edges, cpu_op 101, runtime
9; the default scope keeps every event: 260 us.

Fixture "job" (critical_path_job: two ranks of one run joined at their
all-reduce, no steps), µs: rank 0 aten::forward_a [0, 100] launches (at
85) its all-reduce kernel, which starts at 110 and ends at 200; rank 1
launches at 2 and its kernel runs [20, 201], waiting for rank 0 until
110; rank 1 then waits in cudaStreamSynchronize [30, 205] and runs
aten::optimizer_c [210, 400].  The job's path: rank 0's 85 us to the
launch, the 25 us launch delay, the barrier (rank 1's kernel end is its
91 us of transfer after the last arrival at 110), rank 1's sync, then
optimizer_c: 391 us over 2 ranks; rank 1's own path counts its kernel's
181 us whole (the waiting as NCCL time).  With --scope hta: no job path.

Public traces (when PUBLIC_DIR exists): with --scope hta the path, its
edges by type and their count equal HolisticTraceAnalysis' figures
(REFERENCE_DIR/critical_path/*.critical_path.json, made by
tools/hta_critical_path.py, and tests/report/data/hta_critical_path.json,
the same tool's output on every other public trace HTA runs on) at HTA's
µs, and the share of cpu_bound, gpu_compute_bound and the launch /
kernel-kernel overheads within 1e-6 %.
"""
import glob
import json
import os
import subprocess
import sys

profdb, work = sys.argv[1:3]
public = sys.argv[3] if len(sys.argv) > 3 else None
refdir = sys.argv[4] if len(sys.argv) > 4 else None
os.makedirs(work, exist_ok=True)
failures = []


def x(name, ts, dur, cat="cpu_op", **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
            "args": args}


def chain(sync=True, launch="cudaLaunchKernel", k_ts=40, k_dur=50):
    ev = [x("aten::foo", 10, 20), x(launch, 12, 4, "cuda_runtime", correlation=1),
          x("cudaStreamSynchronize", 35, 60, "cuda_runtime", correlation=2),
          x("aten::bar", 100, 10),
          {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7,
           "ts": k_ts, "dur": k_dur, "args": {"device": 0, "stream": 7, "correlation": 1}}]
    if sync:
        ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7,
                   "ts": 36, "dur": 59, "args": {"device": 0, "stream": 7, "correlation": 2}})
    return ev


def report(path, *args):
    out = subprocess.run([profdb, "report", path, "--section", "critical_path", *args, "--json", "-"],
                         check=True, stdout=subprocess.PIPE).stdout
    return [s for s in json.loads(out)["sections"] if s["id"] == "critical_path"][0]["rows"]


def fixture(name, events):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events,
                   "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]}, f)
    return path


def expect(what, rows, path_ns, kinds):
    got = {r["kind"]: r["ns"] for r in rows}
    paths = {r["path_ns"] for r in rows}
    if paths != {path_ns}:
        failures.append(f"{what}: path_ns {sorted(paths)}, expected {path_ns}")
    if got != kinds:
        failures.append(f"{what}: by kind {got}, expected {kinds}")


full = {"cpu_op": 12000, "launch": 28000, "gpu:GEMM": 50000, "sync": 0, "dependency": 0}
p = fixture("chain", chain())
expect("chain", report(p), 90000, full)
expect("chain --scope hta", report(p, "--scope", "hta"), 90000, full)
rows = report(p)
if sum(r["edges"] for r in rows) != 6:
    failures.append(f"chain: {sum(r['edges'] for r in rows)} edges, expected 6")
top = {r["kind"]: r["top"] for r in rows}
if top.get("cpu_op") != "aten::bar" or top.get("launch") != "ampere_sgemm_128x64_nn":
    failures.append(f"chain: top contributors {top}")
p = fixture("nosync", chain(sync=False))
expect("nosync --scope hta", report(p, "--scope", "hta"), 80000,
       {"cpu_op": 2000, "launch": 28000, "gpu:GEMM": 50000})
expect("nosync", report(p), 90000, full)
p = fixture("graph", chain(launch="cudaGraphLaunch"))
expect("graph --scope hta", report(p, "--scope", "hta"), 60000,
       {"gpu:GEMM": 50000, "cpu_op": 10000, "sync": 0, "dependency": 0})
expect("graph", report(p), 90000, full)
p = fixture("ns", chain(k_ts=40.25, k_dur=50.5))
expect("ns", report(p), 90750,
       {"cpu_op": 12000, "launch": 28250, "gpu:GEMM": 50500, "sync": 0, "dependency": 0})

def cx(name, ts, dur, cat="cpu_op", tid=1, **args):
    e = x(name, ts, dur, cat, **args)
    e["tid"] = tid
    return e


def kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}


p = fixture("backward", [
    cx("## forward ##", 5, 30, "user_annotation"), cx("aten::linear", 10, 20),
    cx("autograd::engine::evaluate_function: AddmmBackward0", 40, 30, tid=2),
    cx("aten::mm", 45, 20, tid=2), cx("cudaLaunchKernel", 50, 5, "cuda_runtime", tid=2, correlation=1),
    kernel("ampere_sgemm_64x64_nn", 58, 2, 1), cx("aten::add_", 80, 10)])
merged = {"cpu_op": 55000, "runtime": 5000, "dependency": 0}
for args in ((), ("--scope", "hta")):
    rows = report(p, *args)
    expect("backward " + " ".join(args), rows, 60000, merged)
    if sum(r["edges"] for r in rows) != 9:
        failures.append(f"backward {args}: {sum(r['edges'] for r in rows)} edges, expected 9")
B = 1712195495603000
p = fixture("hta_reading", [
    cx("aten::foo", B + 10, 100), cx("cudaLaunchKernel", B + 12, 4, "cuda_runtime", correlation=1),
    kernel("kernel_x", B + 40, 5, 1), cx("triton_poi_fused_0", B + 20, 30, stream=0),
    cx("cudaGraphLaunch", B + 60, 5, "cuda_runtime", correlation=9), cx("aten::tiny", B + 70.2, 0.7),
    kernel("kernel_a", B + 100, 3, 9), kernel("kernel_b", B + 104, 2, 9), cx("aten::bar", B + 120.1, 10),
    cx("cudaDeviceSynchronize", B + 150.1, 150, "cuda_runtime", correlation=10)])
rows = report(p, "--scope", "hta")
expect("hta_reading --scope hta", rows, 110000, {"cpu_op": 101000, "runtime": 9000, "dependency": 0})
if sum(r["edges"] for r in rows) != 7:
    failures.append(f"hta_reading --scope hta: {sum(r['edges'] for r in rows)} edges, expected 7")
if {r["path_ns"] for r in report(p)} != {260000}:
    failures.append(f"hta_reading: path {sorted({r['path_ns'] for r in report(p)})}, expected 260000")

AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"


def rank_file(rank, events):
    path = os.path.join(work, f"job_rank{rank}.json")
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events,
                   "distributedInfo": {"rank": rank, "world_size": 2},
                   "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]}, f)
    return path


job = os.path.join(work, "job.db")
if os.path.exists(job):
    os.remove(job)
subprocess.run([profdb, "load", "-q",
                rank_file(0, [cx("aten::forward_a", 0, 100),
                              cx("cudaLaunchKernel", 85, 5, "cuda_runtime", correlation=1),
                              kernel(AR, 110, 90, 1)]),
                rank_file(1, [cx("aten::forward_b", 0, 10),
                              cx("cudaLaunchKernel", 2, 5, "cuda_runtime", correlation=1),
                              kernel(AR, 20, 181, 1),
                              cx("cudaStreamSynchronize", 30, 175, "cuda_runtime", correlation=2),
                              cx("aten::optimizer_c", 210, 190)]), "-o", job], check=True)


def job_rows(*args):
    out = subprocess.run([profdb, "report", job, "--section", "critical_path_job", *args, "--json", "-"],
                         check=True, stdout=subprocess.PIPE).stdout
    return [s for s in json.loads(out)["sections"] if s["id"] == "critical_path_job"][0]["rows"]


rows = job_rows()
got = {(r["rank"], r["kind"]): r["ns"] for r in rows if r["ns"]}
want = {(0, "cpu_op"): 85000, (0, "launch"): 25000, (1, "gpu:NCCL/communication"): 91000,
        (1, "cpu_op"): 190000}
if got != want or {(r["path_ns"], r["ranks"]) for r in rows} != {(391000, 2)}:
    failures.append(f"job: path {sorted({(r['path_ns'], r['ranks']) for r in rows})}, by rank and kind "
                    f"{got}, expected 391000 over 2 ranks, {want}")
own = {r["kind"]: r["ns"] for r in report(job) if r["rank"] == 1}
if own.get("gpu:NCCL/communication") != 181000:
    failures.append(f"job: rank 1's own path {own}, expected its all-reduce's 181000 ns whole")
if job_rows("--scope", "hta"):
    failures.append("job --scope hta: a job path, expected none (HTA has none)")

# On demand (lib/60 and 61 say "-- On demand: report_cp_path"): a report of
# sections that do not read the path does not build it; one that does, does.
def libs_run(path, *args):
    err = subprocess.run([profdb, "report", path, *args, "--json", os.devnull],
                         env=dict(os.environ, PROFDB_TIMING="1"), check=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    return {f for f in ("60_critical_path.sql", "61_critical_path_edges.sql") if f in err}


p = fixture("chain", chain())
for args, want in ((("--section", "gpu_idle"), set()),
                   (("--section", "critical_path"), {"60_critical_path.sql", "61_critical_path_edges.sql"}),
                   ((), {"60_critical_path.sql", "61_critical_path_edges.sql"})):
    if libs_run(p, *args) != want:
        failures.append(f"report {' '.join(args) or '(all sections)'}: ran {sorted(libs_run(p, *args))}, "
                        f"expected {sorted(want)}")

TYPE = {"launch": "critical_path_kernel_launch_delay", "kernel_kernel": "critical_path_kernel_kernel_delay",
        "sync": "critical_path_sync_dependency", "dependency": "critical_path_dependency"}
BOUND = {"launch": "gpu_kernel_launch_overhead", "kernel_kernel": "gpu_kernel_kernel_overhead"}
checked = 0
refs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(refdir or "", "critical_path",
                                                                "*.critical_path.json")))]
refs += json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                                    "hta_critical_path.json")))["references"]
for r in refs:
    if not public or not os.path.isdir(public):
        break
    if "error" in r or any("error" in s for s in r["steps"]):
        continue
    # (the tool names a trace by its folder and file name joined with "__")
    cands = [c for c in glob.glob(os.path.join(public, "**", "*"), recursive=True)
             if "__".join(os.path.abspath(c).split(os.sep)[-2:]) == r["input"]]
    if len(cands) != 1:
        failures.append(f"{r['input']}: {len(cands)} public files match")
        continue
    rows = report(cands[0], "--scope", "hta")
    for st in r["steps"]:
        mine = [x for x in rows if st["instance"] is None or x["step"] == r["profiler_steps"][st["instance"]]]
        by, bound, n = {}, {}, 0
        for x in mine:
            t = TYPE.get(x["kind"], "critical_path_operator")
            by[t] = by.get(t, 0) + x["ns"]
            # (HTA's communication kernels: names nccl*, hip*, hccl*, *ncclKernel*)
            b = BOUND.get(x["kind"], "gpu_communication_bound" if x["kind"] == "gpu:NCCL/communication"
                          else "gpu_compute_bound" if x["kind"].startswith("gpu:") else "cpu_bound")
            if x["kind"] not in ("sync", "dependency"):
                bound[b] = bound.get(b, 0) + x["ns"]
            n += x["edges"]
        what = f"{r['input']} step {st['instance']}"
        path = mine[0]["path_ns"] if mine else None
        if path is None or path / 1000 != st["path_us"] or n != st["edges"]:
            failures.append(f"{what}: path {path} ns in {n} edges, HTA {st['path_us']} us in {st['edges']}")
        for t, us in st["edges_by_type_us"].items():
            if by.get(t, 0) / 1000 != us:
                failures.append(f"{what}: {t} {by.get(t, 0)} ns, HTA {us} us")
        for b, pct in st["summary_pct"].items():
            if b and abs(100.0 * bound.get(b, 0) / path - pct) > 1e-6:
                failures.append(f"{what}: {b} {100.0 * bound.get(b, 0) / path}%, HTA {pct}%")
        checked += 1
if public and os.path.isdir(public) and refdir and checked < 59:
    failures.append(f"{checked} public spans compared with HTA, expected 59")
print(f"critical_path: {checked} public spans compared with HTA's" if checked else "critical_path: no public data; public part skipped")
for f in failures:
    print("FAIL", f)
print("critical_path:", "FAIL" if failures else "ok")
sys.exit(1 if failures else 0)
