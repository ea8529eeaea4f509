#!/usr/bin/env python3
"""The "whose time and whose memory" sections on the fixtures of
make_whose_fixtures.py, against figures derived by hand from it.

    check_whose.py PROFDB DATA_DIR WORK_DIR

- op_gpu_sum: device self times of every operator plus '(no operator)'
  add up to all GPU time (96 us); aten::linear's total is its addmm's.
- module_sum: the tree Net_0 > Linear_0 with its GPU time; annotation_sum:
  the tree forward > gemms.
- gemm_efficiency: FLOPs per call of each operator kind (hand values), and
  achieved TFLOP/s = FLOPs / kernel time.
- mem_peak_context: the peak (5 MiB, step 2, aten::addmm, Net_0 > Linear_0)
  and the per-step rows with the clocks aligned, the steps marked on the
  memory timeline chart; a relative-clock trace and
  a snapshot an hour later are reported as unaligned, with the reason.
- op_memory_sum: the [memory] events charged to aten::addmm.
"""
import json
import os
import subprocess
import sys

MiB = 1 << 20
# FLOPs by hand (2 per multiply-add) of the fixture's calls
FLOPS = {
    "aten::mm": 2 * 64 * 128 * 256,
    "aten::addmm": 2 * 64 * 128 * 256,
    "aten::linear": 2 * 64 * 128 * 256,
    "aten::bmm": 2 * 8 * 32 * 64 * 16,
    "aten::baddbmm": 2 * 8 * 32 * 64 * 16,
    "aten::matmul": 2 * 4 * 32 * 64 * 16,
    "aten::convolution": 2 * 2 * 16 * (16 * 16) * 3 * 9,      # stride 2, pad 1: 16x16 out
    "aten::convolution_backward": 2 * (2 * 2 * 16 * (16 * 16) * 3 * 9),  # grad input + grad weight
    "aten::scaled_dot_product_attention": 2 * 8 * 128 * 256 * 64 + 2 * 8 * 128 * 256 * 32,
}
# kernel time (us) per call in the fixture (addmm: 10 us, called twice)
KERNEL_US = {"aten::mm": 10, "aten::addmm": 10, "aten::linear": 10, "aten::bmm": 4,
             "aten::baddbmm": 4, "aten::matmul": 2, "aten::convolution": 8,
             "aten::convolution_backward": 16, "aten::scaled_dot_product_attention": 20}

problems = []


def check(cond, what):
    if not cond:
        problems.append(what)


