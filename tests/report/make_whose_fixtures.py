#!/usr/bin/env python3
"""Write the fixtures of the "whose time and whose memory" sections
(tests/report/data/whose_*.json); every figure the tests expect is
derived by hand in check_whose.py from the numbers here.

  whose_trace.json           epoch clock (baseTimeNanoseconds), 2 steps, an
                             nn.Module tree, record_function ranges 'forward'
                             and 'forward > gemms', Python frames, one operator of
                             each FLOP-counted kind each launching one kernel,
                             [memory] events, a kernel launched from no operator
  whose_trace_relative.json  the same without baseTimeNanoseconds (relative clock)
  whose_snapshot.json        allocator events during the trace's steps (epoch time_us)
  whose_snapshot_late.json   the same one hour later: no overlap with the trace
"""
import json
import os

BASE_NS = 1_700_000_000_000_000_000  # baseTimeNanoseconds
BASE_US = BASE_NS // 1000
MiB = 1 << 20
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PID, TID, DEV, STREAM = 10, 1, 0, 7

# (op name, Input Dims, Input type, Concrete Inputs, kernel duration in us)
GEMMS = [
    ("aten::mm", [[64, 128], [128, 256]], ["c10::BFloat16"] * 2, ["", ""], 10),
    ("aten::addmm", [[256], [64, 128], [128, 256], [], []], ["c10::BFloat16"] * 3 + ["Scalar"] * 2,
     ["", "", "", "1", "1"], 10),
    ("aten::bmm", [[8, 32, 64], [8, 64, 16]], ["float", "float"], ["", ""], 4),
    ("aten::baddbmm", [[8, 32, 16], [8, 32, 64], [8, 64, 16], [], []], ["float"] * 3 + ["Scalar"] * 2,
     ["", "", "", "1", "1"], 4),
    ("aten::matmul", [[4, 32, 64], [64, 16]], ["c10::Half", "c10::Half"], ["", ""], 2),
    ("aten::convolution", [[2, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []],
     ["float"] * 3 + ["ScalarList"] * 3 + ["Scalar", "ScalarList", "Scalar"],
     ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"], 8),
    ("aten::convolution_backward",
     [[2, 16, 16, 16], [2, 3, 32, 32], [16, 3, 3, 3], [], [], [], [], [], [], [], []],
     ["float"] * 3 + ["ScalarList"] * 4 + ["Scalar", "ScalarList", "Scalar", "ScalarList"],
     ["", "", "", "[16]", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, False]"], 16),
    ("aten::scaled_dot_product_attention", [[2, 4, 128, 64], [2, 4, 256, 64], [2, 4, 256, 32], [], []],
     ["c10::BFloat16"] * 3 + ["", "Scalar"], ["", "", "", "", "0."], 20),
]


def trace(with_base):
    ev, ext, corr = [], [100], [5000]

    def x(cat, name, ts, dur, tid=TID, pid=PID, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        ev.append(e)

    def op_with_kernel(name, ts, dur, kdur, kts, dims=None, types=None, concrete=None):
        ext[0] += 1
        corr[0] += 1
        args = {"External id": ext[0]}
        if dims is not None:
            args.update({"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete})
        x("cpu_op", name, ts, dur, **args)
        x("cuda_runtime", "cudaLaunchKernel", ts + 1, 2, correlation=corr[0], **{"External id": ext[0]})
        x("kernel", "gemm_kernel_" + name.split("::")[-1], kts, kdur, pid=DEV, tid=STREAM,
          device=DEV, stream=STREAM, correlation=corr[0], **{"External id": ext[0]})

    for step, t0 in ((1, 1000), (2, 2000)):
        x("user_annotation", f"ProfilerStep#{step}", t0, 1000)
        # step 1: Net_0 > Linear_0 > aten::linear > aten::addmm; step 2 larger
        big = step == 2
        x("python_function", "train.py(88): train_step", t0 + 50, 800 if big else 700)
        x("python_function", "nn.Module: Net_0", t0 + 100, 600 if big else 500)
        x("user_annotation", "forward", t0 + 90, 650)  # record_function around the model
        x("python_function", "model.py(42): forward", t0 + 110, 500 if big else 400)
        x("python_function", "nn.Module: Linear_0", t0 + 150, 300 if big else 200)
        ext[0] += 1
        x("cpu_op", "aten::linear", t0 + 160, 200 if big else 100,
          **{"External id": ext[0], "Input Dims": [[64, 128], [256, 128], [256]],
             "Input type": ["c10::BFloat16"] * 3, "Concrete Inputs": ["", "", ""]})
        op_with_kernel("aten::addmm", t0 + 170, 150 if big else 50, 10, t0 + 400,
                       *GEMMS[1][1:4])
        if step == 2:
            # a nested record_function around the last five calls below
            x("user_annotation", "gemms", t0 + 455, 105)
            # every FLOP-counted kind, one call each, under model.py:42
            for i, (name, dims, types, concrete, kdur) in enumerate(GEMMS):
                if name == "aten::addmm":
                    continue
                op_with_kernel(name, t0 + 400 + 20 * i, 10, kdur, t0 + 500 + 40 * i, dims, types, concrete)
        # a copy launched by no operator (a bare runtime call on the thread)
        corr[0] += 1
        x("cuda_runtime", "cudaMemcpyAsync", t0 + 900, 5, correlation=corr[0])
        ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)",
                   "pid": DEV, "tid": STREAM, "ts": t0 + 950, "dur": 6,
                   "args": {"device": DEV, "stream": STREAM, "correlation": corr[0], "bytes": 4096}})
        # [memory] events: 1 MiB allocated inside aten::addmm, freed outside any op
        for ts, b, total in ((t0 + 180, MiB, MiB), (t0 + 950, -MiB, 0)):
            ev.append({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": PID, "tid": TID,
                       "ts": ts, "s": "t", "args": {"Addr": 4096 * step, "Bytes": b, "Total Allocated": total,
                                                     "Total Reserved": 2 * MiB, "Device Type": 1,
                                                     "Device Id": DEV}})
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": DEV, "name": "NVIDIA H100 80GB HBM3",
                                 "totalGlobalMem": 85_000_000_000, "computeMajor": 9,
                                 "computeMinor": 0, "numSms": 132}],
           "traceEvents": ev}
    if with_base:
        doc["baseTimeNanoseconds"] = BASE_NS
    return doc


