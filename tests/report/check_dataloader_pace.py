#!/usr/bin/env python3
"""Who sets the loop's pace: the DataLoader (issue 44's audit: param
resnet_kineto's loop waits 200-750 ms for a batch in 19 of its 29 later
next() calls, and its copies and Convolution kernels were promised 630 and
309 ms a faster loop cannot recover), or the host while the GPU finishes a
step (kineto's resnet50 traces: Convolution time past each step's CPU
range, which the next step never waits for, promised to faster kernels).
One case per shape of loop, each on a fixture written here:

    check_dataloader_pace.py PROFDB CASE PUBLIC_DIR WORK_DIR

Every fixture has 10 iterations of: a DataLoader next(), a 5 ms pageable
host-to-device copy (its cudaMemcpyAsync blocks until it ends), 3 ms of
aten::mul with the GPU idle, a 10 ms kernel.  The first next() takes
500 ms (the workers start).  CASE is one of:

  dataloader_pace_promised_to_consumer  no ProfilerSteps; a multi-process
                   iterator whose later calls wait 40 ms each: the workers
                   set the pace, so a faster loop only waits longer, and no
                   finding but data_loading promises anything; memcpy (50
                   ms of exposed copies) promises 0 and says why, its
                   saving before the bound in its evidence
  dataloader_pace_steps  the same with a ProfilerStep per iteration (the
                   first one warm-up)
  dataloader_paced_two_steady_calls  3 ProfilerSteps only (a schedule's
                   3 active steps, the first warm-up): 2 steady next()
                   calls, both waiting 40 ms, pace the loop as 3 or more
                   do (issue 44's audit of unseen traces: a T4 MLP's 3-step
                   profile whose loop waited 22 and 62 ms got gpu_idle and
                   dominant_category savings)
  dataloader_single_process_not_paced  the same loop with a
                   _SingleProcessDataLoaderIter (it loads in next(), in
                   series with the loop): memcpy promises all 50 ms
  dataloader_ready_not_paced  a multi-process iterator whose later calls
                   return in 50 us (the batch was ready: the loop sets the
                   pace): memcpy promises all 50 ms
  dataloader_overhead_not_paced  a multi-process iterator whose later
                   calls all take 3 ms (a batch of many tensors rebuilt in
                   every call: the loop's own work, not a wait): memcpy
                   promises all 50 ms

  kernel_tail_not_waited_promised  six ProfilerSteps (the first warm-up),
                   each 30 ms of single-process data loading, then a 1 ms
                   operator launching a 10 ms Convolution kernel; the
                   step's CPU range ends 0.5 ms after the launch, so the
                   kernel runs 9.5 ms past it while the next step loads
                   its data (its launch comes 30 ms later): nothing waits
                   for it, and dominant_category promises 0 (it promised
                   half the kernel time in those tails)

The expected figures come from the fixture's own events, never from
profdb.  PUBLIC_DIR is unused (the public traces are compared with
tests/real/outputs.sh).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import run_case  # noqa: E402
from check_one_time_costs import US, Rank, report, saving  # noqa: E402

MULTI = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
SINGLE = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
COPY_US = 5000
N = 10


def loop_trace(next_name=MULTI, later_us=40000, steps=False, n=N):
    """The fixture's loop of n iterations, as a trace document."""
    t = Rank()
    ts = 1000
    for i in range(n):
        begin = ts
        dur = 500000 if i == 0 else later_us
        t.x("user_annotation", next_name, ts, dur)
        ts += dur + 10
        t.corr += 1
        t.x("cuda_runtime", "cudaMemcpyAsync", ts, COPY_US + 20, correlation=t.corr)
        t.x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", ts + 10, COPY_US, tid=7, pid=0,
            device=0, stream=7, correlation=t.corr, bytes=64 << 20)
        ts += COPY_US + 30
        t.x("cpu_op", "aten::mul", ts, 3000)
        ts += 3000
        ts = t.launch(ts, 8, "void gemm_kernel<float>()", kernel_us=10000) + 100
        if steps:
            t.x("user_annotation", f"ProfilerStep#{i + 1}", begin - 5, ts - begin + 5)
    return t.doc()


