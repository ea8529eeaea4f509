#!/usr/bin/env python3
"""--scope hta reproduces HTA's own temporal breakdown arithmetic; the trace
scope keeps profdb's exact figures.  Hand-made fixtures, expected figures
worked out by hand below from HTA v0.6.0's rules (docs/definitions.md,
"Temporal breakdown"; queries/lib/11_hta.sql):

    check_hta_scope.py PROFDB WORK_DIR

Fixture "rounded" (a fractional timestamp, two ProfilerStep names), µs:
  ProfilerStep#1 [0, 100), ProfilerStep#2 [100, 200): HTA keeps the CPU
  events that start before 100 and the GPU events they launched.
  on stream 7:  gemm_kernel          [200, 250]      launched at 10   compute
                ncclDevKernel_...    [240, 270]      launched at 20   communication
                tiny_kernel          [300.4, 300.7]  launched at 30.5 compute
                late_kernel          [400, 500]      launched at 120  dropped (after 100)
                Memcpy HtoD          [280, 290]      launched at 40   memory
                Stream Sync          [290, 295]      (cuda_sync)      "Sync": not compute
  a CPU op with a stream arg: triton_poi_fused_0 [60, 64]             compute
  HTA rounds (ceil start, floor end): tiny_kernel -> [301, 300], backwards.
  Merge (a row joins when its start <= every earlier end): [60,64],
  [200,270], [280,295] (touching joins), [301,300]: window 300 - 60 = 240,
  busy 4 + 70 + 15 - 1 = 88, idle 152; compute merge [60,64], [200,250],
  [301,300]: 4 + 50 - 1 = 53; non-compute 240 - 53 - 152 = 35.
  -> idle 63.33 %, compute 22.08 %, non-compute 14.58 %.
  The trace scope (profdb's own): kernels, copies, fills only, exact ns:
  window [200, 500] = 300 us, busy 70 + 10 + 0.3 + 100 = 180.3, idle 119.7
  us; compute (kernels but collectives) 50 + 0.3 + 100 = 150.3 us.

Fixture "whole" (whole-µs timestamps, fractional durations, one step name):
  the same events with tiny_kernel at [300, 300.3] and its launch at 30;
  ProfilerStep#2 left out: HTA filters nothing, late_kernel counts; no
  rounding.  Groups [60,64], [200,270], [280,295], [300,300.3], [400,500]:
  window 440, busy 189.3, idle 250.7; compute 4 + 50 + 0.3 + 100 = 154.3;
  non-compute 35.  -> 56.98 / 35.07 / 7.95 %.

HTA v0.6.0 itself (get_temporal_breakdown) gives these same figures on both
fixtures.
"""
import json
import os
import subprocess
import sys

profdb, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
failures = []


def trace(rounded):
    launch3 = 30.5 if rounded else 30
    tiny = (300.4, 0.3) if rounded else (300, 0.3)
    ev = [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
         "ts": 0, "dur": 100},
        {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused_0", "pid": 1, "tid": 1,
         "ts": 60, "dur": 4, "args": {"stream": 7, "grid": [1, 1, 1]}},
    ]
    if rounded:
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1,
                   "tid": 1, "ts": 100, "dur": 100})
    launches = [(1, 10, "cudaLaunchKernel"), (2, 20, "cudaLaunchKernel"),
                (3, launch3, "cudaLaunchKernel"), (4, 120, "cudaLaunchKernel"),
                (5, 40, "cudaMemcpyAsync"), (6, 50, "cudaStreamSynchronize")]
    for corr, ts, name in launches:
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1,
                   "ts": ts, "dur": 60 if corr == 6 else 2,
                   "args": {"correlation": corr, "External id": corr}})
    gpu = [("kernel", "gemm_kernel", 200, 50, 1),
           ("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 240, 30, 2),
           ("kernel", "tiny_kernel", tiny[0], tiny[1], 3),
           ("kernel", "late_kernel", 400, 100, 4),
           ("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 280, 10, 5),
           ("cuda_sync", "Stream Sync", 290, 5, 6)]
    for cat, name, ts, dur, corr in gpu:
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts,
                   "dur": dur, "args": {"device": 0, "stream": 7, "correlation": corr,
                                        "External id": corr}})
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}],
            "traceEvents": ev}


def report(db, scope):
    out = subprocess.run([profdb, "report", db, "--scope", scope, "--json", "-"], check=True,
                         stdout=subprocess.PIPE).stdout
    rows = [s["rows"] for s in json.loads(out)["sections"] if s["id"] == "temporal_breakdown"]
    return rows[0] if rows else []


def expect(label, got, want):
    for key, value in want.items():
        if got.get(key) != value:
            failures.append(f"{label}: {key} = {got.get(key)}, expected {value}")


for name, rounded in (("rounded", True), ("whole", False)):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(trace(rounded), f)
    db = os.path.join(work, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([profdb, "load", "-q", path, "-o", db], check=True)
    rows = report(db, "hta")
    if len(rows) != 1:
        failures.append(f"{name}: {len(rows)} temporal_breakdown rows in the hta scope")
        continue
    if rounded:
        expect("rounded, hta", rows[0], {
            "kernel_time_ns": 240000, "idle_ns": 152000, "compute_ns": 53000,
            "non_compute_ns": 35000, "idle_pct": 63.33, "compute_pct": 22.08,
            "non_compute_pct": 14.58})
        mine = report(db, "trace")
        if len(mine) != 1:
            failures.append(f"rounded: {len(mine)} temporal_breakdown rows in the trace scope")
        else:
            expect("rounded, trace", mine[0], {
                "kernel_time_ns": 300000, "idle_ns": 119700, "compute_ns": 150300,
                "non_compute_ns": 30000})
    else:
        expect("whole, hta", rows[0], {
            "kernel_time_ns": 440000, "idle_ns": 250700, "compute_ns": 154300,
            "non_compute_ns": 35000, "idle_pct": 56.98, "compute_pct": 35.07,
            "non_compute_pct": 7.95})

for f in failures:
    print("FAIL", f)
print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