def snapshot(shift_us):
    def e(action, addr, size, ts):
        return {"action": action, "addr": addr, "size": size, "stream": 0,
                "time_us": BASE_US + shift_us + ts, "frames": []}
    seg = 0x7F0000000000
    traces = [e("segment_alloc", seg, 8 * MiB, 1175),
              e("alloc", seg, MiB, 1180),               # step 1, in aten::addmm
              e("alloc", seg + MiB, 4 * MiB, 2180),     # step 2, in aten::addmm: the peak (5 MiB)
              e("free_requested", seg + MiB, 4 * MiB, 2500),
              e("free_completed", seg + MiB, 4 * MiB, 2500),
              e("free_requested", seg, MiB, 2900),
              e("free_completed", seg, MiB, 2900)]
    return {"segments": [{"device": 0, "address": seg, "total_size": 8 * MiB, "allocated_size": 0,
                          "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "large",
                          "segment_pool_id": [0, 0], "is_expandable": False, "frames": [],
                          "blocks": [{"address": seg, "size": 8 * MiB, "requested_size": 0,
                                      "state": "inactive", "frames": []}]}],
            "device_traces": [traces]}


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


write("whose_trace.json", trace(True))
write("whose_trace_relative.json", trace(False))
write("whose_snapshot.json", snapshot(0))
write("whose_snapshot_late.json", snapshot(3600 * 1_000_000))
