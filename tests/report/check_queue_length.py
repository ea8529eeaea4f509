#!/usr/bin/env python3
"""queue_length: launched-not-yet-started GPU work per stream, on hand-made
traces with expected figures worked out by hand (docs/definitions.md,
"Queue length"):

    check_queue_length.py PROFDB WORK_DIR

Fixture "basic" (no ProfilerStep: the whole trace), µs:
  stream 7: cudaLaunchKernel at 10, 12, 14, 30; kernels start at 20, 25, 30,
    40.  Changes: +1@10 -> 1, +1@12 -> 2, +1@14 -> 3, -1@20 -> 2, -1@25 -> 1,
    then at 30 the launch goes before the start: +1 -> 2, -1 -> 1; -1@40 -> 0.
    Samples 1 2 3 2 1 2 1 0: mean 12/8 = 1.5, median 1.5, p95 (position 6.65
    of the sorted 0 1 1 1 2 2 2 3) 2.65, max 3; queued [10, 40) = 30 us.
    The other order at 30 (-1 -> 0, +1 -> 1): samples 1 2 3 2 1 0 1 0,
    mean_queue_low 10/8 = 1.25.
  stream 8: a cudaGraphLaunch at 40 whose two kernels start at 50 and 52,
    a cudaMemcpyAsync at 41 whose copy starts at 55.  Samples 1 2 3 2 1 0:
    launched 3, 2 of them by the graph, mean 1.5, max 3, queued 15 us.
  With --scope hta (HTA drops graph launches): stream 8 holds the copy
    only: launched 1, samples 1 0, mean 0.5, max 1; stream 7 unchanged.

Fixture "full" (stream 9), ns: 1,030 cudaLaunchKernel 10 ns apart from
  100,000; the kernels run one per µs from 200,000.  1,024 are queued from
  the 1,024th launch (110,230) to the 7th kernel's start (206,000):
  full_ns 95,770; max 1,030.
"""
import json
import os
import subprocess
import sys

profdb, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
failures = []


def launch(corr, ts, name="cudaLaunchKernel", dur=1):
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts,
            "dur": dur, "args": {"correlation": corr}}


def work_on(stream, corr, ts, dur, cat="kernel", name="k"):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": stream, "correlation": corr}}


def basic():
    ev = [launch(1, 10), launch(2, 12), launch(3, 14), launch(4, 30, dur=0.5),
          work_on(7, 1, 20, 5), work_on(7, 2, 25, 5), work_on(7, 3, 30, 5), work_on(7, 4, 40, 1),
          launch(10, 40, "cudaGraphLaunch", 0.5), launch(11, 41, "cudaMemcpyAsync"),
          work_on(8, 10, 50, 2), work_on(8, 10, 52, 2),
          work_on(8, 11, 55, 1, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)")]
    return ev


def full():
    ev = []
    for i in range(1030):
        ev.append(launch(100 + i, (100000 + 10 * i) / 1000, dur=0.005))
        ev.append(work_on(9, 100 + i, 200 + i, 1))
    return ev


def rows(name, events, *args):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events,
                   "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]}, f)
    db = os.path.join(work, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([profdb, "load", "-q", path, "-o", db], check=True)
    out = subprocess.run([profdb, "report", db, *args, "--json", "-"], check=True,
                         stdout=subprocess.PIPE).stdout
    sec = {s["id"]: s["rows"] for s in json.loads(out)["sections"]}
    return {r["stream"]: r for r in sec.get("queue_length", [])}


def expect(what, got, want):
    for k, v in want.items():
        if got is None or got.get(k) != v:
            failures.append(f"{what}: {k} = {None if got is None else got.get(k)}, expected {v}")


ql = rows("basic", basic())
expect("basic stream 7", ql.get(7), {"launched": 4, "graph_launched": 0, "mean_queue": 1.5,
       "mean_queue_low": 1.25, "p50_queue": 1.5, "p95_queue": 2.65, "max_queue": 3, "queued_ns": 30000, "full_ns": 0})
expect("basic stream 8", ql.get(8), {"launched": 3, "graph_launched": 2, "mean_queue": 1.5,
       "p50_queue": 1.5, "max_queue": 3, "queued_ns": 15000, "full_ns": 0})
ql = rows("basic", basic(), "--scope", "hta")
expect("hta stream 7", ql.get(7), {"launched": 4, "mean_queue": 1.5, "max_queue": 3})
expect("hta stream 8", ql.get(8), {"launched": 1, "graph_launched": 0, "mean_queue": 0.5,
       "max_queue": 1, "queued_ns": 14000})
ql = rows("full", full())
expect("full stream 9", ql.get(9), {"launched": 1030, "max_queue": 1030, "full_ns": 95770})
for f in failures:
    print("FAIL", f)
print("queue_length:", "FAIL" if failures else "ok")
sys.exit(1 if failures else 0)