def report(profdb, data, work, *inputs):
    out = os.path.join(work, "out.json")
    subprocess.run([profdb, "report", *inputs, "--include-warmup", "--top", "100", "--json", out,
                    "--md", os.path.join(work, "out.md")],
                   cwd=data, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return {s["id"]: s for s in json.load(f)["sections"]}


def main():
    profdb, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    s = report(profdb, data, work, "whose_trace.json", "whose_snapshot.json")

    ops = {r["name"]: r for r in s["op_gpu_sum"]["rows"]}
    gpu_total_ns = (2 * 10 + 10 + 4 + 4 + 2 + 8 + 16 + 20 + 2 * 6) * 1000
    check(sum(r["device_self_ns"] for r in ops.values()) == gpu_total_ns,
          f"op_gpu_sum: device self times add up to {sum(r['device_self_ns'] for r in ops.values())}, "
          f"not {gpu_total_ns}")
    check(ops.get("(no operator)", {}).get("device_self_ns") == 12000, "op_gpu_sum: (no operator) is not 12 us")
    check(ops["aten::linear"]["device_self_ns"] == 0 and ops["aten::linear"]["device_total_ns"] == 20000,
          "op_gpu_sum: aten::linear should have 0 self and 20 us total (its addmm's)")

    mods = {r["path"]: r for r in s["module_sum"]["rows"]}
    check(set(mods) == {"Net_0", "Net_0 > Linear_0"}, f"module_sum paths {sorted(mods)}")
    # Net_0 encloses every launch but the copies; Linear_0 the addmm calls, mm and bmm
    check(mods.get("Net_0", {}).get("device_total_ns") == gpu_total_ns - 12000, "module_sum: Net_0 GPU time")
    check(mods.get("Net_0 > Linear_0", {}).get("device_total_ns") == (20 + 10 + 4) * 1000,
          "module_sum: Linear_0 GPU time")
    check(mods.get("Net_0 > Linear_0", {}).get("parent_path") == "Net_0", "module_sum: parent_path")

    ann = {r["path"]: r for r in s["annotation_sum"]["rows"]}
    check(set(ann) == {"forward", "forward > gemms"}, f"annotation_sum paths {sorted(ann)}")
    check(ann.get("forward", {}).get("calls") == 2
          and ann.get("forward", {}).get("device_total_ns") == gpu_total_ns - 12000,
          f"annotation_sum: forward {ann.get('forward')}")
    # gemms encloses baddbmm, matmul, convolution, its backward and sdpa
    check(ann.get("forward > gemms", {}).get("device_total_ns") == (4 + 2 + 8 + 16 + 20) * 1000,
          f"annotation_sum: gemms {ann.get('forward > gemms')}")

    src = {r["source"]: r for r in s["source_gpu_sum"]["rows"]}
    check(src.get("model.py:42 forward", {}).get("device_total_ns") == gpu_total_ns - 12000,
          f"source_gpu_sum: model.py:42 should carry the operators' GPU time: {src}")

    gemm = {r["name"]: r for r in s["gemm_efficiency"]["rows"]}
    check(set(gemm) == set(FLOPS), f"gemm_efficiency counts {sorted(gemm)}")
    for name, flops in FLOPS.items():
        r = gemm.get(name)
        if not r:
            continue
        check(r["flops_per_call"] == flops, f"gemm_efficiency: {name} {r['flops_per_call']} FLOPs, not {flops}")
        want = round(flops / (KERNEL_US[name] * 1000) / 1000, 2)
        check(r["achieved_tflops"] == want, f"gemm_efficiency: {name} {r['achieved_tflops']} TFLOP/s, not {want}")
    check(gemm["aten::mm"]["peak_tflops"] == 989.4 and gemm["aten::bmm"]["peak_tflops"] == 66.9,
          "gemm_efficiency: H100 peaks for bf16 and fp32")
    mfu = {r["step"]: r for r in s["mfu_step"]["rows"]}
    # step 2 outermost calls: linear (addmm inside it not counted again) and the eight others
    step2 = sum(FLOPS.values()) - FLOPS["aten::addmm"]
    check(mfu.get(2, {}).get("counted_flops") == step2, f"mfu_step: step 2 counts {mfu.get(2)}, not {step2}")

    rows = s["mem_peak_context"]["rows"]
    peak = [r for r in rows if r["row"] == "peak"]
    steps = {r["step"]: r for r in rows if r["row"] == "step"}
    check(len(peak) == 1, f"mem_peak_context: {len(peak)} peak rows")
    if peak:
        p = peak[0]
        check((p["step"], p["at_ns"], p["allocated_bytes"], p["step_start_bytes"], p["operator"], p["module"])
              == (2, 1_180_000, 5 * MiB, MiB, "aten::addmm", "Net_0 > Linear_0"),
              f"mem_peak_context: peak row {p}")
    check(steps.get(1, {}).get("allocated_bytes") == MiB and steps.get(1, {}).get("step_start_bytes") == 0
          and steps.get(1, {}).get("at_ns") == 180_000, f"mem_peak_context: step 1 {steps.get(1)}")
    check(steps.get(2, {}).get("step_start_bytes") == MiB, f"mem_peak_context: step 2 {steps.get(2)}")

    with open(os.path.join(work, "out.mem_peak.1_0.svg")) as f:
        svg = f.read()
    check(">step 1<" in svg and ">step 2<" in svg, "the memory timeline chart does not mark the steps")

    mem = {(r["name"], r["device"]): r for r in s["op_memory_sum"]["rows"]}
    a = mem.get(("aten::addmm", "CUDA:0"), {})
    check(a.get("allocations") == 2 and a.get("size_increase_bytes") == 2 * MiB, f"op_memory_sum: addmm {a}")

    for trace, snap, reason in (("whose_trace_relative.json", "whose_snapshot.json", "relative timestamps"),
                                ("whose_trace.json", "whose_snapshot_late.json", "no overlap")):
        rows = report(profdb, data, work, trace, snap)["mem_peak_context"]["rows"]
        check(len(rows) == 1 and rows[0]["row"] == "unaligned" and reason in (rows[0]["note"] or ""),
              f"mem_peak_context: {trace} + {snap} should be unaligned ({reason}): {rows}")

    for p in problems:
        print(p)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
