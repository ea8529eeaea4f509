#!/usr/bin/env python3
"""Benchmark the SQL extension on synthetic data (not a test).

    ext_bench.py PROFDB PROFDB_SO WORK_DIR [--events N] [--kernels N]

* Peak replay: a snapshot whose device trace holds N alloc/free_requested/
  free_completed events (default 1,000,000) over a working set of reused
  addresses, plus segment events; times mem_peak (two passes over the
  events) and a full mem_timeline scan.
* kernel_category: a trace with N kernel events (default 1,000,000) whose
  names cycle through realistic kernel names (GEMM, conv, NCCL, elementwise
  with long templated names); times the GROUP BY kernel_category(name)
  query and, as its baseline, the same GROUP BY on the raw name.
Prints a Markdown table.  Times are wall seconds of the SQL statement only
(best of 3), measured with Python's sqlite3 and the loadable extension.
"""
import json
import os
import random
import sqlite3
import subprocess
import sys
import time


def write_snapshot(path, n_events):
    rng = random.Random(1)
    live = {}
    addrs = [0x7F0000000000 + i * 0x100000 for i in range(4096)]
    with open(path, "w") as f:
        f.write('{"segments": [{"device": 0, "address": %d, "total_size": %d,'
                ' "allocated_size": 0, "active_size": 0, "requested_size": 0, "stream": 0,'
                ' "segment_type": "large", "blocks": [{"address": %d, "size": %d,'
                ' "requested_size": 0, "state": "inactive"}]}],'
                ' "device_traces": [[' % (addrs[0], 4096 * 0x100000, addrs[0], 4096 * 0x100000))
        f.write('{"action": "segment_alloc", "addr": %d, "size": %d, "stream": 0}'
                % (addrs[0], 4096 * 0x100000))
        written = 1
        while written < n_events:
            a = rng.choice(addrs)
            if a in live:
                size = live.pop(a)
                f.write(',{"action": "free_requested", "addr": %d, "size": %d, "stream": 0}' % (a, size))
                f.write(',{"action": "free_completed", "addr": %d, "size": %d, "stream": 0}' % (a, size))
                written += 2
            else:
                size = rng.randint(1, 0x100000)
                live[a] = size
                f.write(',{"action": "alloc", "addr": %d, "size": %d, "stream": 0}' % (a, size))
                written += 1
        f.write("]]}")
    return written


KERNELS = [
    "volta_sgemm_128x64_nn",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
    "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*)",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,"
    " at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<"
    "float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda("
    "float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float>)" * 3,
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4>>(Params)",
    "triton_poi_fused_addmm_gelu_view_15",
]


def write_trace(path, n):
    with open(path, "w") as f:
        f.write('{"traceEvents": [')
        for i in range(n):
            name = KERNELS[i % len(KERNELS)] + ("" if i % 7 else " #%d" % (i % 1000))
            f.write('%s{"ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": 7,'
                    ' "ts": %d, "dur": 3, "args": {"device": 0, "stream": 7}}'
                    % ("," if i else "", json.dumps(name), i * 4))
        f.write("]}")


def best_of(con, sql, runs=3):
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        con.execute(sql).fetchall()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best


def main():
    profdb, so, work = sys.argv[1:4]
    args = sys.argv[4:]
    n_events = int(args[args.index("--events") + 1]) if "--events" in args else 1_000_000
    n_kernels = int(args[args.index("--kernels") + 1]) if "--kernels" in args else 1_000_000
    os.makedirs(work, exist_ok=True)
    snap, trace, db = (os.path.join(work, x) for x in ("snap.json", "kernels.json", "ext.db"))
    events = write_snapshot(snap, n_events)
    write_trace(trace, n_kernels)
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([profdb, "load", "-q", snap, trace, "-o", db], check=True)
    con = sqlite3.connect(db)
    con.enable_load_extension(True)
    con.load_extension(so)
    rows = [
        ("mem_peak(1, 0), %d events" % events, best_of(con, "SELECT * FROM mem_peak(1, 0)")),
        ("mem_timeline(1, 0) full scan, %d events" % events,
         best_of(con, "SELECT max(allocated), count(*) FROM mem_timeline(1, 0)")),
        ("GROUP BY name (baseline), %d kernels" % n_kernels,
         best_of(con, "SELECT name, count(*) FROM kernel GROUP BY name")),
        ("GROUP BY kernel_category(name), %d kernels" % n_kernels,
         best_of(con, "SELECT kernel_category(name), count(*) FROM kernel GROUP BY 1")),
    ]
    peak = con.execute("SELECT * FROM mem_peak(1, 0)").fetchone()
    print("| query | seconds (best of 3) |\n|---|---|")
    for name, sec in rows:
        print("| %s | %.3f |" % (name, sec))
    print("\npeak_allocated=%d peak_seq=%d events=%d" % (peak[0], peak[1], peak[5]))


if __name__ == "__main__":
    sys.exit(main())
