#!/usr/bin/env python3
"""Record the real CUDA fixtures of tests/cuda/ on a machine with a GPU.

Each scenario is a small PyTorch program with a known pattern of issue 44
(GPU-bound and host-bound steps, work waited on from a side stream, a CUDA
graph replayed per decode step, cuDNN autotuning in the first iterations,
a launch queue filled ahead of the GPU, autograd's backward thread) profiled
with Kineto, and where a what-if can be checked, the same program run again
with one kind of kernel made twice as fast (its tensors halved) and both
timed without the profiler: what the action really recovers, to hold the
report's promised saving against.

    OUT=/some/dir python3 tests/cuda/record.py [SCENARIO...]

(every scenario by default; each is a function below) writes
OUT/NAME.pt.trace.json.gz, OUT/memory_snapshot.json.gz (the caching
allocator's history, JSON: never pickle) and OUT/measured.json (median step
time of each variant, ms).  Needs PyTorch with CUDA; nothing here runs in CI.
"""
import gzip
import json
import os
import statistics
import time
import traceback

import torch
from torch.profiler import ProfilerActivity, profile, schedule

OUT = os.environ.get("OUT", ".")
DEV = "cuda"
measured = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
            "cuda": torch.version.cuda, "scenarios": {}}


def sync_events_config():
    # HTA's critical path needs the cuda_sync events, off by default.
    try:
        return torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    except Exception:  # older PyTorch: record without them
        return None


def save_trace(prof, name):
    raw = os.path.join(OUT, name + ".pt.trace.json")
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as src, gzip.open(raw + ".gz", "wb", compresslevel=9) as dst:
        dst.write(src.read())
    os.remove(raw)


def record(name, step, active=3, warmup=1, stepped=True, sync_events=True):
    """Profile `step` for `active` ProfilerSteps after `warmup` ones."""
    torch.cuda.synchronize()
    cfg = sync_events_config() if sync_events else None
    kw = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
              record_shapes=True)
    if cfg is not None:
        kw["experimental_config"] = cfg
    if stepped:
        # The trace is saved when the cycle ends: the profiler clears its
        # events then, so an export after the context would be empty.
        kw["schedule"] = schedule(wait=0, warmup=warmup, active=active)
        kw["on_trace_ready"] = lambda p: save_trace(p, name)
        with profile(**kw) as prof:
            for _ in range(warmup + active):
                step()
                prof.step()
        return
    with profile(**kw) as prof:
        for _ in range(active):
            step()
    torch.cuda.synchronize()
    save_trace(prof, name)


