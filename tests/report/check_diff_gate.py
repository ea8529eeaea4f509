#!/usr/bin/env python3
"""profdb diff: the regression gate, the noise test and matching across
hardware, on the committed fixtures.

    check_diff_gate.py PROFDB FIXTURE_DIR WORK_DIR

  * every gate metric on the fixtures' before/after pair (make_fixtures.py):
    the figures it reads, worked out from the generator's design, and its
    verdict flipping at the measured change (a limit just under it fails
    with exit 10, one just over it passes with exit 0), in each limit form
    (% relative, pt points, a change with a unit, an after value);
  * exit codes: 0 pass, 10 fail, 2 for a malformed --fail-if (the message
    names the check and what is wrong), 1 for a malformed --gate file line
    (FILE:LINE), 2 for a missing --gate file; the outputs are still written
    on a failing gate;
  * the Markdown's first line (PASS / FAIL with the failing checks) and the
    JSON "gate" object;
  * the noise test: one step a side cannot tell noise from change; a
    'significant' check passes a change that is within the spread; the
    two-GPU pair's change is beyond it;
  * the two-GPU pair (make_gpu_pair.py): most kernel time matched by
    operator, each renamed GEMM paired with its counterpart, the caveats
    naming the GPUs and the CUDA runtimes.
"""
import json
import os
import subprocess
import sys

profdb, fixtures, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


def db(name, *files):
    path = os.path.join(work, name)
    if os.path.exists(path):
        os.remove(path)
    subprocess.run([profdb, "load", "-q", *files, "-o", path], cwd=fixtures, check=True)
    return path


def diff(before, after, *args):
    """Run profdb diff with --md and --json; return (exit code, md, json, stderr)."""
    md, js = os.path.join(work, "d.md"), os.path.join(work, "d.json")
    for f in (md, js):
        if os.path.exists(f):
            os.remove(f)
    p = subprocess.run([profdb, "diff", before, after, "--md", md, "--json", js, *args],
                       cwd=fixtures, capture_output=True, text=True)
    out_md = open(md).read() if os.path.exists(md) else None
    out_js = json.load(open(js)) if os.path.exists(js) else None
    return p.returncode, out_md, out_js, p.stderr


before = db("before.db", "train_rank0.json", "memory_snapshot.json")
after = db("after.db", "after_rank0.json", "after_memory_snapshot.json")

# ---- each metric: the figures, from the fixture's design ------------------
# make_fixtures.py: steps of 1000 us (two analysed, the first is warm-up);
# the forward GEMM 300 -> 200 us, the backward GEMM 200 us; GPU busy
# 782.5 -> 667.5 us a step; HtoD 65536 -> 131072 bytes plus a 4-byte DtoH;
# the all-reduce 250 us, 100 us of it under the backward GEMM (150 exposed);
# the snapshots' replayed peaks (tests/real/check_memreplay.py's reference
# agrees) 19922432 -> 22020084 bytes, reserved 23068672 both; one OOM before.
metrics = {
    # metric: (before, after, rule that measures a change, its measured value)
    "step_time": (1_000_000, 1_000_000, "step_time > {}%", 0.0),
    "step_time_median": (1_000_000, 1_000_000, "step_time_median > {}%", 0.0),
    "step_time_p95": (1_000_000, 1_000_000, "step_time_p95 > {}%", 0.0),
    "gpu_util": (78.25, 66.75, "gpu_util < {}pt", -11.5),
    "category[GEMM]": (500_000, 400_000, "category[GEMM] < {}%", -20.0),
    "kernel[ampere_sgemm_128x64_tn]": (300_000, 200_000, "kernel[ampere_sgemm_128x64_tn] < {}us", -100.0),
    "memcpy_bytes": (65540, 131076, "memcpy_bytes > {}%", 100.0 * 65536 / 65540),
    "comm_exposed": (150_000, 150_000, "comm_exposed > {}ns", 0.0),
    "peak_allocated": (19922432, 22020084, "peak_allocated > {}KiB", (22020084 - 19922432) / 1024),
    "peak_reserved": (23068672, 23068672, "peak_reserved > {}MiB", 0.0),
    "ooms": (1, 0, "ooms < {}", -1.0),
}
for metric, (b, a, form, measured) in metrics.items():
    greater = ">" in form
    # A limit just inside the measured change fails, one just beyond passes.
    eps = max(abs(measured) * 1e-3, 1e-3)
    fail_at = measured - eps if greater else measured + eps
    pass_at = measured + eps if greater else measured - eps
    for limit, want_rc in ((fail_at, 10), (pass_at, 0)):
        rule = form.format(f"{limit:+.6f}")
        rc, md, js, err = diff(before, after, "--fail-if", rule, "--section", "verdict")
        check(f"{rule}: exit code ({err.strip()})", rc, want_rc)
        if not js or "gate" not in js:
            failures.append(f"{rule}: no JSON gate")
            continue
        c = js["gate"]["checks"][0]
        check(f"{rule}: metric", c["metric"], metric)
        check(f"{rule}: before", round(c["before"], 6), b)
        check(f"{rule}: after", round(c["after"], 6), a)
        check(f"{rule}: passed", c["passed"], want_rc == 0)
        check(f"{rule}: gate passed", js["gate"]["passed"], want_rc == 0)
        first = md.split("\n", 1)[0]
        check(f"{rule}: first Markdown line", first.startswith("**FAIL:**" if want_rc else "**PASS:**"), True)
        if want_rc:
            check(f"{rule}: the failing check is named first", rule in first, True)

