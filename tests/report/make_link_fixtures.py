#!/usr/bin/env python3
"""Write the fixtures of issue 29's operator links (tests/report/data/link_*.json);
check_links.py derives every expected figure from the events themselves.

  link_external_id_collision.json  activities and runtime calls whose External id is their
                                   correlation id (PyTorch ~2.1-2.3), colliding with the
                                   External ids of metadata operators elsewhere (aten::empty,
                                   as_strided, view, expand), of an operator on another thread,
                                   with a range between the call and its operator, a call
                                   overhanging its operator, a call outside any operator, a
                                   kernel without a runtime call; and proper links beside them
  link_annotation_direct_launch.json  kernels launched inside record_function ranges with no
                                   operator around the runtime call (DeepEP-style), nested
                                   ranges, a range inside an operator
  link_memory_op_end.json          [memory] events at an operator's first and last microsecond,
                                   between two operators, after one
"""
import json
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PID, DEV, STREAM = 1, 0, 7


class Trace:
    def __init__(self):
        self.ev = []

    def x(self, cat, name, ts, dur, tid=1, pid=PID, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)

    def op(self, name, ts, dur, ext, tid=1):
        self.x("cpu_op", name, ts, dur, tid, **{"External id": ext})

    def launch(self, ts, corr, ext, kname, kts, kdur, tid=1, kernel_ext=None, runtime=True):
        """A cudaLaunchKernel [ts, ts+10) and its kernel; ext: the External id both carry
        (None: none)."""
        extra = {} if ext is None else {"External id": ext}
        if runtime:
            self.x("cuda_runtime", "cudaLaunchKernel", ts, 10, tid, correlation=corr, **extra)
        kextra = extra if kernel_ext is None else {"External id": kernel_ext}
        self.x("kernel", kname, kts, kdur, STREAM, DEV, device=DEV, stream=STREAM,
               correlation=corr, **kextra)

    def write(self, name, extra=None):
        doc = {"schemaVersion": 1,
               "deviceProperties": [{"id": DEV, "name": "NVIDIA A100-SXM4-80GB",
                                     "totalGlobalMem": 85_000_000_000, "computeMajor": 8,
                                     "computeMinor": 0, "numSms": 108}],
               "traceEvents": self.ev}
        doc.update(extra or {})
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(doc, f, indent=0)
            f.write("\n")


def collision():
    t = Trace()
    # metadata operators (they launch nothing) whose External ids collide with correlations
    for i, name in enumerate(("aten::empty", "aten::as_strided", "aten::view", "aten::expand")):
        t.op(name, 10 + 10 * i, 2, 101 + i)
    # a GEMM whose call carries correlation 101 = aten::empty's External id
    t.op("aten::mm", 100, 100, 1)
    t.launch(110, 101, 101, "volta_sgemm_128x64_nn", 2000, 500)
    t.op("aten::addmm", 200, 100, 2)
    t.launch(210, 102, 102, "volta_sgemm_128x64_nn", 2600, 400)
    # the innermost operator, two levels down
    t.op("aten::linear", 300, 150, 3)
    t.op("aten::addmm", 310, 130, 5)
    t.launch(320, 103, 103, "volta_sgemm_64x64_nn", 3100, 300)
    # a record_function range between the call and its operator
    t.op("aten::convolution", 500, 200, 7)
    t.x("user_annotation", "conv_impl", 510, 180)
    t.launch(520, 104, 104, "implicit_convolve_sgemm", 3500, 250)
    # the External id's operator runs at that time, on another thread
    t.op("aten::copy_", 800, 200, 105, tid=2)
    t.op("aten::bmm", 850, 100, 8)
    t.launch(860, 105, 105, "volta_sgemm_32x32_nn", 3800, 120)
    # proper links (External id of the enclosing operator), modern traces
    t.op("aten::add", 1100, 100, 9)
    t.launch(1110, 106, 9, "vectorized_elementwise_kernel_add", 4000, 30)
    t.op("aten::relu", 1200, 100, 10)
    t.launch(1210, 107, 10, "vectorized_elementwise_kernel_relu", 4100, 20)
    # the call overhangs its operator by 1 us (nested by its start)
    t.op("aten::mul", 1300, 100, 11)
    t.launch(1391, 108, 108, "vectorized_elementwise_kernel_mul", 4200, 25)
    # a call outside any operator; its correlation is a later operator's External id
    t.launch(1500, 109, 109, "vectorized_elementwise_kernel_fill", 4300, 15)
    t.op("aten::empty", 1600, 1, 109)
    # a kernel whose runtime call was not recorded: the External id link stays
    t.launch(0, 110, 9, "vectorized_elementwise_kernel_add", 4400, 10, runtime=False)
    t.write("link_external_id_collision.json")


def annotation():
    t = Trace()
    # DeepEP-style: launches inside a record_function range, no operator around them
    t.x("user_annotation", "DeepEP::dispatch", 100, 300, **{"External id": 50})
    t.launch(110, 201, 50, "deep_ep::dispatch_kernel", 1000, 1500)
    t.launch(200, 202, None, "deep_ep::combine_kernel", 2600, 500)
    # nested ranges: a launch in the inner one, an operator's launch in the outer one
    t.x("user_annotation", "outer", 500, 400, **{"External id": 51})
    t.x("user_annotation", "inner", 510, 190, **{"External id": 52})
    t.launch(520, 203, 52, "custom_ext_kernel", 3200, 300)
    t.op("aten::add", 710, 90, 60)
    t.launch(720, 204, 60, "vectorized_elementwise_kernel_add", 3600, 200)
    # a range inside an operator, the launch inside the range
    t.op("aten::matmul", 1000, 200, 70)
    t.x("user_annotation", "in_op", 1010, 90, **{"External id": 71})
    t.launch(1020, 205, 71, "ampere_sgemm_128x64_nn", 3900, 400)
    # an operator's launch outside every range
    t.op("aten::mul", 1300, 50, 80)
    t.launch(1310, 206, 80, "vectorized_elementwise_kernel_mul", 4400, 100)
    t.write("link_annotation_direct_launch.json")


def memory():
    t = Trace()

    def mem(ts, b, tid=1):
        t.ev.append({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": PID,
                     "tid": tid, "ts": ts, "s": "t",
                     "args": {"Addr": 4096, "Bytes": b, "Total Allocated": 0,
                              "Total Reserved": 0, "Device Type": 1, "Device Id": DEV}})
    t.op("aten::zeros", 95, 35, 1)     # [95, 130]
    t.op("aten::empty", 100, 10, 2)    # [100, 110] inside it
    t.op("aten::zero_", 112, 15, 3)    # [112, 127] inside it
    mem(100, 1024)   # the first microsecond of aten::empty
    mem(110, 2048)   # its last microsecond
    mem(130, 4096)   # aten::zeros' last microsecond
    t.op("aten::cat", 200, 10, 4)      # [200, 210]
    t.op("aten::clone", 210, 10, 5)    # [210, 220], starts when aten::cat ends
    mem(210, 512)    # both contain it: the one that starts then
    mem(220, -512)   # aten::clone's last microsecond
    mem(250, 256)    # between operators
    mem(105, 128, tid=2)  # another thread: no operator there
    t.op("aten::sum", 300, 10, 6)      # the trace's window ends after every event above
    t.write("link_memory_op_end.json")


if __name__ == "__main__":
    collision()
    annotation()
    memory()