def check_paced(found, copies_ns):
    problems = [f"{r} promises {f['expected_saving_ns']} ns in a loop its DataLoader paces"
                for r, f in found.items()
                if r != "data_loading" and (f["expected_saving_ns"] or 0) > 0]
    m = found.get("memcpy")
    if not m or m["expected_saving_ns"] != 0:
        problems.append(f"memcpy: {m and m['expected_saving_ns']} ns, want 0")
    elif m["evidence"]["figures"].get("saving_before_pace_ns") != copies_ns \
            or "DataLoader sets the pace" not in m["expected_impact"]:
        problems.append(f"memcpy does not say what the pace cut: {m['expected_impact']}, "
                        f"{m['evidence']['figures']}")
    if "data_loading" not in found:
        problems.append("data_loading does not fire on a loop that waits for its batches")
    return problems


def case_dataloader_pace_promised_to_consumer(profdb, public_dir, work):
    found = report(profdb, work, "paced", [loop_trace()])
    return check_paced(found, N * COPY_US * US)


def case_dataloader_pace_steps(profdb, public_dir, work):
    found = report(profdb, work, "paced_steps", [loop_trace(steps=True)])
    return check_paced(found, COPY_US * US)


def case_dataloader_paced_two_steady_calls(profdb, public_dir, work):
    found = report(profdb, work, "paced_two", [loop_trace(steps=True, n=3)])
    return check_paced(found, COPY_US * US)


def not_paced(profdb, work, name, doc):
    found = report(profdb, work, name, [doc])
    want = N * COPY_US * US
    m = found.get("memcpy")
    if not m or m["expected_saving_ns"] != want \
            or "saving_before_pace_ns" in m["evidence"]["figures"]:
        return [f"memcpy promises {m and m['expected_saving_ns']} ns, want all {want} ns of "
                f"exposed copies (the loop sets its own pace)"]
    return []


def case_dataloader_single_process_not_paced(profdb, public_dir, work):
    return not_paced(profdb, work, "single", loop_trace(next_name=SINGLE))


def case_dataloader_ready_not_paced(profdb, public_dir, work):
    return not_paced(profdb, work, "ready", loop_trace(later_us=50))


def case_dataloader_overhead_not_paced(profdb, public_dir, work):
    return not_paced(profdb, work, "overhead", loop_trace(later_us=3000))


def case_kernel_tail_not_waited_promised(profdb, public_dir, work):
    t = Rank()
    ts = 1000
    for i in range(6):
        begin = ts
        t.x("user_annotation", SINGLE, ts, 30000)
        ts += 30000
        t.x("cpu_op", "aten::conv2d", ts, 1000)
        t.launch(ts + 100, 8, "void cudnn::detail::implicit_convolve_sgemm<float, float>()",
                 kernel_us=10000)
        ts += 1000
        t.x("user_annotation", f"ProfilerStep#{i + 1}", begin, ts - begin + 500)
        ts += 510
    found = report(profdb, work, "tail", [t.doc()])
    d = found.get("dominant_category")
    problems = []
    if not d or d["expected_saving_ns"] != 0:
        problems.append(f"dominant_category promises {d and d['expected_saving_ns']} ns for "
                        f"Convolution time past each step's CPU range that no step waits for "
                        f"(the next step launches 30 ms after it ends)")
    promised = {r: f["expected_saving_ns"] for r, f in found.items()
                if r in ("fill_kernels", "low_gemm_efficiency") and f["expected_saving_ns"]}
    if promised:
        problems.append(f"kernel-time findings promise {promised}")
    return problems


if __name__ == "__main__":
    sys.exit(run_case(globals()))