# An after value (no sign): the after run has no OOM, the before run had one.
rc, md, js, _ = diff(after, before, "--fail-if", "ooms > 0", "--section", "verdict")
check("ooms > 0 on a run with an OOM: exit", rc, 10)
rc, md, js, _ = diff(before, after, "--fail-if", "ooms > 0", "--section", "verdict")
check("ooms > 0 on a run without: exit", rc, 0)
# An after value needs only the after run: the before run has no snapshot.
trace_only = db("trace_only.db", "train_rank0.json")
rc, md, js, _ = diff(trace_only, after, "--fail-if", "ooms > 0", "--fail-if", "peak_allocated > +1%",
                     "--fail-if", "peak_allocated > 20MiB", "--section", "verdict")
check("one-sided snapshot: exit (21 MiB peak > 20 MiB)", rc, 10)
check("one-sided snapshot: passed", [c["passed"] for c in js["gate"]["checks"]], [True, None, False])
check("one-sided snapshot: note", js["gate"]["checks"][1]["note"], "the before run has no data for it")
# The forms of the issue, together: the peak grew 10.5%, utilization fell 11.5 points.
rc, md, js, _ = diff(before, after, "--fail-if", "step_time > +5%", "--fail-if",
                     "peak_allocated > +10%", "--fail-if", "gpu_util < -3pt", "--section", "verdict")
check("issue forms: exit", rc, 10)
check("issue forms: failing checks", [c["rule"] for c in js["gate"]["checks"] if not c["passed"]],
      ["peak_allocated > +10%", "gpu_util < -3pt"])
check("issue forms: peak change", js["gate"]["checks"][1]["change"],
      round(100.0 * (22020084 - 19922432) / 19922432, 4))
check("issue forms: JSON keys", sorted(js["gate"]["checks"][0]),
      sorted(["rule", "metric", "unit", "before", "after", "change", "limit", "measured", "passed",
              "noise", "note"]))
check("issue forms: first line", md.split("\n", 1)[0],
      "**FAIL:** `peak_allocated > +10%` (measured +10.5%); `gpu_util < -3pt` (measured -11.5pt)")

# A run compared with itself passes every check.
every = ["step_time > +0%", "step_time_median > +0%", "step_time_p95 > +0%", "gpu_util < -0pt",
         "category[GEMM] > +0%", "kernel[ampere_sgemm_128x64_tn] > +0%", "memcpy_bytes > +0%",
         "comm_exposed > +0%", "peak_allocated > +0%", "peak_reserved > +0B", "ooms > +0"]
args = [a for r in every for a in ("--fail-if", r)]
rc, md, js, _ = diff(before, before, *args, "--section", "verdict")
check("self: exit", rc, 0)
check("self: every check evaluated and passed", [c["passed"] for c in js["gate"]["checks"]],
      [True] * len(every))
check("self: first line", md.split("\n", 1)[0], f"**PASS:** {len(every)} of {len(every)} checks passed")

# ---- exit codes and messages for bad input ---------------------------------
bad = {
    "step_time > 5": "step_time is in ns: '' is not a unit of it (ns, us, ms, s",
    "step_time > 5%": "a % limit needs a sign",
    "step_time >> +5%": "expected a number",
    "step_tme > +5%": "unknown metric 'step_tme'",
    "gpu_util < -3": "pt (points) or",
    "step_time > +3pt": "'pt' (percentage points) applies to gpu_util only",
    "peak_allocated > +10ms": "is not a unit of it",
    "category > +5%": "category needs a name in brackets",
    "kernel[] > +5%": "needs a name",
    "gpu_util < -3pt significant": "'significant' applies to step_time metrics only",
    "step_time > +5% maybe": "unexpected 'maybe'",
    "step_time +5%": "expected an operator",
    "step_time > +nan%": "expected a number",
    "step_time > +0x10%": "is not a number",
}
for rule, why in bad.items():
    rc, md, js, err = diff(before, after, "--fail-if", rule)
    check(f"bad '{rule}': exit", rc, 2)
    check(f"bad '{rule}': message ({err.strip()})", f"--fail-if '{rule}'" in err and why in err, True)
    check(f"bad '{rule}': no output written", (md, js), (None, None))

