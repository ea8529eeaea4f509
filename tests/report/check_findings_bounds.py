#!/usr/bin/env python3
"""Fixture tests for issue 29's honest bounds, one per defect, each named
after the defect (not after a trace):

    check_findings_bounds.py PROFDB WORK_DIR

- blocking_copy_is_host_sync: a 3 ms hipMemcpyWithStream (ROCm's blocking
  .cpu() / .item()) with the GPU idle is a host sync: sync_sum lists it
  and the synchronization finding names the copy in its advice.
- dtod_sync_copy_is_not_host_sync: a synchronous cudaMemcpy whose copy ran
  device to device does not block the host (CUDA runtime API, "API
  synchronization behavior"): no sync, no finding.
- fragmentation_saving_above_reserved_minus_requested: a snapshot whose
  segments overlap (one 64 MiB segment laid over two others) and whose
  peak holds an allocation outside every segment: the free space inside
  segments (144 MiB) is more than reserved - requested at the peak
  (44 MiB); the saving is the latter, the overlap is a warning in
  import_stats and the confidence is low.
- fragmentation_claimed_on_expandable_segments: with expandable segments
  (the allocator setting, or a segment's is_expandable) no fragmentation
  finding (their mapping is not modelled).
- fast_fp16_gemm_no_2x_promise: fp16 tensor-core GEMMs at 86% of the
  A100's dense fp16 peak (shapes recorded) are faster than the 60% of
  peak that bounds the saving: no finding (was: half their time, "use
  bf16/fp16 autocast"); smaller GEMMs at 30% of the peak
  are promised their time above 60% of the peak, without autocast.
- nvfp4_gemm_no_bf16_advice: NVFP4 GEMMs (no shapes: no evidence) are
  promised nothing and told nothing about bf16/fp16; the same time in
  fp32 sgemm kernels is promised half with the autocast advice.
- sm80_gemm_on_sm90_not_named: a GEMM kernel built for sm80 running on an
  H100 (sm90) is named in the action and first in the subjects.
- dtod_copies_told_to_pin_memory: exposed device-to-device copies are not
  told to pin host memory (it cannot help them) but to avoid the copies;
  pageable host copies still are, and copies that are already pinned are
  told to overlap instead.
- deepep_alltoall_is_communication: DeepEP's expert-parallel all-to-all
  kernels (names as CUPTI writes them) are Communication, so the
  communication section sees them; look-alikes are not.
The expected figures are derived here from the fixture's own events, not
from profdb's output.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import run_checks  # noqa: E402
from check_rules import MiB, Trace, busy, frames, fragmented, seg  # noqa: E402


def copy_call(t, api, copy_name, ts, dur, copy_dur=5):
    """A synchronous copy call of dur us at ts whose copy runs at its end."""
    t.corr += 1
    t.x("cuda_runtime", api, ts, dur, correlation=t.corr)
    t.x("gpu_memcpy", copy_name, ts + dur - copy_dur - 1, copy_dur, tid=7, pid=0, device=0,
        stream=7, correlation=t.corr)


def report(profdb, work, name, doc, sections=("findings",)):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    out = os.path.join(work, name + ".out.json")
    args = [profdb, "report", path, "--json", out]
    for s in sections:
        args += ["--section", s]
    r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL {name}: profdb report exit {r.returncode}: {r.stderr[:300]}")
    with open(out) as f:
        return json.load(f)


def rows(doc, section):
    for s in doc.get("sections", []):
        if s.get("id") == section:
            return s.get("rows", [])
    return []


def findings(doc, rule):
    return [x for x in doc["findings"] if x["rule"] == rule]


def blocking_copy_is_host_sync(profdb, work, problems):
    # steps 2 and 3 are analysed: GPU busy 5 ms, then a 3 ms blocking copy
    # with nothing on the GPU but its own 5 us copy at its end
    doc = report(profdb, work, "blocking_copy_is_host_sync", Trace().build(lambda t, s: (
        busy(t, s, 5000), copy_call(t, "hipMemcpyWithStream", "Memcpy DtoH (Device -> Host)",
                                    s + 5300, 3000))), ("findings", "sync_sum"))
    sync = {r["name"]: r for r in rows(doc, "sync_sum")}
    if "hipMemcpyWithStream" not in sync:
        problems.append(f"blocking_copy_is_host_sync: sync_sum lists {sorted(sync)}")
    elif sync["hipMemcpyWithStream"]["total_dur_ns"] != 2 * 3000 * 1000:
        problems.append("blocking_copy_is_host_sync: total_dur_ns "
                        f"{sync['hipMemcpyWithStream']['total_dur_ns']}, want 6000000 (2 steps x 3 ms)")
    f = findings(doc, "synchronization")
    # 3 ms less the 5 us copy, per analysed 10 ms step
    if not f:
        problems.append("blocking_copy_is_host_sync: no synchronization finding")
    else:
        f = f[0]
        if "hipMemcpyWithStream" not in f["action"] or "non_blocking" not in f["action"]:
            problems.append(f"blocking_copy_is_host_sync: generic action: {f['action']}")
        if f["expected_saving_ns"] != 2995000:
            problems.append(f"blocking_copy_is_host_sync: saving {f['expected_saving_ns']}, want 2995000")


def dtod_sync_copy_is_not_host_sync(profdb, work, problems):
    doc = report(profdb, work, "dtod_sync_copy_is_not_host_sync", Trace().build(lambda t, s: (
        busy(t, s, 5000), copy_call(t, "cudaMemcpy", "Memcpy DtoD (Device -> Device)",
                                    s + 5300, 3000))), ("findings", "sync_sum"))
    names = [r["name"] for r in rows(doc, "sync_sum")]
    if "cudaMemcpy" in names or findings(doc, "synchronization"):
        problems.append(f"dtod_sync_copy_is_not_host_sync: counted as a sync ({names})")
    # the same call copying device to host is one
    doc = report(profdb, work, "dtoh_sync_copy_is_host_sync", Trace().build(lambda t, s: (
        busy(t, s, 5000), copy_call(t, "cudaMemcpy", "Memcpy DtoH (Device -> Pageable)",
                                    s + 5300, 3000))), ("findings", "sync_sum"))
    if "cudaMemcpy" not in [r["name"] for r in rows(doc, "sync_sum")]:
        problems.append("dtod_sync_copy_is_not_host_sync: a DtoH cudaMemcpy is not a sync")


DEEPEP = {  # kernel name -> category it must get
    "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int, int const*, int*, int,"
    " int, int, bool const*, int*, int*, int, void**, int**, int)": "NCCL/communication",
    "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*,"
    " int*, int4 const*, float const*, long const*, float const*, bool const*, int const*, int,"
    " int, int, int, int, int, int, void**, int, int, int)": "NCCL/communication",
    "void deep_ep::intranode::cached_notify_combine<8>(void**, int*, int, int, int, int**, int)":
        "NCCL/communication",
    "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(__nv_bfloat16*, float*,"
    " __nv_bfloat16 const*, float const*, int const*, int const*, int const*, void**, int const*,"
    " int, int, int, int, int)": "NCCL/communication",
    "void deep_ep::internode_ll::dispatch<false, 3, 7168>(void*, float*, int*, long*, int*,"
    " int*, void*, int*, void*, int*, void const*, long const*, int*, int*, int, int, int, int,"
    " int, int, int, bool)": "NCCL/communication",
    "void mori::moe::EpCombineIntraNodeKernel<__hip_bfloat16, true>(mori::moe::"
    "EpDispatchCombineArgs<__hip_bfloat16>)": "NCCL/communication",
    # look-alikes
    "void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*,"
    " int, int, int, int)": "MoE routing",
    "void (anonymous namespace)::groupnorm_kernel_dispatch_down<__hip_bfloat16, 1024u>(unsigned"
    " int, unsigned int, long, float, bool, __hip_bfloat16 const*, __hip_bfloat16 const*,"
    " __hip_bfloat16 const*, float const*, float const*, __hip_bfloat16*)": "Normalization",
}


def deepep_alltoall_is_communication(profdb, work, problems):
    names = list(DEEPEP)
    doc = report(profdb, work, "deepep_alltoall_is_communication", Trace().build(lambda t, s: [
        t.gpu(n, s + 200 + 1000 * i, 500, stream=20) for i, n in enumerate(names)]),
        ("gpu_kernel_sum", "kernel_category_sum"))
    got = {r["name"]: r.get("category") for r in rows(doc, "gpu_kernel_sum")}
    for n, want in DEEPEP.items():
        if got.get(n) != want:
            problems.append(f"deepep_alltoall_is_communication: {n[:50]} is {got.get(n)}, want {want}")
    # 6 communication kernels of 500 us in each of the 2 analysed steps
    cats = {r["category"]: r for r in rows(doc, "kernel_category_sum")}
    comm = cats.get("NCCL/communication", {})
    if comm.get("total_dur_ns") != 6 * 500000 * 2:
        problems.append(f"deepep_alltoall_is_communication: communication {comm}, want 6 ms")


def fragmentation_saving_above_reserved_minus_requested(profdb, work, problems):
    doc = fragmented(12)  # 12 segments of 64 MiB: 32 + 20 MiB live, a 12 MiB hole
    a = 0x7F0000000000
    doc["segments"].append(seg(a + 16 * MiB, 64 * MiB, [
        (a + 16 * MiB, 64 * MiB, 64 * MiB, "active_allocated", frames("dup"))]))
    doc["device_traces"] = [[{"action": "alloc", "addr": 0x100000, "size": 100 * MiB,
                              "time_us": 1, "frames": frames("outside")}]]
    reserved = 13 * 64 * MiB
    requested = 12 * (32 + 20) * MiB + 64 * MiB + 100 * MiB
    out = report(profdb, work, "fragmentation_saving_above_reserved_minus_requested", doc)
    f = findings(out, "fragmentation")
    if not f:
        problems.append("fragmentation_saving_above_reserved_minus_requested: no finding")
        return
    f = f[0]
    if f["expected_saving_bytes"] != reserved - requested:
        problems.append("fragmentation_saving_above_reserved_minus_requested: saving "
                        f"{f['expected_saving_bytes']}, want {reserved - requested}")
    if f["confidence"] != "low" or not f["evidence"]["figures"].get("overlapping_segments"):
        problems.append("fragmentation_saving_above_reserved_minus_requested: confidence "
                        f"{f['confidence']}, figures {f['evidence']['figures']}")
    db = os.path.join(work, "overlap.db")
    if os.path.exists(db):
        os.remove(db)
    subprocess.run([profdb, "load", "-q", os.path.join(
        work, "fragmentation_saving_above_reserved_minus_requested.json"), "-o", db], check=True)
    r = subprocess.run([profdb, "query", db, "--csv", "SELECT severity, value FROM import_stats"
                        " WHERE name = 'snapshot_overlapping_segments'"],
                       capture_output=True, text=True)
    # the 13th segment overlaps the first, and the second starts inside it
    if r.stdout.split() != ["severity,value", "warning,2"]:
        problems.append(f"fragmentation_saving_above_reserved_minus_requested: import_stats {r.stdout!r}")


def fragmentation_claimed_on_expandable_segments(profdb, work, problems):
    on = fragmented(12)
    on["allocator_settings"] = {"expandable_segments": True}
    marked = fragmented(12)
    for s in marked["segments"]:
        s["is_expandable"] = True
    for name, doc in (("setting", on), ("segments", marked)):
        if findings(report(profdb, work, "fragmentation_expandable_" + name, doc), "fragmentation"):
            problems.append(f"fragmentation_claimed_on_expandable_segments: fires ({name})")
    if not findings(report(profdb, work, "fragmentation_expandable_off", fragmented(12)),
                    "fragmentation"):
        problems.append("fragmentation_claimed_on_expandable_segments: the control does not fire")


def gemm_trace(device, cc, kernel, dims=None, dtype=None, dur=8000):
    """Each step: one GEMM kernel of dur us, launched inside aten::mm with
    Input Dims dims and Input type dtype (no shapes when dims is None), and
    the host waiting for it in a sync (as a loop reading its loss): with
    the GPU idle 20% or more of the step, only the GEMM time the host
    waits for is promised (the critical path), here all of it."""
    def step(t, s):
        if dims:
            t.x("cpu_op", "aten::mm", s + 90, 30, **{"Input Dims": dims, "Input type": [dtype, dtype]})
        t.gpu(kernel, s + 200, dur, launch_ts=s + 100)
        t.x("cuda_runtime", "cudaDeviceSynchronize", s + 130, dur + 100)
    doc = Trace().build(step)
    doc["deviceProperties"] = [{"id": 0, "name": device, "totalGlobalMem": 80 << 30,
                                "computeMajor": cc[0], "computeMinor": cc[1]}]
    return doc


def fast_fp16_gemm_no_2x_promise(profdb, work, problems):
    n = 10240
    k = "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_nn"
    doc = gemm_trace("NVIDIA A100-SXM4-80GB", (8, 0), k, [[n, n], [n, n]], "c10::Half")
    f = findings(report(profdb, work, "fast_fp16_gemm_no_2x_promise", doc), "dominant_category")
    # 2*n^3 FLOPs at the A100's 312 TFLOP/s dense fp16 take 6.88 ms of the
    # 8 ms: 86% of the peak, above the 60% target
    if f:
        problems.append(f"fast_fp16_gemm_no_2x_promise: fires: {f[0]['expected_impact']}")
    n = 6144  # 0.46 TFLOP in 5 ms of each 10 ms step: 30% of the peak
    doc = gemm_trace("NVIDIA A100-SXM4-80GB", (8, 0), k, [[n, n], [n, n]], "c10::Half", dur=5000)
    f = findings(report(profdb, work, "slow_fp16_gemm", doc), "dominant_category")
    want = 5000000 - 2 * n ** 3 / (0.6 * 312e3)
    if not f:
        problems.append("fast_fp16_gemm_no_2x_promise: a GEMM at 29% of peak: no finding")
        return
    f = f[0]
    if abs(f["expected_saving_ns"] - want) > 1000:
        problems.append(f"fast_fp16_gemm_no_2x_promise: saving {f['expected_saving_ns']}, want {want:.0f}")
    if "autocast" in f["action"].replace("autocast changes nothing", "") or "2x" in f["expected_impact"]:
        problems.append(f"fast_fp16_gemm_no_2x_promise: {f['action']} / {f['expected_impact']}")


def nvfp4_gemm_no_bf16_advice(profdb, work, problems):
    nvfp4 = ("cutlass3x_sm100_bstensorop_s256x128x256gemm_block_scaled_ue4m3xnvfp4_ue4m3xnvfp4"
             "_f32_bf16_bf16_256x128x256_2x1x1_0_tnt_align32_o_vs16_2sm")
    f = findings(report(profdb, work, "nvfp4_gemm_no_bf16_advice",
                        gemm_trace("NVIDIA B200", (10, 0), nvfp4)), "dominant_category")
    if f and ("bf16/fp16" in f[0]["action"] or f[0]["expected_saving_ns"]):
        problems.append(f"nvfp4_gemm_no_bf16_advice: {f[0]['action']} ({f[0]['expected_saving_ns']})")
    f = findings(report(profdb, work, "fp32_gemm_autocast", gemm_trace(
        "NVIDIA B200", (10, 0), "ampere_sgemm_128x64_nn")), "dominant_category")
    if not f or "autocast" not in f[0]["action"] or f[0]["expected_saving_ns"] != 4000000:
        problems.append(f"nvfp4_gemm_no_bf16_advice: the fp32 control: {f}")


def sm80_gemm_on_sm90_not_named(profdb, work, problems):
    n = 8192
    k = ("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1"
         "_tensor16x8x16_kernel")
    doc = gemm_trace("NVIDIA H100 80GB HBM3", (9, 0), k, [[n, n], [n, n]], "c10::BFloat16")
    f = findings(report(profdb, work, "sm80_gemm_on_sm90_not_named", doc), "dominant_category")
    want = 8000000 - 2 * n ** 3 / (0.6 * 989.4e3)  # at 60% of the H100 SXM's bf16 peak
    if not f:
        problems.append("sm80_gemm_on_sm90_not_named: no finding")
        return
    f = f[0]
    if k not in f["action"] or "sm90" not in f["action"] or f["subjects"][0]["kernel"] != k:
        problems.append(f"sm80_gemm_on_sm90_not_named: {f['action']} {f['subjects']}")
    if abs(f["expected_saving_ns"] - want) > 1000:
        problems.append(f"sm80_gemm_on_sm90_not_named: saving {f['expected_saving_ns']}, want {want:.0f}")
    # an sm120 CUTLASS kernel (it also names the SM90 TMA loads it reuses) on
    # an sm121 GB10 is its own generation's (issue 44's tenth unseen audit:
    # "100% of GEMM time ... built for an older GPU (sm90)")
    k120 = ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, "
            "int, int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::"
            "MainloopSm120TmaWarpSpecializedBlockScaled<3, 2, cute::tuple<cute::C<1>, cute::C<1>, "
            "cute::C<1> >, cutlass::gemm::KernelTmaWarpSpecializedCooperativeBlockScaledSm120<2> >, "
            "cute::SM90_TMA_LOAD, cutlass::nv_float4_t<cutlass::float_e2m1_t> > > >(void)")
    f = findings(report(profdb, work, "sm120_gemm_on_sm121", gemm_trace(
        "NVIDIA GB10", (12, 1), k120)), "dominant_category")
    if not f or "older GPU" in f[0]["action"]:
        problems.append(f"sm80_gemm_on_sm90_not_named: an sm120 kernel on a GB10 named: {f}")
    # fp32 SIMT kernels have no newer build: ampere_sgemm on an H100 is no outlier
    f = findings(report(profdb, work, "sm80_sgemm_on_sm90", gemm_trace(
        "NVIDIA H100 80GB HBM3", (9, 0), "ampere_sgemm_128x64_nn")), "dominant_category")
    if not f or "older GPU" in f[0]["action"]:
        problems.append(f"sm80_gemm_on_sm90_not_named: ampere_sgemm on an H100 named: {f}")


def dtod_copies_told_to_pin_memory(profdb, work, problems):
    # per step: 5 ms of kernel, then 3 ms of one kind of copy with no kernel,
    # the host waiting for it (a copy nothing waits for saves nothing)
    want = {"Memcpy DtoD (Device -> Device)": ("device-to-device", "pin_memory=True"),
            "Memcpy HtoD (Pageable -> Device)": ("pin_memory=True", None),
            "Memcpy HtoD (Pinned -> Device)": ("side stream", "pin_memory=True")}
    for i, (copy, (needed, banned)) in enumerate(want.items()):
        doc = report(profdb, work, f"copies_{i}", Trace().build(lambda t, s: (
            busy(t, s, 5000), t.gpu(copy, s + 5300, 3000, cat="gpu_memcpy",
                                    launch_ts=s + 5250),
            t.x("cuda_runtime", "cudaDeviceSynchronize", s + 5260, 3100))))
        f = findings(doc, "memcpy")
        if not f:
            problems.append(f"dtod_copies_told_to_pin_memory: no memcpy finding for {copy}")
            continue
        text = f[0]["hypothesis"] + " " + f[0]["action"]
        if needed not in text or (banned and banned in f[0]["action"]):
            problems.append(f"dtod_copies_told_to_pin_memory: {copy}: {f[0]['action']}")
        # 3 ms exposed per 10 ms step, 2 analysed steps
        if f[0]["expected_saving_ns"] != 3000 * 1000:
            problems.append(f"dtod_copies_told_to_pin_memory: {copy}: saving "
                            f"{f[0]['expected_saving_ns']}, want 3000000")



CHECKS = [blocking_copy_is_host_sync, dtod_sync_copy_is_not_host_sync,
          deepep_alltoall_is_communication, fragmentation_saving_above_reserved_minus_requested,
          fragmentation_claimed_on_expandable_segments, fast_fp16_gemm_no_2x_promise,
          nvfp4_gemm_no_bf16_advice, sm80_gemm_on_sm90_not_named, dtod_copies_told_to_pin_memory]


def main():
    profdb, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    return run_checks(CHECKS, profdb, work)


if __name__ == "__main__":
    sys.exit(main())
