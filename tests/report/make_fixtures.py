#!/usr/bin/env python3
"""Write the report test fixtures into tests/report/data/ (committed).

    make_fixtures.py [OUT_DIR]

A two-rank data-parallel training loop, written as Kineto traces event by
event, so that every report section has something to show and every
figure can be worked out by hand:

  * three steps per rank (the first is warm-up); the CPU runs ahead of the
    GPU, so each step's kernels run after its ProfilerStep range ends;
  * a DataLoader range, zero_grad at the start of the step, forward ops
    with Input Dims, a backward on the autograd thread with a checkpoint
    recompute frame, Optimizer.step;
  * GEMM, elementwise, fill and optimizer kernels on stream 7, an NCCL
    all-reduce on stream 20 that partly overlaps the backward GEMM;
  * HtoD, DtoH copies and a memset; aten::item with the nested
    _local_scalar_dense > cudaMemcpyAsync + cudaStreamSynchronize;
  * rank 1 is 25% slower (a straggler).

And a CUDA caching-allocator snapshot of one device (two segments,
blocks in every state, stacks with user frames under PyTorch frames, an
allocator trace with a segment_alloc, frees, an OOM and a free of a block
allocated before recording started).

The generator is deterministic; re-running it rewrites identical files.
"""
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "data")

GEMM = "ampere_sgemm_128x64_tn"
GEMM_BWD = "ampere_sgemm_64x64_nn"
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
       "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
       "at::detail::Array<char*, 3>)")
FILL = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
        "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
        "at::detail::Array<char*, 1>)")
ADAM = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
        "(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::"
        "FusedAdamMathFunctor<float, 4>, float*, double, double, double, double, double, "
        "bool, bool>(at::native::(anonymous namespace)::TensorListMetadata<4>, ...)")
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
# The "after" run of the diff fixtures: the same loop after an optimization.
ADD_HALF = ADD.replace("CUDAFunctor_add<float>", "CUDAFunctor_add<c10::Half>")
ADAM_FUSED = "triton_per_fused__fused_adam_0"