def capture(body, warmup):
    """body() captured as a CUDA graph after warm-up calls on a side stream
    (PyTorch's recipe): the graph and what its capture returned."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmup):
            body()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = body()
    return g, out


def median_ms(step, n=40, warm=5):
    for _ in range(warm):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def scenario(fn):
    try:
        t0 = time.time()
        fn()
        print(f"{fn.__name__}: ok in {time.time() - t0:.1f} s", flush=True)
    except Exception:
        traceback.print_exc()
        measured["scenarios"][fn.__name__] = {"error": traceback.format_exc()[-2000:]}


# --- what-if pairs: one kind of kernel twice as fast (its tensors halved) ---

def gemm_and_elementwise(big, elems, n_ew, n_mm=4):
    """A step of n_mm GEMMs and n_ew elementwise kernels over `elems` values,
    ended by the host reading the loss (a sync, as training loops do)."""
    a = torch.randn(big, big, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(big, big, device=DEV, dtype=torch.bfloat16)
    x = torch.randn(elems, device=DEV, dtype=torch.float32)

    def step():
        c = a
        for _ in range(n_mm):
            c = torch.mm(c, b)
        y = x
        for _ in range(n_ew):
            y = y * 1.0001 + 0.5
        (c.float().mean() + y.mean()).item()
    return step


def whatif_pair(name, big, elems, n_ew):
    full = gemm_and_elementwise(big, elems, n_ew)
    half = gemm_and_elementwise(big, elems // 2, n_ew)
    record(name, full)
    record(name + "_half", half)
    m_full, m_half = median_ms(full), median_ms(half)
    measured["scenarios"][name] = {
        "step_ms": m_full, "elementwise_halved_step_ms": m_half,
        "saving_ms": m_full - m_half,
        "action": "every elementwise kernel's tensor halved (kernel time about halved), launches unchanged"}


def gpu_bound():
    # 64M floats: each elementwise kernel ~0.1 ms, far longer than its launch.
    whatif_pair("gpu_bound", 4096, 64 << 20, 8)


def host_bound():
    # 4096 floats: each kernel ~2 us, the host's ~10 us per op sets the step.
    whatif_pair("host_bound", 256, 4096, 200)
    # The launches removed instead: the same step's kernels replayed as one
    # captured CUDA graph (what launch_bound's advice recovers).
    a = torch.randn(256, 256, device=DEV, dtype=torch.bfloat16)
    x = torch.randn(4096, device=DEV)

    def body():
        c = a
        for _ in range(4):
            c = torch.mm(c, a)
        y = x
        for _ in range(200):
            y = y * 1.0001 + 0.5
        return c.float().mean() + y.mean()
    g, out = capture(body, warmup=1)

    def graphed():
        g.replay()
        out.item()
    measured["scenarios"]["host_bound"]["graphed_step_ms"] = median_ms(graphed)


def side_stream():
    """Main stream: GEMMs; side stream: a long elementwise chain the main
    stream waits for (wait_stream records an event and a stream wait)."""
    def make(elems):
        side = torch.cuda.Stream()
        a = torch.randn(2048, 2048, device=DEV, dtype=torch.bfloat16)
        x = torch.randn(elems, device=DEV)

        def step():
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                y = x
                for _ in range(16):
                    y = y * 1.0001 + 0.5
            c = a
            for _ in range(4):
                c = torch.mm(c, a)
            torch.cuda.current_stream().wait_stream(side)
            y.record_stream(torch.cuda.current_stream())
            (c.float().mean() + y.mean()).item()
        return step
    full, half = make(64 << 20), make(32 << 20)
    record("side_stream", full)
    # PyTorch's default: no cuda_sync events, so no wait is recorded at all
    record("side_stream_nosync", full, sync_events=False)
    m_full, m_half = median_ms(full), median_ms(half)
    measured["scenarios"]["side_stream"] = {
        "step_ms": m_full, "elementwise_halved_step_ms": m_half,
        "saving_ms": m_full - m_half,
        "action": "the side stream's elementwise tensors halved"}


# --- patterns without a what-if ---

def graph_decode():
    """A decode step replaying a captured CUDA graph: the input copied in
    from pinned memory, the token read back (a sync)."""
    layers = [torch.nn.Linear(4096, 4096, device=DEV, dtype=torch.bfloat16) for _ in range(8)]
    static_in = torch.randn(1, 4096, device=DEV, dtype=torch.bfloat16)
    host_in = torch.randn(1, 4096, dtype=torch.bfloat16).pin_memory()

    def body():
        h = static_in
        for layer in layers:
            h = torch.relu(layer(h))
        return h.argmax(dim=-1)
    g, static_out = capture(body, warmup=3)

    def step():
        static_in.copy_(host_in, non_blocking=True)
        g.replay()
        static_out.item()
    record("graph_decode", step, active=5)
    measured["scenarios"]["graph_decode"] = {"step_ms": median_ms(step)}


def conv_net():
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 64, 3, padding=1, stride=2), torch.nn.BatchNorm2d(64), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.BatchNorm2d(64), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10)).to(DEV)


def conv_step(net, opt):
    x = torch.randn(32, 3, 64, 64, device=DEV)
    t = torch.randint(0, 10, (32,), device=DEV)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(net(x), t)
        loss.backward()
        opt.step()
        loss.item()
    return step


def cudnn_cold():
    """cuDNN autotuning (benchmark=True) inside the first iterations, recorded
    from the very first call, with no ProfilerSteps (one-time costs must not
    read as steady idle)."""
    torch.backends.cudnn.benchmark = True
    net = conv_net()
    record("cudnn_cold", conv_step(net, torch.optim.SGD(net.parameters(), lr=0.01)),
           active=6, warmup=None, stepped=False)


def cudnn_cold_steps():
    """The same from step 0 with ProfilerSteps (a new shape: autotuned again)."""
    torch.backends.cudnn.benchmark = True
    net = conv_net().to(memory_format=torch.channels_last)
    train = conv_step(net, torch.optim.SGD(net.parameters(), lr=0.01))
    calls = []

    def step():  # the schedule's warm-up step runs nothing: step 2 is the first call
        if calls:
            train()
        calls.append(1)
    record("cudnn_cold_steps", step, active=5)


def queued_ahead():
    """Steps that never sync: the host runs ahead until the launch queue is
    full, then each launch blocks (queue length, time blocked)."""
    a = torch.randn(1024, 1024, device=DEV)

    def step():
        c = a
        for _ in range(200):
            c = torch.mm(c, a) * 0.001
    record("queued_ahead", step, active=4)
    torch.cuda.synchronize()


def train_mlp():
    """A small training loop with autograd's backward thread and AdamW, and
    the caching allocator's history for the memory snapshot fixture."""
    torch.cuda.memory._record_memory_history(stacks="python", max_entries=4000)
    model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(1024, 4096),
                                                      torch.nn.GELU(),
                                                      torch.nn.Linear(4096, 1024))
                                  for _ in range(4)]).to(DEV)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(64, 1024, device=DEV)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        loss.item()
    record("train_mlp", step)
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    with gzip.open(os.path.join(OUT, "memory_snapshot.json.gz"), "wt", compresslevel=9) as f:
        json.dump(snap, f, default=str)
    measured["scenarios"]["train_mlp"] = {"step_ms": median_ms(step)}


if __name__ == "__main__":
    import sys
    torch.manual_seed(0)
    for fn in (gpu_bound, host_bound, side_stream, graph_decode, cudnn_cold,
               cudnn_cold_steps, queued_ahead, train_mlp):
        if len(sys.argv) > 1 and fn.__name__ not in sys.argv[1:]:
            continue
        scenario(fn)
        with open(os.path.join(OUT, "measured.json"), "w") as f:
            json.dump(measured, f, indent=1)
