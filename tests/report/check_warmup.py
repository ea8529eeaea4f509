#!/usr/bin/env python3
"""Warm-up choice: the first ProfilerStep is excluded only when a later
step can stand in for it.

    check_warmup.py PROFDB PUBLIC_DIR WORK_DIR

  * two steps, the second a 49 us stub without GPU work: both analysed,
    the first step's kernel counted (it would be lost otherwise);
  * three steps with GPU work in each: the first is excluded (warm-up);
  * HTA's mi250_minitoy_train trace (when the public data exists): its
    16 GPU activities are analysed by default.
Fixtures are written to WORK_DIR at test time.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import check, finish  # noqa: E402

profdb, public, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)


def trace(steps):
    """steps: [(start_us, dur_us, with_kernel)]"""
    ev, corr = [], 10
    for i, (ts, dur, kernel) in enumerate(steps):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}", "pid": 1,
                   "tid": 1, "ts": ts, "dur": dur})
        if kernel:
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": ts + 5, "dur": 5, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7,
                       "ts": ts + 20, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": corr}})
    return {"schemaVersion": 1, "traceEvents": ev}


def report(path):
    out = subprocess.run([profdb, "report", path, "--json", "-"], check=True, stdout=subprocess.PIPE).stdout
    doc = json.loads(out)
    return doc["scope"], {s["id"]: s["rows"] for s in doc["sections"]}


stub = os.path.join(work, "stub.json")
with open(stub, "w") as f:
    json.dump(trace([(1000, 9000, True), (10000, 49, False)]), f)
scope, sec = report(stub)
check("stub second step: both steps analysed", "steps 1-2 analysed (2)" in scope and "warm-up" not in scope)
check("stub second step: the first step's kernel is counted",
      sum(r["instances"] for r in sec["gpu_kernel_sum"]) == 1)

three = os.path.join(work, "three.json")
with open(three, "w") as f:
    json.dump(trace([(1000, 1000, True), (2000, 1000, True), (3000, 1000, True)]), f)
scope, sec = report(three)
check("three steps with GPU work: the first is warm-up", "step 1 excluded as warm-up" in scope)
check("three steps: two kernels counted", sum(r["instances"] for r in sec["gpu_kernel_sum"]) == 2)

mi250 = os.path.join(public, "facebookresearch__HolisticTraceAnalysis",
                     "mi250_minitoy_train_ROCm6_2_kineto.json.gz")
if os.path.exists(mi250):
    scope, sec = report(mi250)
    check("mi250_minitoy_train: GPU work analysed by default", len(sec["gpu_kernel_sum"]) > 0)
else:
    print("skip mi250_minitoy_train: no public data")
finish()
