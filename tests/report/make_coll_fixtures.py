#!/usr/bin/env python3
"""Write the collective-bandwidth fixtures into tests/report/data/coll/ (committed).

    make_coll_fixtures.py [OUT_DIR]
    make_coll_fixtures.py --job64 OUT_DIR   (only job64, written at test time)

Every rank runs three ProfilerSteps; each collective call is a
record_param_comms op, its cudaLaunchKernel and the NCCL kernel (same
External id).  Member i of a group (its position in the rank list)
starts the kernel 10*i us after the group's first, and every member ends
at the same moment, T us after the last one arrived (T: transfer).

  * kinds/<kind>/rank<r>.json: one job per kind, args on the kernel
    (recent Kineto); 4 ranks, except send_recv (2 ranks: rank 0 sends,
    rank 1 receives; not matched, so the transfer is the whole kernel).
    KINDS below gives nelems, dtype, T and the expected busbw.
  * dp_tp/rank<r>.json: 4 ranks, tensor-parallel groups [0, 1], [2, 3],
    data-parallel groups [0, 2], [1, 3], the world [0, 1, 2, 3]; args on
    the record_param_comms op only, with 'Seq'.  Rank 3 lost the kernel of
    its first data-parallel all-reduce (Seq 1): matching by Seq leaves
    rank 1's alone (unmatched), matching by order would pair it with rank
    3's Seq 2.
  * dp_tp_slow/, dp_tp_bit_slow/: dp_tp with the data-parallel
    all-reduce's transfer at 1950 us and 1700 us instead of 1600 (busbw
    32.8 and 37.6 GB/s instead of 40): the after runs of the diff and gate
    tests (check_coll.py).
  * job64/rank<r>.json (--job64, not committed): 64 ranks, 8
    tensor-parallel groups of 8 ([8k..8k+7], all-reduce of 8e6 bytes,
    transfer 100 + 5k us), 8 data-parallel groups of 8 ([j, j+8, ..,
    j+56], all-reduce of 64e6 bytes, transfer 1600 + 20j us) and the
    world's all-gather: 17 groups, past coll_sum's 16 (check_coll.py).
  * older/rank<r>.json: 2 ranks of older Kineto: no collective args on ops
    or kernels, a custom all-reduce kernel, and one kernel whose dtype is
    UNKNOWN_SCALAR.

Times are integers in microseconds; the generator is deterministic.
"""
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) == 2 else os.path.join(os.path.dirname(__file__), "data", "coll")
PID, TID, STEP_US, T0 = 7000, 1, 10000, 1_000_000

# kind: (Collective name, kernel, dtype, in nelems, out nelems, T us, busbw GB/s)
KINDS = {
    "all_reduce": ("allreduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "Float",
                   1000000, 1000000, 100, 60.0),
    "all_gather": ("_allgather_base", "ncclDevKernel_AllGather_RING_LL", "Float8_e4m3fn",
                   250000, 1000000, 50, 15.0),
    "reduce_scatter": ("_reduce_scatter_base", "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL",
                       "BFloat16", 2000000, 500000, 100, 30.0),
    "all_to_all": ("all_to_allv", "ncclDevKernel_SendRecv", "Half", 1000000, 1000000, 40, 37.5),
    "broadcast": ("broadcast", "ncclDevKernel_Broadcast_RING_LL", "Long", 1000000, 1000000,
                  200, 40.0),
    "reduce": ("reduce", "ncclDevKernel_Reduce_Sum_f64_RING_LL", "Double", 500000, 500000, 100,
               40.0),
    "send_recv": (None, "ncclDevKernel_SendRecv", "Float", 1000000, 1000000, 100, 40.0),
}
SIG = "(ncclDevKernelArgsStorage<4096ul>)"