gate_file = os.path.join(work, "team.gate")
with open(gate_file, "w") as f:
    f.write("# team thresholds\nstep_time > +5%   # mean step time\n\ngpu_util < -3pt\n")
rc, md, js, err = diff(before, after, "--gate", gate_file, "--section", "verdict")
check("--gate FILE: exit", rc, 10)
check("--gate FILE: checks", [c["rule"] for c in js["gate"]["checks"]],
      ["step_time > +5%", "gpu_util < -3pt"])
with open(gate_file, "a") as f:
    f.write("peak_allocated > 10%\n")
rc, md, js, err = diff(before, after, "--gate", gate_file)
check("bad --gate line: exit", rc, 1)
check(f"bad --gate line: message ({err.strip()})", f"{gate_file}:5: 'peak_allocated > 10%'" in err, True)
rc, md, js, err = diff(before, after, "--gate", os.path.join(work, "missing.gate"))
check("missing --gate file: exit", rc, 2)
check("missing --gate file: message", "missing.gate: cannot read the gate file" in err, True)

# ---- noise ----------------------------------------------------------------
# Two steps a side of equal length: a 'significant' check does not fail on
# a change within the spread, the plain one does.
rc, md, js, _ = diff(before, after, "--fail-if", "step_time >= +0%", "--section", "verdict")
check("noise: plain check at 0% fails", rc, 10)
rc, md, js, _ = diff(before, after, "--fail-if", "step_time >= +0% significant", "--section", "verdict")
check("noise: significant check passes", rc, 0)
check("noise: says why", "significance required" in js["gate"]["checks"][0]["noise"], True)

# One step a side: the verdict cannot tell noise from change.
def one_step(name, gemm_us):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
           "ts": 0, "dur": 1000},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": gemm_us,
           "args": {"device": 0, "stream": 7}}]
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
    return path
rc, md, js, _ = diff(one_step("one_a.json", 100), one_step("one_b.json", 200),
                     "--fail-if", "step_time > +5% significant", "--section", "verdict")
step_line = [r["statement"] for r in js["verdict"] if r["topic"] == "Step time"][0]
check(f"one step: verdict ({step_line})", "noise cannot be told from change" in step_line, True)
check("one step: significance not testable, check passes", rc, 0)

# The test statistic against an independent Mann-Whitney U (mid-ranks,
# tie-corrected normal approximation), on step times that overlap and tie.
def steps_trace(name, ms):
    ev, ts = [], 0
    for n, d in enumerate([5] + ms, 1):  # the first step is warm-up
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1,
                   "tid": 1, "ts": ts, "dur": d * 1000})
        ts += d * 1000 + 100
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
    return path


def mann_whitney_z(b, a):
    pooled = sorted(b + a)
    rank = {}
    for v in set(pooled):
        first = pooled.index(v) + 1
        rank[v] = first + (pooled.count(v) - 1) / 2
    n_a, n_b, n = len(a), len(b), len(a) + len(b)
    u = sum(rank[v] for v in a) - n_a * (n_a + 1) / 2
    ties = sum(pooled.count(v) ** 3 - pooled.count(v) for v in set(pooled))
    var = n_a * n_b / 12 * ((n + 1) - ties / (n * (n - 1)))
    return (u - n_a * n_b / 2) / var ** 0.5


for b_ms, a_ms in (([10, 12, 11, 13, 12, 14], [12, 13, 15, 12, 16, 14]),
                   ([10, 11, 10, 12, 11, 10, 11], [12, 13, 12, 14, 13, 12, 13]),
                   ([20, 21, 22], [20, 22, 21])):
    z = mann_whitney_z(b_ms, a_ms)
    rc, md, js, _ = diff(steps_trace("mw_b.json", b_ms), steps_trace("mw_a.json", a_ms),
                         "--fail-if", "step_time > -100% significant", "--section", "verdict")
    noise = js["gate"]["checks"][0]["noise"]
    check(f"noise z for {b_ms} -> {a_ms} ({noise})", f"z={z:+.2f}," in noise, True)
    check(f"noise verdict for {b_ms} -> {a_ms}", noise.startswith(
          "the change is beyond" if abs(z) >= 1.96 else "the change is within"), True)
    check(f"significant check for {b_ms} -> {a_ms}: exit", rc, 10 if abs(z) >= 1.96 else 0)

