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
"backward_tid0": thread 1's id 0: with --scope hta no merge (30 us, HTA's
result: it tests the ids for truth), the default merges (60 us).
Fixture "hta_reading" (HTA's reading of a trace, --scope hta), µs from B =
1712195495603000: aten::foo [B+10, B+110] holds cudaLaunchKernel, a
triton_poi_fused_0 call with a "stream": 0 arg (GPU work to HTA, so not
on its call stack), a cudaGraphLaunch of kernel_a and kernel_b (HTA links
the launch to the last of them only) and aten::tiny [B+70.2, B+70.9]
(HTA's rounding leaves it -1 us long: dropped); aten::bar at B+120.1 for
10 us (the double nearest B+120.1 is B+120.0: HTA's [120, 130], not [121,
130]).  HTA (run on this fixture): 110 us in 7 edges, cpu_op 101, runtime
9; the default scope keeps every event: 260 us.

Fixtures "job", "job_gap", "job_lock" (critical_path_job: two ranks of
one run, no steps), µs.  "job": rank 0 aten::forward_a [0, 100] launches
(at 85) its all-reduce kernel, which runs [110, 200]; rank 1 runs
aten::forward_b [0, 5], then (after a gap) launches at 15 its kernel,
which runs [20, 201], waiting for rank 0 until 110; rank 1 then waits in
cudaStreamSynchronize [30, 205] and runs aten::optimizer_c [210, 400].
The barrier is reached at 85 + 25 = 110 along rank 0's work (rank 1's
work and wait give 5 + 5 + 90 = 100), then rank 1's 91 us of transfer,
its sync and optimizer_c: 391 us over 2 ranks; rank 1's own path counts
its kernel's 181 us whole.  "job_gap": rank 0's aten::forward_a ends at
50 and its launch at 85 is top-level, so its lateness lies in a gap the
graph weighs 0 (50 + 25 = 75): the path takes rank 1's 90 us wait
(collective_wait), 381 us on rank 1 alone.  "job_lock" (no collectives):
rank 0 a cudaLaunchKernel [9, 10] then aten::a [10, 200]; rank 1 aten::b
[0, 150] holding a cudaLaunchKernel [8, 100]: each rank's runtime lock is
its own, so the job's path is rank 0's 191 us (one lock for both would
join rank 1's first 8 us to it: 198).  "job_cycle": rank 0's all-reduce
[10, 110] and all-gather [60, 75] overlap on one stream (a kernel_kernel
edge back in time); rank 1 runs the all-gather [70, 80] then the
all-reduce [85, 105]: through the two barriers the back edge would close
a cycle, which would fail the whole report; the job's graph drops edges
that run back in time, so the report succeeds.  With --scope hta: no job
path.

Public traces (when PUBLIC_DIR exists): with --scope hta the path, its
edges by type and their count equal HolisticTraceAnalysis' figures
(REFERENCE_DIR/critical_path/*.critical_path.json, made by
tools/hta_critical_path.py, and tests/report/data/hta_critical_path.json,
the same tool's output on every other public trace HTA runs on) at HTA's
µs, and the share of cpu_bound, gpu_compute_bound and the launch /
kernel-kernel overheads within 1e-6 %.  The same, always, on the real CUDA
traces of tests/cuda (PyTorch 2.11: their last step as HTA filters it, the
waits that name no record), against tests/cuda/hta.
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


def x(name, ts, dur, cat="cpu_op", tid=1, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
            "args": args}


def chain(sync=True, launch="cudaLaunchKernel", k_ts=40, k_dur=50, sync_ts=35, sync_dur=60):
    ev = [x("aten::foo", 10, 20), x(launch, 12, 4, "cuda_runtime", correlation=1),
          x("cudaStreamSynchronize", sync_ts, sync_dur, "cuda_runtime", correlation=2),
          x("aten::bar", 100, 10),
          {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7,
           "ts": k_ts, "dur": k_dur, "args": {"device": 0, "stream": 7, "correlation": 1}}]
    if sync:
        ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7,
                   "ts": sync_ts + 1, "dur": sync_dur - 1,
                   "args": {"device": 0, "stream": 7, "correlation": 2}})
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
# without --scope hta the sync's return after the kernel ended (5 us) is
# the call's own time, on the path (HTA's sync edge weighs 0)
returned = {"cpu_op": 12000, "launch": 28000, "gpu:GEMM": 50000, "runtime": 5000, "dependency": 0}
p = fixture("chain", chain())
expect("chain", report(p), 95000, returned)
expect("chain --scope hta", report(p, "--scope", "hta"), 90000, full)
rows = report(p)
if sum(r["edges"] for r in rows) != 6:
    failures.append(f"chain: {sum(r['edges'] for r in rows)} edges, expected 6")
top = {r["kind"]: r["top"] for r in rows}
if top.get("cpu_op") != "aten::bar" or top.get("launch") != "ampere_sgemm_128x64_nn":
    failures.append(f"chain: top contributors {top}")
# a sync [92, 96] after the kernel ended (90): its own 4 us, not the 6 since
p = fixture("late_sync", chain(sync_ts=92, sync_dur=4))
expect("late_sync", report(p), 94000,
       {"cpu_op": 12000, "launch": 28000, "gpu:GEMM": 50000, "runtime": 4000, "dependency": 0})
p = fixture("nosync", chain(sync=False))
expect("nosync --scope hta", report(p, "--scope", "hta"), 80000,
       {"cpu_op": 2000, "launch": 28000, "gpu:GEMM": 50000})
expect("nosync", report(p), 95000, returned)
p = fixture("graph", chain(launch="cudaGraphLaunch"))
expect("graph --scope hta", report(p, "--scope", "hta"), 60000,
       {"gpu:GEMM": 50000, "cpu_op": 10000, "sync": 0, "dependency": 0})
expect("graph", report(p), 95000, returned)
p = fixture("ns", chain(k_ts=40.25, k_dur=50.5))
expect("ns", report(p), 95000,
       {"cpu_op": 12000, "launch": 28250, "gpu:GEMM": 50500, "runtime": 4250, "dependency": 0})

def kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}




p = fixture("backward", [
    x("## forward ##", 5, 30, "user_annotation"), x("aten::linear", 10, 20),
    x("autograd::engine::evaluate_function: AddmmBackward0", 40, 30, tid=2),
    x("aten::mm", 45, 20, tid=2), x("cudaLaunchKernel", 50, 5, "cuda_runtime", tid=2, correlation=1),
    kernel("ampere_sgemm_64x64_nn", 58, 2, 1), x("aten::add_", 80, 10)])
merged = {"cpu_op": 55000, "runtime": 5000, "dependency": 0}
for args in ((), ("--scope", "hta")):
    rows = report(p, *args)
    expect("backward " + " ".join(args), rows, 60000, merged)
    if sum(r["edges"] for r in rows) != 9:
        failures.append(f"backward {args}: {sum(r['edges'] for r in rows)} edges, expected 9")
# the same with the forward thread's id 0: HTA tests the ids for truth and
# merges nothing (its own result on this fixture: 30 us), the default merges
p = fixture("backward_tid0", [dict(e, tid=0) if e["tid"] == 1 else e for e in json.load(
    open(os.path.join(work, "backward.json")))["traceEvents"]])
for args, want in (((), 60000), (("--scope", "hta"), 30000)):
    if {r["path_ns"] for r in report(p, *args)} != {want}:
        failures.append(f"backward_tid0 {args}: path {sorted({r['path_ns'] for r in report(p, *args)})}, "
                        f"expected {want}")
B = 1712195495603000
p = fixture("hta_reading", [
    x("aten::foo", B + 10, 100), x("cudaLaunchKernel", B + 12, 4, "cuda_runtime", correlation=1),
    kernel("kernel_x", B + 40, 5, 1), x("triton_poi_fused_0", B + 20, 30, stream=0),
    x("cudaGraphLaunch", B + 60, 5, "cuda_runtime", correlation=9), x("aten::tiny", B + 70.2, 0.7),
    kernel("kernel_a", B + 100, 3, 9), kernel("kernel_b", B + 104, 2, 9), x("aten::bar", B + 120.1, 10),
    x("cudaDeviceSynchronize", B + 150.1, 150, "cuda_runtime", correlation=10)])
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


def job_db(name, rank0, rank1):
    db = os.path.join(work, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([profdb, "load", "-q", rank_file(0, rank0), rank_file(1, rank1), "-o", db],
                   check=True)
    return db


def job_rows(db, *args):
    out = subprocess.run([profdb, "report", db, "--section", "critical_path_job", *args, "--json", "-"],
                         check=True, stdout=subprocess.PIPE).stdout
    return [s for s in json.loads(out)["sections"] if s["id"] == "critical_path_job"][0]["rows"]


def expect_job(what, rows, path_ns, ranks, want):
    got = {(r["rank"], r["kind"]): r["ns"] for r in rows if r["ns"]}
    if got != want or {(r["path_ns"], r["ranks"]) for r in rows} != {(path_ns, ranks)}:
        failures.append(f"{what}: path {sorted({(r['path_ns'], r['ranks']) for r in rows})}, by rank "
                        f"and kind {got}, expected {path_ns} over {ranks} rank(s), {want}")


late = [x("aten::forward_b", 0, 5), x("cudaLaunchKernel", 15, 2, "cuda_runtime", correlation=1),
        kernel(AR, 20, 181, 1), x("cudaStreamSynchronize", 30, 175, "cuda_runtime", correlation=2),
        x("aten::optimizer_c", 210, 190)]
def early(work_us):
    """Rank 0: aten::forward_a [0, work_us], then (inside it or after a gap)
    its all-reduce launched at 85, running [110, 200]."""
    return [x("aten::forward_a", 0, work_us), x("cudaLaunchKernel", 85, 5, "cuda_runtime", correlation=1),
            kernel(AR, 110, 90, 1)]


job = job_db("job", early(100), late)
expect_job("job", job_rows(job), 395000, 2,
           {(0, "cpu_op"): 85000, (0, "launch"): 25000, (1, "gpu:NCCL/communication"): 91000,
            (1, "runtime"): 4000, (1, "cpu_op"): 190000})
own = {r["kind"]: r["ns"] for r in report(job) if r["rank"] == 1}
if own.get("gpu:NCCL/communication") != 181000:
    failures.append(f"job: rank 1's own path {own}, expected its all-reduce's 181000 ns whole")
if job_rows(job, "--scope", "hta"):
    failures.append("job --scope hta: a job path, expected none (HTA has none)")
gap = job_db("job_gap", early(50), late)
expect_job("job_gap", job_rows(gap), 385000, 1,
           {(1, "cpu_op"): 195000, (1, "launch"): 5000, (1, "collective_wait"): 90000,
            (1, "gpu:NCCL/communication"): 91000, (1, "runtime"): 4000})
AG = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
cyc = job_db("job_cycle", [x("aten::f", 0, 9), x("cudaLaunchKernel", 1, 1, "cuda_runtime", correlation=1),
                           x("cudaLaunchKernel", 2, 1, "cuda_runtime", correlation=2),
                           kernel(AR, 10, 100, 1), kernel(AG, 60, 15, 2)],
             [x("aten::g", 0, 9), x("cudaLaunchKernel", 4, 1, "cuda_runtime", correlation=1),
              x("cudaLaunchKernel", 5, 1, "cuda_runtime", correlation=2),
              kernel(AG, 70, 10, 1), kernel(AR, 85, 20, 2)])
p = subprocess.run([profdb, "report", cyc, "--json", os.devnull], stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True)
if p.returncode != 0 or not job_rows(cyc):
    failures.append(f"job_cycle: report exit {p.returncode} ({p.stderr.strip()[:120]}), expected 0 "
                    "and a job path")
lock = job_db("job_lock", [x("cudaLaunchKernel", 9, 1, "cuda_runtime", correlation=1),
                           x("aten::a", 10, 190)],
              [x("aten::b", 0, 150), x("cudaLaunchKernel", 8, 92, "cuda_runtime", correlation=1)])
if {r["path_ns"] for r in job_rows(lock)} != {191000}:
    failures.append(f"job_lock: path {sorted({r['path_ns'] for r in job_rows(lock)})}, expected "
                    "191000 (each rank's runtime lock its own)")

# On demand (lib/60 and 61 say "-- On demand: report_cp_path report_cp_path_sum"):
# a report of sections that do not read the path does not build it; one that does, does.
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


# Spans where HTA's queue length orders a launch and a GPU start at the same
# µs by pandas' unstable sort (trace_counters.py sort_values("ts")): no rule
# gives its order, profdb counts the launch first; printed, not compared.
# gpu_bound's first step: HTA puts its first Memset's start (µs 219) before
# the next launch, so a launch edge (19 us) and the CPU op before it (124 us)
# lead its path: 3093 us to profdb's 2950.  cudnn_cold_steps' first step:
# 32 such ties, HTA's order mixed (numpy's quicksort, machine-dependent with
# its SIMD sorts): 766,594 us in 3,387 edges to profdb's 766,615 in 3,381.
HTA_TIES = {("cuda__gpu_bound.pt.trace.json.gz", 0), ("cuda__cudnn_cold_steps.pt.trace.json.gz", 0)}


def compare_with_hta(refs, folder):
    """The spans of each reference whose trace is in folder: the number compared."""
    checked = 0
    for r in refs:
        if "error" in r or any("error" in s for s in r["steps"]):
            continue
        # (the tool names a trace by its folder and file name joined with "__")
        cands = [c for c in glob.glob(os.path.join(folder, "**", "*"), recursive=True)
                 if "__".join(os.path.abspath(c).split(os.sep)[-2:]) == r["input"]]
        if len(cands) != 1:
            failures.append(f"{r['input']}: {len(cands)} files match in {folder}")
            continue
        rows = report(cands[0], "--scope", "hta")
        for st in r["steps"]:
            if (r["input"], st["instance"]) in HTA_TIES:
                print(f"critical_path: {r['input']} step {st['instance']}: HTA's order of a tie, not compared")
                continue
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
    return checked


here = os.path.dirname(os.path.abspath(__file__))
refs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(refdir or "", "critical_path",
                                                                "*.critical_path.json")))]
refs += json.load(open(os.path.join(here, "data", "hta_critical_path.json")))["references"]
checked = compare_with_hta(refs, public) if public and os.path.isdir(public) else 0
# The CUDA fixtures recorded with PyTorch 2.11 (tests/cuda/README.md), always.
cuda = os.path.join(here, "..", "cuda")
cuda_checked = compare_with_hta([json.load(open(f)) for f in sorted(
    glob.glob(os.path.join(cuda, "hta", "*.critical_path.json")))], cuda)
if cuda_checked < 34:
    failures.append(f"{cuda_checked} spans of tests/cuda compared with HTA, expected 34")
print(f"critical_path: {cuda_checked} spans of tests/cuda compared with HTA's")
if public and os.path.isdir(public) and refdir and checked < 59:
    failures.append(f"{checked} public spans compared with HTA, expected 59")
print(f"critical_path: {checked} public spans compared with HTA's" if checked else "critical_path: no public data; public part skipped")
for f in failures:
    print("FAIL", f)
print("critical_path:", "FAIL" if failures else "ok")
sys.exit(1 if failures else 0)
