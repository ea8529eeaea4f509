#!/usr/bin/env python3
"""Write the straggler fixtures into tests/report/data/straggler/ (committed).

    make_straggler_fixtures.py [OUT_DIR]

Four ranks of one data-parallel job (world size 4), three steps each (the
first is warm-up).  In every step each rank runs a compute kernel, then an
NCCL all-reduce that ends at the same moment on every rank (a collective
finishes when its last member arrives):

  * late/rank<r>.json: rank 2's compute kernel takes 3 ms, the others' 1 ms,
    so rank 2 reaches the all-reduce 2 ms late and ranks 0, 1, 3 wait
    inside their all-reduce kernels.  Ranks 0 and 1 then log for 1 ms on
    the CPU, so their steps are the LONGEST: a rule that flags long steps
    flags them, the right rule flags rank 2.
  * balanced/rank<r>.json: the same job with every compute kernel 1 ms
    (arrivals within 20 us): no straggler.

Times are integers in microseconds; the generator is deterministic.
"""
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "data", "straggler")
GEMM = "ampere_sgemm_128x64_tn"
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
PID, TID, STEP_US, T0 = 7000, 1, 6000, 1_000_000


def rank_trace(rank, late):
    ev = [{"ph": "M", "name": "process_name", "pid": PID, "tid": 0, "args": {"name": "python3"}}]
    corr = 100
    for i in range(3):
        t = T0 + i * STEP_US
        compute = 3000 if (late and rank == 2) else 1000 + 5 * rank
        comm_end = t + 100 + (3000 if late else 1020) + 500
        logging = 1000 if (late and rank in (0, 1)) else 0
        step_end = comm_end + 100 + logging
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}",
                   "pid": PID, "tid": TID, "ts": t, "dur": step_end - t})
        for name, gts, gdur, stream, extra in (
                (GEMM, t + 100, compute, 7, {}),
                (NCCL, t + 100 + compute, comm_end - (t + 100 + compute), 20,
                 {"Collective name": "allreduce", "Process Group Name": "0",
                  "Process Group Ranks": "[0, 1, 2, 3]", "Group size": 4})):
            corr += 1
            lts = t + 10 + (corr % 2) * 20
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": PID,
                       "tid": TID, "ts": lts, "dur": 10, "args": {"correlation": corr}})
            args = {"device": rank, "context": 1, "stream": stream, "correlation": corr}
            args.update(extra)
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": rank, "tid": stream,
                       "ts": gts, "dur": gdur, "args": args})
        if logging:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::print_metrics", "pid": PID,
                       "tid": TID, "ts": comm_end + 50, "dur": logging})
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 4},
            "traceEvents": ev}


for variant in ("late", "balanced"):
    os.makedirs(os.path.join(OUT, variant), exist_ok=True)
    for r in range(4):
        with open(os.path.join(OUT, variant, f"rank{r}.json"), "w") as f:
            json.dump(rank_trace(r, variant == "late"), f, indent=0)
            f.write("\n")