class Trace:
    """Events of one rank.  Times are in microseconds; decimals are kept
    as written (the fixture uses .5 steps to exercise exact parsing)."""

    def __init__(self, rank, after=False):
        self.rank = rank
        self.after = after  # the optimized run of the diff fixtures
        self.events = []
        self.corr = 1000
        self.ext = 1

    def x(self, cat, name, tid, ts, dur, pid=None, **args):
        ev = {"ph": "X", "cat": cat, "name": name, "pid": 4242 if pid is None else pid,
              "tid": tid, "ts": ts, "dur": dur}
        if args:
            ev["args"] = args
        self.events.append(ev)
        return ev

    def op(self, name, tid, ts, dur, **args):
        self.ext += 1
        return self.x("cpu_op", name, tid, ts, dur, **{"External id": self.ext, **args})

    def launch(self, api, tid, ts, dur, kind, name, gts, gdur, stream=7, **gargs):
        """A runtime call and the GPU work it launches, linked by
        correlation (and an ac2g flow, as Kineto writes)."""
        self.corr += 1
        c = self.corr
        self.x("cuda_runtime", api, tid, ts, dur, correlation=c, cbid=211,
               **{"External id": self.ext})
        cat = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}[kind]
        args = {"External id": self.ext, "device": 0, "context": 1, "stream": stream,
                "correlation": c}
        if kind == "kernel":
            args.update({"queued": 0, "registers per thread": 64, "shared memory": 0,
                         "blocks per SM": 1.5, "warps per SM": 12.0,
                         "grid": [216, 1, 1], "block": [256, 1, 1],
                         "est. achieved occupancy %": 19})
        args.update(gargs)
        self.x(cat, name, stream, gts, gdur, pid=0, **args)
        self.events.append({"ph": "s", "id": c, "pid": 4242, "tid": tid, "ts": ts,
                            "cat": "ac2g", "name": "ac2g"})
        self.events.append({"ph": "f", "id": c, "pid": 0, "tid": stream, "ts": gts,
                            "cat": "ac2g", "name": "ac2g", "bp": "e"})

    def step(self, n, s, k):
        """Step n starting at s (us); k scales the durations (rank 1 is slower)."""
        def t(x):
            return s + x * k
        main, bwd = 100, 200
        self.x("user_annotation", f"ProfilerStep#{n}", main, s, 1000 * k)
        self.x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
               main, t(10), 100 * k)
        self.x("user_annotation", "Optimizer.zero_grad#Adam.zero_grad", main, t(120), 10 * k)
        # Input batch to the device: a pageable HtoD copy.
        self.op("aten::to", main, t(132), 40 * k, **{"Input Dims": [[64, 256]],
                                                     "Input type": ["float"]})
        self.launch("cudaMemcpyAsync", main, t(140), 20 * k, "memcpy",
                    "Memcpy HtoD (Pageable -> Device)", t(1005), 20 * k,
                    bytes=131072 if self.after else 65536,
                    **{"memory bandwidth (GB/s)": 6.5536 if self.after else 3.2768})
        # Forward.
        self.op("aten::linear", main, t(175), 125 * k, **{"Input Dims": [[64, 256], [512, 256], [512]],
                                                          "Input type": ["float", "float", "float"],
                                                          "Sequence number": n * 10})
        self.op("aten::addmm", main, t(180), 100 * k, **{"Input Dims": [[512], [64, 256], [256, 512]],
                                                         "Input type": ["float", "float", "float"],
                                                         "Sequence number": n * 10 + 1})
        # After: a faster GEMM (e.g. bf16).
        self.launch("cudaLaunchKernel", main, t(200), 10.5 * k, "kernel", GEMM, t(1030),
                    (200 if self.after else 300) * k)
        self.op("aten::zeros", main, t(310), 40 * k, **{"Input Dims": [[], [], [], [], []]})
        self.op("aten::fill_", main, t(315), 30 * k, **{"Input Dims": [[1024, 1024], []],
                                                        "Input type": ["float", "Scalar"]})
        self.launch("cudaLaunchKernel", main, t(320), 8 * k, "kernel", FILL, t(1330), 40 * k)
        self.op("aten::add", main, t(355), 30 * k, **{"Input Dims": [[64, 512], [64, 512], []]})
        # After: the add runs in half precision (another template instance).
        self.launch("cudaLaunchKernel", main, t(360), 8 * k, "kernel",
                    ADD_HALF if self.after else ADD, t(1370), 9.5 * k)
        self.launch("cudaMemsetAsync", main, t(390), 5 * k, "memset", "Memset (Device)",
                    t(1380), 2 * k, bytes=4096)
        # Backward on the autograd thread; the all-reduce overlaps its GEMM.
        self.op("autograd::engine::evaluate_function: AddmmBackward0", bwd, t(400), 150 * k)
        self.op("AddmmBackward0", bwd, t(405), 140 * k)
        self.op("aten::mm", bwd, t(410), 120 * k, **{"Input Dims": [[64, 512], [512, 256]]})
        self.launch("cudaLaunchKernel", bwd, t(420), 10 * k, "kernel", GEMM_BWD, t(1400), 200 * k)
        # Activation checkpointing recomputes part of the forward.
        self.x("python_function", "torch/utils/checkpoint.py(1125): recompute_fn", bwd,
               t(432), 20 * k, **{"Python id": 7, "Python parent id": 1})
        self.op("c10d::allreduce_", bwd, t(560), 40 * k, **{"Input Dims": [[131584]]})
        self.launch("cudaLaunchKernel", bwd, t(570), 12 * k, "kernel", NCCL, t(1500), 250 * k,
                    stream=20)
        # Optimizer.
        self.x("user_annotation", "Optimizer.step#Adam.step", main, t(700), 150 * k)
        self.op("aten::_fused_adam_", main, t(710), 100 * k)
        # After: a compiled (Triton) optimizer kernel replaces the eager one.
        self.launch("cudaLaunchKernel", main, t(720), 10 * k, "kernel",
                    ADAM_FUSED if self.after else ADAM, t(1760), (45 if self.after else 60) * k)
        # loss.item(): copies a scalar back and waits for the GPU.
        self.op("aten::item", main, t(860), 130 * k)
        self.op("aten::_local_scalar_dense", main, t(862), 126 * k)
        self.launch("cudaMemcpyAsync", main, t(865), 10 * k, "memcpy",
                    "Memcpy DtoH (Device -> Pageable)", t(1825), 1 * k, bytes=4)
        self.x("cuda_runtime", "cudaStreamSynchronize", main, t(880), 105 * k,
               correlation=0, cbid=131)

    def document(self):
        meta = [
            {"ph": "M", "name": "process_name", "pid": 4242, "tid": 0,
             "args": {"name": "python3"}},
            {"ph": "M", "name": "thread_name", "pid": 4242, "tid": 100,
             "args": {"name": "thread 100 (python3)"}},
            {"ph": "M", "name": "thread_name", "pid": 4242, "tid": 200,
             "args": {"name": "thread 200 (pt_autograd_0)"}},
            {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
        ]
        return {
            "schemaVersion": 1,
            "deviceProperties": [{
                "id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85097971712,
                "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
                "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
                "sharedMemPerMultiprocessor": 167936, "numSms": 108,
                "sharedMemPerBlockOptin": 166912}],
            "distributedInfo": {"backend": "nccl", "rank": self.rank, "world_size": 2},
            "traceEvents": meta + self.events,
            "traceName": f"train_rank{self.rank}.pt.trace.json",
            "displayTimeUnit": "ms",
            "baseTimeNanoseconds": 1700000000000000000,
        }


def trace(rank, after=False):
    t = Trace(rank, after)
    k = 1.0 if rank == 0 else 1.25
    start = 5000
    for n in (1, 2, 3):
        t.step(n, start, k)
        start += 1000 * k
    # The last step's GPU work ends ~830 us after its CPU range: a fourth
    # ProfilerStep would start there; nothing else runs after.
    t.x("user_annotation", "ProfilerStep#4", 100, start, 5)
    return t.document()


def frames(*spec):
    return [{"filename": f, "line": line, "name": name} for f, line, name in spec]


TORCH = "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py"
MODULE = "/usr/lib/python3/dist-packages/torch/nn/modules/module.py"
STACK_FWD = frames((TORCH, 125, "forward"), (MODULE, 1736, "_call_impl"),
                   ("/home/user/train.py", 42, "forward"),
                   ("/home/user/train.py", 88, "train_step"))
STACK_OPT = frames(("/usr/lib/python3/dist-packages/torch/optim/adam.py", 410, "_init_group"),
                   ("/home/user/train.py", 95, "train_step"))
STACK_DATA = frames(("/usr/lib/python3/dist-packages/torch/utils/data/_utils/pin_memory.py", 60, "pin"),
                    ("/home/user/data.py", 17, "load_batch"))
MiB = 1 << 20


def snapshot(after=False):
    """The allocator's state; after=True: the run of the diff fixtures, whose
    forward activation is 12 MiB instead of 8 (longer sequences) and which
    no longer runs out of memory."""
    base = 0x7F0000000000
    small = 0x7F0002000000
    fwd = (12 if after else 8) * MiB  # the forward activation
    free = 13 * MiB - fwd  # the inactive block after it (5 MiB, or 1)
    segments = [
        {"device": 0, "address": base, "total_size": 20 * MiB, "allocated_size": fwd + 5 * MiB,
         "active_size": fwd + 5 * MiB, "requested_size": fwd + 5 * MiB - 512, "stream": 0,
         "segment_type": "large", "segment_pool_id": [0, 0], "is_expandable": False,
         "frames": STACK_FWD,
         "blocks": [
             {"address": base, "size": fwd, "requested_size": fwd,
              "state": "active_allocated", "frames": STACK_FWD},
             {"address": base + fwd, "size": 2 * MiB, "requested_size": 0,
              "state": "inactive", "frames": []},
             {"address": base + fwd + 2 * MiB, "size": 1 * MiB, "requested_size": 1 * MiB - 512,
              "state": "active_allocated", "frames": STACK_OPT},
             {"address": base + fwd + 3 * MiB, "size": free, "requested_size": 0,
              "state": "inactive", "frames": []},
             {"address": base + 16 * MiB, "size": 4 * MiB, "requested_size": 4 * MiB,
              "state": "active_allocated", "frames": STACK_DATA},
         ]},
        {"device": 0, "address": small, "total_size": 2 * MiB, "allocated_size": 512,
         "active_size": 512, "requested_size": 500, "stream": 0, "segment_type": "small",
         "segment_pool_id": [0, 0], "is_expandable": False, "frames": STACK_DATA,
         "blocks": [
             {"address": small, "size": 512, "requested_size": 500,
              "state": "active_allocated", "frames": STACK_DATA},
             {"address": small + 512, "size": 2 * MiB - 512, "requested_size": 0,
              "state": "inactive", "frames": []},
         ]},
    ]

    def ev(action, addr, size, stack, t, **extra):
        e = {"action": action, "addr": addr, "size": size, "stream": 0,
             "time_us": t, "frames": stack}
        e.update(extra)
        return e

    trace = [
        ev("segment_alloc", base, 20 * MiB, STACK_FWD, 1000),
        ev("alloc", base, fwd, STACK_FWD, 1001),
        ev("alloc", base + fwd, 2 * MiB, STACK_FWD, 1002),
        ev("alloc", base + fwd + 2 * MiB, 1 * MiB - 512, STACK_OPT, 1003),
        ev("alloc", base + fwd + 3 * MiB, free, STACK_FWD, 1004),
        # A free of a block allocated before recording began (3 MiB).
        ev("free_requested", base + 16 * MiB, 3 * MiB, STACK_DATA, 1005),
        ev("free_completed", base + 16 * MiB, 3 * MiB, STACK_DATA, 1006),
        ev("free_requested", base + fwd, 2 * MiB, STACK_FWD, 1007),
        ev("free_completed", base + fwd, 2 * MiB, STACK_FWD, 1008),
        ev("segment_alloc", small, 2 * MiB, STACK_DATA, 1009),
        ev("alloc", small, 500, STACK_DATA, 1010),
        ev("alloc", base + 16 * MiB, 4 * MiB, STACK_DATA, 1011),
        ev("free_requested", base + fwd + 3 * MiB, free, STACK_FWD, 1013),
        ev("free_completed", base + fwd + 3 * MiB, free, STACK_FWD, 1014),
    ]
    if not after:
        # An allocation that does not fit: the OOM entry has device_free.
        trace.insert(12, {"action": "oom", "size": 64 * MiB, "stream": 0,
                          "device_free": 6 * MiB, "time_us": 1012, "frames": STACK_FWD})
    # Churn: the same 4 MiB buffer allocated and freed 100 times.
    t = 2000
    for _ in range(100):
        trace.append(ev("alloc", base + fwd + 3 * MiB, 4 * MiB, STACK_DATA, t))
        trace.append(ev("free_requested", base + fwd + 3 * MiB, 4 * MiB, STACK_DATA, t + 1))
        trace.append(ev("free_completed", base + fwd + 3 * MiB, 4 * MiB, STACK_DATA, t + 2))
        t += 3
    return {
        "segments": segments,
        "device_traces": [trace],
        "allocator_settings": {"expandable_segments": False, "max_split_size": -1,
                               "garbage_collection_threshold": 0.0},
        "external_annotations": [],
    }


def write(name, doc):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    write("train_rank0.json", trace(0))
    write("train_rank1.json", trace(1))
    write("memory_snapshot.json", snapshot())
    write("after_rank0.json", trace(0, after=True))
    write("after_memory_snapshot.json", snapshot(after=True))


if __name__ == "__main__":
    main()
