#!/usr/bin/env python3
"""Write the two-GPU diff fixture into tests/report/data/ (committed).

    make_gpu_pair.py [OUT_DIR]

The same small transformer block traced on an A100 and on an H100: the
same CPU operators with the same input shapes, but the GPU runs other
kernels for the GEMMs and the attention (cuBLAS / FlashAttention pick
per-architecture kernels), so almost no GEMM or attention kernel name
is shared.  The layer norm and the GELU kernels keep their names.
`profdb diff gpu_a100.json gpu_h100.json` must pair the renamed kernels
by the operator that launched them.

Six steps per run (the first is warm-up), with a deterministic jitter of
a few percent, so the noise test has five steps a side.  The H100 run is
faster; its CUDA runtime is newer.  Times in microseconds.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from make_fixtures import Trace  # noqa: E402  (event writers of the report fixtures)

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "data")

LAYERNORM = ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
             "(int, float, float const*, float const*, float const*, float*, float*, float*)")
GELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
        "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
        "{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >"
        "(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
        "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
        "at::detail::Array<char*, 2>)")

# Per GPU: device name, CUDA runtime, kernel of each GEMM / attention
# launch, and the time scale of the GEMMs and attention (the H100 is faster).
GPUS = {
    "a100": {
        "device": "NVIDIA A100-SXM4-80GB", "cuda": 12010, "scale": 1.0,
        "qkv": "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
        "attn": "void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::half_t> >(Flash_fwd_params)",
        "proj": "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn",
        "fc1": "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_tn",
        "fc2": "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize256x128x32_stage3_warpsize4x2x1_tensor16x8x16_kernel",
    },
    "h100": {
        "device": "NVIDIA H100 80GB HBM3", "cuda": 12040, "scale": 0.55,
        "qkv": "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
        "attn": "void flash::flash_fwd_kernel_sm90<Flash_fwd_kernel_traits_sm90<64, 128, 128, 8> >(Flash_fwd_params)",
        "proj": "nvjet_hsh_128x256_64x4_1x2_h_bz_coopA_NTN",
        "fc1": "nvjet_hsh_256x128_64x4_2x1_v_bz_coopB_NTN",
        "fc2": "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
    },
}
JITTER = [1.00, 1.03, 0.98, 1.01, 0.97, 1.02]  # per step, both runs


class GpuTrace(Trace):
    def __init__(self, gpu):
        super().__init__(0)
        self.gpu = GPUS[gpu]

    def linear(self, tid, ts, shapes, kernel, gts, gdur):
        """aten::linear > aten::addmm > one GEMM kernel."""
        self.op("aten::linear", tid, ts, 40, **{"Input Dims": shapes})
        self.op("aten::addmm", tid, ts + 2, 35, **{"Input Dims": [shapes[2], shapes[0], shapes[1]]})
        self.launch("cudaLaunchKernel", tid, ts + 10, 8, "kernel", kernel, gts, gdur)

    def step(self, n, s, jitter):
        g, main = self.gpu, 100
        k = g["scale"] * jitter  # GEMM and attention time

        def gt(x):  # GPU times run 300 us behind the CPU
            return s + 300 + x

        self.x("user_annotation", f"ProfilerStep#{n}", main, s, 1000)
        self.op("aten::layer_norm", main, s + 10, 30, **{"Input Dims": [[8, 512, 1024], [], [1024], [1024], [], []]})
        self.launch("cudaLaunchKernel", main, s + 15, 8, "kernel", LAYERNORM, gt(0), 20 * jitter)
        self.linear(main, s + 50, [[8, 512, 1024], [3072, 1024], [3072]], g["qkv"], gt(25), 300 * k)
        self.op("aten::scaled_dot_product_attention", main, s + 100, 60,
                **{"Input Dims": [[8, 16, 512, 64], [8, 16, 512, 64], [8, 16, 512, 64], [], [], []]})
        self.op("aten::_flash_attention_forward", main, s + 105, 50,
                **{"Input Dims": [[8, 512, 16, 64], [8, 512, 16, 64], [8, 512, 16, 64]]})
        self.launch("cudaLaunchKernel", main, s + 110, 8, "kernel", g["attn"],
                    gt(25 + 300 * k + 5), 250 * k)
        base = 25 + 550 * k + 10
        self.linear(main, s + 170, [[8, 512, 1024], [1024, 1024], [1024]], g["proj"], gt(base), 100 * k)
        self.linear(main, s + 220, [[8, 512, 1024], [4096, 1024], [4096]], g["fc1"],
                    gt(base + 100 * k + 5), 400 * k)
        self.op("aten::gelu", main, s + 270, 20, **{"Input Dims": [[8, 512, 4096], []]})
        self.launch("cudaLaunchKernel", main, s + 275, 8, "kernel", GELU,
                    gt(base + 500 * k + 10), 40 * jitter)
        self.linear(main, s + 300, [[8, 512, 4096], [1024, 4096], [1024]], g["fc2"],
                    gt(base + 500 * k + 55), 400 * k)
        self.op("aten::item", main, s + 350, 600)
        self.x("cuda_runtime", "cudaStreamSynchronize", main, s + 355, 590, correlation=0, cbid=131)

    def document(self):
        doc = super().document()
        doc["deviceProperties"][0]["name"] = self.gpu["device"]
        doc["deviceProperties"][0]["computeMajor"] = 9 if "H100" in self.gpu["device"] else 8
        del doc["distributedInfo"]
        doc["cuda_runtime_version"] = self.gpu["cuda"]
        doc["traceName"] = "block.pt.trace.json"
        return doc


def trace(gpu):
    t = GpuTrace(gpu)
    start = 5000
    for n, jitter in enumerate(JITTER, 1):
        t.step(n, start, jitter)
        start += 2500
    return t.document()


def main():
    os.makedirs(OUT, exist_ok=True)
    for gpu in GPUS:
        with open(os.path.join(OUT, f"gpu_{gpu}.json"), "w") as f:
            json.dump(trace(gpu), f, indent=None, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()