class Trace:
    def __init__(self, rank, world):
        self.rank, self.world, self.corr = rank, world, 100
        self.ev = [{"ph": "M", "name": "process_name", "pid": PID, "tid": 0,
                    "args": {"name": "python3"}}]

    def step(self, i, end):
        t = T0 + i * STEP_US
        self.ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}",
                        "pid": PID, "tid": TID, "ts": t, "dur": end - t})

    def call(self, cpu_ts, kernel, gts, gdur, op_args=None, kernel_args=None, lost=False):
        self.corr += 1
        ext = self.corr + 5000
        self.ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": PID,
                        "tid": TID, "ts": cpu_ts, "dur": 30,
                        "args": dict({"External id": ext}, **(op_args or {}))})
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": PID,
                        "tid": TID, "ts": cpu_ts + 5, "dur": 10,
                        "args": {"correlation": self.corr, "External id": ext}})
        if lost:
            return
        args = {"External id": ext, "device": self.rank, "context": 1, "stream": 20,
                "correlation": self.corr}
        args.update(kernel_args or {})
        self.ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": self.rank,
                        "tid": 20, "ts": gts, "dur": gdur, "args": args})

    def write(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        doc = {"schemaVersion": 1, "traceEvents": self.ev,
               "distributedInfo": {"backend": "nccl", "rank": self.rank, "world_size": self.world}}
        with open(path, "w") as f:
            json.dump(doc, f, indent=0)
            f.write("\n")


def meta(coll, dtype, n_in, n_out, ranks, pg, seq=None, splits="[]"):
    a = {"Collective name": coll, "dtype": dtype, "In msg nelems": n_in, "Out msg nelems": n_out,
         "Group size": len(ranks), "In split size": splits, "Out split size": splits,
         "Process Group Name": pg, "Process Group Description": "undefined",
         "Process Group Ranks": json.dumps(ranks)}
    if seq is not None:
        a["Seq"] = seq
    return a


def timing(base, ranks, rank, t_us):
    """Kernel start and duration of rank: member i arrives 10*i us late."""
    i = ranks.index(rank)
    last = base + 10 * (len(ranks) - 1)
    return base + 10 * i, last + t_us - (base + 10 * i)


def kinds():
    for kind, (coll, kernel, dtype, n_in, n_out, t_us, _) in KINDS.items():
        world = 2 if kind == "send_recv" else 4
        ranks = list(range(world))
        for r in ranks:
            tr = Trace(r, world)
            for i in range(3):
                base = T0 + i * STEP_US + 1000
                name = coll or ("send" if r == 0 else "recv")
                splits = "[250000, 250000, 250000, 250000]" if kind == "all_to_all" else "[]"
                a = meta(name, dtype, n_in, n_out, ranks, "0", splits=splits)
                if kind == "send_recv":
                    gts, gdur = base + 10 * r, t_us
                else:
                    gts, gdur = timing(base, ranks, r, t_us)
                tr.call(base - 500, kernel + SIG, gts, gdur, kernel_args=a)
                tr.step(i, base + 2000)
            tr.write(os.path.join(OUT, "kinds", kind, f"rank{r}.json"))


def dp_tp(name="dp_tp", dp_us=1600):
    tp = [[0, 1], [2, 3]]
    dp = [[0, 2], [1, 3]]
    for r in range(4):
        tr = Trace(r, 4)
        tpg, dpg = next(g for g in tp if r in g), next(g for g in dp if r in g)
        seq = {"tp": 0, "dp": 0, "world": 0}
        for i in range(3):
            base = T0 + i * STEP_US + 1000
            # TP all-reduce, 8e6 bytes in 100 us: busbw 80 GB/s
            seq["tp"] += 1
            gts, gdur = timing(base, tpg, r, 100)
            tr.call(base - 500, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL" + SIG, gts, gdur,
                    op_args=meta("allreduce", "BFloat16", 4000000, 4000000, tpg,
                                 str(1 + tp.index(tpg)), seq["tp"]))
            # DP all-reduce, 64e6 bytes in dp_us (1600) us: busbw 40 GB/s
            seq["dp"] += 1
            gts, gdur = timing(base + 1000, dpg, r, dp_us)
            tr.call(base - 400, "ncclDevKernel_AllReduce_Sum_f32_RING_LL" + SIG, gts, gdur,
                    op_args=meta("allreduce", "Float", 16000000, 16000000, dpg,
                                 str(3 + dp.index(dpg)), seq["dp"]),
                    lost=(r == 3 and seq["dp"] == 1))
            # world all-gather, 4096 bytes in 10 us
            seq["world"] += 1
            gts, gdur = timing(base + 3000, [0, 1, 2, 3], r, 10)
            tr.call(base - 300, "ncclDevKernel_AllGather_RING_LL" + SIG, gts, gdur,
                    op_args=meta("allgather", "Int", 256, 1024, [0, 1, 2, 3], "0", seq["world"]))
            tr.step(i, base + 4000)
        tr.write(os.path.join(OUT, name, f"rank{r}.json"))


def older():
    for r in range(2):
        tr = Trace(r, 2)
        for i in range(3):
            base = T0 + i * STEP_US + 1000
            gts, gdur = timing(base, [0, 1], r, 100)
            tr.call(base - 500, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned "
                    "long, ncclWork*)", gts, gdur)
            gts, gdur = timing(base + 1000, [0, 1], r, 20)
            tr.call(base - 400, "void (anonymous namespace)::multimem_all_reduce_kernel"
                    "<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned long)", gts, gdur)
            gts, gdur = timing(base + 2000, [0, 1], r, 30)
            tr.call(base - 300, "ncclDevKernel_Broadcast_RING_LL" + SIG, gts, gdur,
                    kernel_args=meta("broadcast", "UNKNOWN_SCALAR", 1000, 1000, [0, 1], "0"))
            tr.step(i, base + 3000)
        tr.write(os.path.join(OUT, "older", f"rank{r}.json"))


def job64(out):
    tp = [list(range(8 * k, 8 * k + 8)) for k in range(8)]
    dp = [list(range(j, 64, 8)) for j in range(8)]
    for r in range(64):
        tr = Trace(r, 64)
        k, j = r // 8, r % 8
        for i in range(3):
            base = T0 + i * STEP_US + 1000
            gts, gdur = timing(base, tp[k], r, 100 + 5 * k)
            tr.call(base - 500, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL" + SIG, gts, gdur,
                    op_args=meta("allreduce", "BFloat16", 4000000, 4000000, tp[k], f"tp{k}",
                                 i + 1))
            gts, gdur = timing(base + 1000, dp[j], r, 1600 + 20 * j)
            tr.call(base - 400, "ncclDevKernel_AllReduce_Sum_f32_RING_LL" + SIG, gts, gdur,
                    op_args=meta("allreduce", "Float", 16000000, 16000000, dp[j], f"dp{j}",
                                 i + 1))
            gts, gdur = timing(base + 3000, list(range(64)), r, 10)
            tr.call(base - 300, "ncclDevKernel_AllGather_RING_LL" + SIG, gts, gdur,
                    op_args=meta("allgather", "Int", 256, 16384, list(range(64)), "0", i + 1))
            tr.step(i, base + 4000)
        tr.write(os.path.join(out, f"rank{r}.json"))


if len(sys.argv) > 2 and sys.argv[1] == "--job64":
    job64(sys.argv[2])
    sys.exit(0)
kinds()
dp_tp()
dp_tp("dp_tp_slow", 1950)
dp_tp("dp_tp_bit_slow", 1700)
older()