# ---- two GPUs: matching by operator ------------------------------------------
rc, md, js, _ = diff("gpu_a100.json", "gpu_h100.json", "--fail-if", "step_time > +5% significant")
sec = {s["id"]: s for s in js["sections"]}
share = {r["matched_by"]: (r["before_pct"], r["after_pct"]) for r in sec["kernel_matching"]["rows"]}
check("two GPUs: matched by operator (share of kernel time)",
      share.get("operator", (0, 0))[0] > 90 and share["operator"][1] > 90, True)
check("two GPUs: nothing left unmatched", "new" in share or "vanished" in share, False)
pairs = {(r["before_kernels"], r["after_kernels"]) for r in sec["kernel"]["rows"]
         if r["matched_by"] == "operator"}
check("two GPUs: the QKV GEMM pair",
      ("sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
       "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas")
      in pairs, True)
check("two GPUs: attention pair", ("flash_fwd_kernel", "flash::flash_fwd_kernel_sm90") in pairs, True)
check("two GPUs: operator pairs", len(pairs), 5)
caveats = [r["statement"] for r in js["verdict"] if r["topic"] == "Caveats"][0]
for fact in ("different GPUs (NVIDIA A100-SXM4-80GB before, NVIDIA H100 80GB HBM3 after)",
             "different CUDA runtime (12010 before, 12040 after)", "matched by operator"):
    check(f"two GPUs: caveat '{fact}'", fact in caveats, True)
check("two GPUs: faster beyond the noise", js["gate"]["checks"][0]["noise"].startswith(
      "the change is beyond the step-to-step spread"), True)
op = {(r["name"], r["shapes"]): r for r in sec["op_shape"]["rows"]}
fc1 = op.get(("aten::addmm", "[[4096],[8,512,1024],[4096,1024]]"))
check("two GPUs: per-operator device time of fc1 (400.8 -> 220.44 us)",
      fc1 and (fc1["before_device_ns"], fc1["after_device_ns"]), (400800, 220440))

# ---- a series of runs (trend) ---------------------------------------------
series = [before, before, after, after, before]
md_path = os.path.join(work, "trend.md")
svg_path = os.path.join(work, "trend.trend.svg")
for f in (md_path, svg_path):
    if os.path.exists(f):
        os.remove(f)
p = subprocess.run([profdb, "diff", *series, "--fail-if", "peak_allocated > +5%", "--md", md_path,
                    "--json", os.path.join(work, "trend.json")], capture_output=True, text=True)
check("trend: exit (a run fails a check)", p.returncode, 10)
tj = json.load(open(os.path.join(work, "trend.json")))
rows = tj["sections"][0]["rows"]
check("trend: one row per run", [r["run"] for r in rows], [1, 2, 3, 4, 5])
check("trend: peak allocated per run", [r["peak_allocated"] for r in rows],
      [19922432, 19922432, 22020084, 22020084, 19922432])
check("trend: GPU utilization per run", [r["gpu_util_pct"] for r in rows],
      [78.25, 78.25, 66.75, 66.75, 78.25])
check("trend: gate per run", [r["gate"] for r in rows],
      ["baseline", "PASS", "FAIL: peak_allocated > +5% (+10.5%)", "PASS", "PASS"])
check("trend: first failure flagged once, at run 3", [r["first_failure"] for r in rows],
      [None, None, "first failure", None, None])
gate_line = [v["statement"] for v in tj["verdict"] if v["topic"] == "Gate"]
check("trend: verdict names the first failing run",
      gate_line and gate_line[0].startswith("first failure at run 3"), True)
svg = open(svg_path).read() if os.path.exists(svg_path) else ""
check("trend: chart marks the first failure", "first failure (run 3)" in svg, True)
check("trend: chart has a line per metric", svg.count("<polyline"), 3)
check("trend: chart linked from the Markdown", "](trend.trend.svg)" in open(md_path).read(), True)
p = subprocess.run([profdb, "diff", before, after, before], capture_output=True, text=True)
check("trend without checks: exit", p.returncode, 0)
p = subprocess.run([profdb, "diff", before, os.path.join(work, "missing.db"), after],
                   capture_output=True, text=True)
check("trend with a missing run: exit", p.returncode, 2)
check("trend with a missing run: message", "missing.db" in p.stderr, True)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
