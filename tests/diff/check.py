#!/usr/bin/env python3
"""profdb diff: the gate and the verdict, one defect of issue 29 a case.

    check.py PROFDB CASE WORK_DIR [FIXTURE_DIR | PUBLIC_DIR]

Each case builds the pattern it tests (small traces written here, or the
committed report fixtures of tests/report/data) and exits non-zero with a
message per failed check; 77 when the data it needs is absent.

  gate_missing_name   a category[NAME] / kernel[NAME] check naming nothing
                      in either run exits 2 ("not in either run: did you
                      mean" the closest names), writes nothing;
                      --allow-missing keeps it unevaluated; a name found in
                      one run of a series only is fine, in none fails
  gate_fail_line      a failing gate prints one FAIL line on stderr naming
                      the failing checks, whatever the outputs; a passing
                      gate prints none
  html_gate           --html alone shows the gate: FAIL / PASS line and a
                      row per check with its verdict
  gate_markdown       the Markdown gate table keeps the passed column and
                      shows before / after in their units (ms, MiB, %)
  trend_ooms          in a series, a check that was not evaluated (ooms > 0
                      without snapshots) is never listed as failed, nor
                      with another check's measurement; the Markdown's
                      table of runs keeps its gate column
  verdict_host_side   faster steps with the GPU time per step unchanged:
                      the verdict says the gain is on the host (CPU) side
  verdict_gpu_changed a kernel family that vanished with a change of GPU is
                      not "the largest gain": the verdict says the GPU
                      changed
  coll_busbw          the coll section on two collective fixtures (dp_tp
                      -> dp_tp_slow, tests/report/make_coll_fixtures.py):
                      per group, kind and size the median busbw before and
                      after, re-derived from the raw JSON; raw bytes and ns
                      in the CSV and JSON
  gate_busbw          busbw[all_reduce] < -10% fails (exit 10) when the
                      all-reduce bus bandwidth fell 17% (dp_tp_slow),
                      passes at 5.6% (dp_tp_bit_slow), with before / after
                      re-derived from the raw JSON, and the verdict's
                      Collectives line (a drop over 10% only); a kind in neither run
                      exits 2, a word that is no kind is refused
  resnet50_series     the public resnet50 series of pytorch/kineto (the
                      issue's cases) and HTA's A100 -> V100 pair (77
                      without ../shared/data/public)
"""
import json
import os
import re
import subprocess
import sys

profdb, case, work = sys.argv[1:4]
data = sys.argv[4] if len(sys.argv) > 4 else ""
os.makedirs(work, exist_ok=True)
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


def fresh(*paths):
    for p in paths:
        if os.path.exists(p):
            os.remove(p)


def run(*args):
    return subprocess.run([profdb, *args], capture_output=True, text=True)


def load(name, *files):
    path = os.path.join(work, name)
    fresh(path)
    subprocess.run([profdb, "load", "-q", *files, "-o", path], check=True)
    return path


# ---- a small trace writer -------------------------------------------------
def write_trace(name, steps, device=None, warmup_us=None):
    """A trace of ProfilerSteps (the first is warm-up).  steps: a list of
    (step_us, [(op, kernel, kernel_us), ...]) each; an op of None launches
    the kernel with no CPU operator around the runtime call.  Kernels run
    back to back from 10 us into the step on stream 7 of device 0."""
    ev, ts, corr, ext = [], 1000, 100, 1
    for n, (dur, kernels) in enumerate(steps, 1):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1,
                   "tid": 1, "ts": ts, "dur": dur})
        cpu, gpu = ts + 5, ts + 10
        for op, kernel, kus in kernels:
            corr += 1
            ext += 1
            if op:
                ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": cpu,
                           "dur": 4, "args": {"External id": ext}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": 1, "ts": cpu + 1, "dur": 2,
                       "args": {"correlation": corr, "External id": ext if op else 0}})
            ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": gpu,
                       "dur": kus, "args": {"device": 0, "stream": 7, "correlation": corr,
                                            "External id": ext if op else 0}})
            cpu += 5
            gpu += kus
        ts += dur + 10
    doc = {"schemaVersion": 1, "traceEvents": ev}
    if device:
        doc["deviceProperties"] = [{"id": 0, "name": device, "totalGlobalMem": 85097971712,
                                    "computeMajor": 8, "computeMinor": 0, "numSms": 108}]
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def verdict_of(js, topic):
    lines = [v["statement"] for v in js["verdict"] if v["topic"] == topic]
    return lines[0] if lines else ""


def fixtures():
    if not data or not os.path.exists(os.path.join(data, "train_rank0.json")):
        print("usage: check.py PROFDB CASE WORK_DIR tests/report/data")
        sys.exit(2)
    return (load("before.db", os.path.join(data, "train_rank0.json")),
            load("after.db", os.path.join(data, "after_rank0.json")))


# ---- collectives, re-derived from the raw JSON of make_coll_fixtures.py ----
ESIZE = {"BFloat16": 2, "Float": 4, "Int": 4}
KIND = {"allreduce": ("all_reduce", 2), "allgather": ("all_gather", 1)}  # kind, factor * n/(n-1)


def coll_calls(folder):
    """Per call of the analysed steps (ProfilerStep#1 of each rank is
    warm-up): (group ranks, kind, bytes, bus bytes, transfer ns, matched)."""
    inst, calls = {}, []
    for f in sorted(os.listdir(folder)):
        ev = json.load(open(os.path.join(folder, f)))["traceEvents"]
        steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
                       if e.get("name", "").startswith("ProfilerStep#"))[1:]
        ops = {e["args"]["External id"]: e for e in ev if e.get("name") == "record_param_comms"
               and any(a <= e["ts"] < b for a, b in steps)}
        for k in ev:
            if k.get("cat") == "kernel" and k["args"]["External id"] in ops:
                a = ops[k["args"]["External id"]]["args"]
                key = (a["Process Group Ranks"], a["Collective name"], a["Seq"])
                inst.setdefault(key, []).append((k["ts"], k["ts"] + k["dur"], a))
    for (ranks, coll, _), ks in inst.items():
        last = max(ts for ts, _, _ in ks)
        for ts, end, a in ks:
            kind, f = KIND[coll]
            n = a["Group size"]
            nbytes = ESIZE[a["dtype"]] * a["In msg nelems" if kind == "all_reduce"
                                           else "Out msg nelems"]
            transfer = end - max(ts, last) if len(ks) > 1 else end - ts
            calls.append((ranks, kind, nbytes, nbytes * f * (n - 1) / n, transfer * 1000,
                          len(ks) > 1))
    return calls


def median(xs):
    xs = sorted(xs)
    return (xs[len(xs) // 2] + xs[(len(xs) - 1) // 2]) / 2


def coll_pair(after_name):
    folder = os.path.join(data, "coll")
    if not os.path.isdir(os.path.join(folder, after_name)):
        print("usage: check.py PROFDB CASE WORK_DIR tests/report/data")
        sys.exit(2)
    before = load("coll_before.db", os.path.join(folder, "dp_tp"))
    after = load(f"coll_{after_name}.db", os.path.join(folder, after_name))
    return before, after, coll_calls(os.path.join(folder, "dp_tp")), \
        coll_calls(os.path.join(folder, after_name))


def case_coll_busbw():
    before, after, cb, ca = coll_pair("dp_tp_slow")
    js, csv_dir = os.path.join(work, "c.json"), os.path.join(work, "csv")
    fresh(js)
    p = run("diff", before, after, "--section", "coll", "--json", js, "--csv", csv_dir)
    check(f"diff: exit ({p.stderr.strip()})", p.returncode, 0)
    if not os.path.exists(js):
        return
    sec = [s for s in json.load(open(js))["sections"] if s["id"] == "coll"][0]
    rows = {(r["group"], r["kind"]): r for r in sec["rows"]}
    label = {"[0, 1]": "ranks 0,1 (2)", "[2, 3]": "ranks 2,3 (2)", "[0, 2]": "ranks 0,2 (2)",
             "[1, 3]": "ranks 1,3 (2)", "[0, 1, 2, 3]": "ranks 0-3 (4)"}
    check("one row per group and kind", sorted(rows), sorted({(label[c[0]], c[1]) for c in cb}))
    for (ranks, kind) in sorted({(c[0], c[1]) for c in cb}):
        r = rows[(label[ranks], kind)]
        want = {}
        for side, calls in (("before", cb), ("after", ca)):
            mine = [c for c in calls if (c[0], c[1]) == (ranks, kind)]
            bw = median([c[3] / c[4] for c in mine])
            want[side] = bw
            check(f"{ranks} {kind}: busbw {side}", r[f"busbw_{side}_gbps"], round(bw, 2))
            check(f"{ranks} {kind}: bytes {side}", r[f"bytes_{side}"], sum(c[2] for c in mine))
            check(f"{ranks} {kind}: transfer ns {side}", r[f"transfer_{side}_ns"],
                  sum(c[4] for c in mine))
            check(f"{ranks} {kind}: calls {side}", r[f"calls_{side}"], len(mine))
        check(f"{ranks} {kind}: change", r["busbw_change_pct"],
              round(100 * (want["after"] - want["before"]) / want["before"], 2))
    # the data-parallel all-reduce: 40 -> 32.82 GB/s (-17.95%), the rest unchanged
    check("DP all-reduce slower", rows[("ranks 0,2 (2)", "all_reduce")]["busbw_change_pct"],
          -17.95)
    check("TP all-reduce unchanged", rows[("ranks 0,1 (2)", "all_reduce")]["busbw_change_pct"],
          0.0)
    head = open(os.path.join(csv_dir, "coll.csv")).readline().strip().split(",")
    for col in ("bytes_before", "bytes_after", "transfer_before_ns", "transfer_after_ns"):
        check(f"CSV has {col}", col in head, True)


def case_gate_busbw():
    for after_name, rc, verdict in (("dp_tp_slow", 10, False), ("dp_tp_bit_slow", 0, True)):
        before, after, cb, ca = coll_pair(after_name)
        js = os.path.join(work, "g.json")
        fresh(js)
        p = run("diff", before, after, "--section", "coll", "--section", "verdict",
                "--fail-if", "busbw[allreduce] < -10%", "--json", js)
        check(f"{after_name}: exit ({p.stderr.strip()})", p.returncode, rc)
        if not os.path.exists(js):
            continue
        g = json.load(open(js))["gate"]["checks"][0]
        bw = [sum(c[3] for c in x if c[1] == "all_reduce") /
              sum(c[4] for c in x if c[1] == "all_reduce") for x in (cb, ca)]
        check(f"{after_name}: metric", g["metric"], "busbw[all_reduce]")
        check(f"{after_name}: unit", g["unit"], "GB/s")
        check(f"{after_name}: before", g["before"], round(bw[0], 4))
        check(f"{after_name}: after", g["after"], round(bw[1], 4))
        check(f"{after_name}: change", g["change"], round(100 * (bw[1] - bw[0]) / bw[0], 4))
        check(f"{after_name}: passed", g["passed"], verdict)
        check(f"{after_name}: FAIL line", "gate FAIL: `busbw[allreduce] < -10%`" in p.stderr,
              rc == 10)
        # the verdict names a kind whose busbw fell by more than 10%, with
        # the gate's figures, and stays silent at 5.6%
        v = verdict_of(json.load(open(js)), "Collectives")
        want = ("all_reduce bus bandwidth %.2f -> %.2f GB/s (%+.1f%%)."
                % (bw[0], bw[1], 100 * (bw[1] - bw[0]) / bw[0])) if rc == 10 else ""
        check(f"{after_name}: verdict", v, want)
    p = run("diff", before, after, "--fail-if", "busbw[all_to_all] < -10%")
    check("a kind in neither run: exit 2", p.returncode, 2)
    check(f"a kind in neither run: names the kinds ({p.stderr.strip()})",
          "busbw 'all_to_all' is not in either run: did you mean 'all_reduce'" in p.stderr, True)
    p = run("diff", before, after, "--fail-if", "busbw[allreduse] < -10%")
    check("no such kind: exit 2", p.returncode, 2)
    check(f"no such kind: said ({p.stderr.strip()})",
          "busbw[allreduse]: not a collective kind" in p.stderr, True)


# ---- the cases ------------------------------------------------------------
def case_gate_missing_name():
    before, after = fixtures()
    md, js = os.path.join(work, "d.md"), os.path.join(work, "d.json")
    # make_fixtures.py: the GEMMs are ampere_sgemm_128x64_tn and
    # ampere_sgemm_64x64_nn; the categories GEMM, Elementwise, ...
    for rule, named, closest in (
            ("kernel[no_such_kernel] > +5%", "kernel 'no_such_kernel'", None),
            ("kernel[ampere_sgemm_128x64_tm] > +5%", "kernel 'ampere_sgemm_128x64_tm'",
             "'ampere_sgemm_128x64_tn'"),
            ("category[Gemm] > +5%", "category 'Gemm'", "'GEMM'")):
        fresh(md, js)
        p = run("diff", before, after, "--fail-if", "step_time > +50%", "--fail-if", rule,
                "--md", md, "--json", js)
        check(f"{rule}: exit", p.returncode, 2)
        lines = p.stderr.strip().split("\n")
        check(f"{rule}: one message ({p.stderr.strip()})", len(lines), 1)
        msg = lines[0]
        check(f"{rule}: message names the check and the name ({msg})",
              msg.startswith(f"profdb: diff: --fail-if '{rule}': {named} is not in either run: "
                             "did you mean '"), True)
        if closest:
            check(f"{rule}: the closest name first ({msg})", f"did you mean {closest}" in msg, True)
        check(f"{rule}: says how to allow it", "--allow-missing" in msg, True)
        check(f"{rule}: nothing written", (os.path.exists(md), os.path.exists(js)), (False, False))
    # A name that is in one run only is a real check (a kernel that appeared).
    p = run("diff", before, after, "--fail-if", "kernel[triton_per_fused__fused_adam_0] > +5%",
            "--section", "verdict")
    check(f"kernel new in the after run: exit ({p.stderr.strip()})", p.returncode, 10)
    # --allow-missing: the rare intended case (a kernel that may not run).
    fresh(js)
    p = run("diff", before, after, "--fail-if", "kernel[no_such_kernel] > +5%", "--allow-missing",
            "--json", js, "--section", "verdict")
    check(f"--allow-missing: exit ({p.stderr.strip()})", p.returncode, 0)
    c = json.load(open(js))["gate"]["checks"][0]
    check("--allow-missing: not evaluated", c["passed"], None)
    check("--allow-missing: note", c["note"], "no kernel named 'no_such_kernel' in either run")
    # In a --gate file: the message names FILE:LINE.
    gate = os.path.join(work, "team.gate")
    with open(gate, "w") as f:
        f.write("# thresholds\nstep_time > +50%\nkernel[ampere_sgemm_64x64_nm] > +5%\n")
    p = run("diff", before, after, "--gate", gate, "--section", "verdict")
    check("--gate file: exit", p.returncode, 2)
    check(f"--gate file: FILE:LINE ({p.stderr.strip()})",
          f"profdb: diff: {gate}:3 'kernel[ampere_sgemm_64x64_nm] > +5%': " in p.stderr
          and "did you mean 'ampere_sgemm_64x64_nn'" in p.stderr, True)
    # A series: a name in one run of it passes, in none fails.
    p = run("diff", before, after, before, "--fail-if", "kernel[triton_per_fused__fused_adam_0] > +0%")
    check(f"series, name in one run: exit ({p.stderr.strip()})", p.returncode, 10)
    p = run("diff", before, after, before, "--fail-if", "kernel[no_such_kernel] > +0%")
    check("series, name in no run: exit", p.returncode, 2)
    check(f"series, name in no run: message ({p.stderr.strip()})",
          "kernel 'no_such_kernel' is in no run of the series: did you mean" in p.stderr, True)


def case_gate_fail_line():
    before, after = fixtures()
    md, js, html = (os.path.join(work, f) for f in ("d.md", "d.json", "d.html"))
    # The fixture's utilization falls 11.5 points; the GEMM category 20%.
    for outputs in (["--md", md], ["--json", js], ["--html", html], ["--json", "-"], []):
        p = run("diff", before, after, "--fail-if", "gpu_util < -3pt", "--fail-if",
                "category[GEMM] < -10%", "--fail-if", "step_time > +50%", *outputs)
        what = " ".join(outputs[:1]) or "stdout"
        check(f"{what}: exit", p.returncode, 10)
        lines = [x for x in p.stderr.split("\n") if "FAIL" in x]
        check(f"{what}: one FAIL line on stderr ({p.stderr.strip()})", lines,
              ["profdb: diff: gate FAIL: `gpu_util < -3pt` (measured -11.5pt); "
               "`category[GEMM] < -10%` (measured -20.0%)"])
    p = run("diff", before, after, "--fail-if", "step_time > +50%", "--md", md)
    check("passing gate: exit", p.returncode, 0)
    check("passing gate: nothing on stderr", p.stderr, "")
    # A series: the first failing run, on stderr.
    p = run("diff", before, after, before, "--fail-if", "gpu_util < -3pt", "--md", md)
    check("series: exit", p.returncode, 10)
    check(f"series: FAIL line ({p.stderr.strip()})", p.stderr,
          f"profdb: diff: gate FAIL at run 2 ({after}) against run 1: `gpu_util < -3pt` "
          "(measured -11.5pt)\n")


def case_html_gate():
    before, after = fixtures()
    html = os.path.join(work, "d.html")
    fresh(html)
    p = run("diff", before, after, "--fail-if", "gpu_util < -3pt", "--fail-if", "step_time > +50%",
            "--fail-if", "ooms > 0", "--html", html)
    check("exit", p.returncode, 10)
    text = open(html).read()
    check("a gate in the HTML", '<h3 id="gate">Gate</h3>' in text, True)
    m = re.search(r'<p class="gate">(.*?)</p>', text)
    check("the FAIL line", m and m.group(1),
          "<strong>FAIL:</strong> <code>gpu_util &lt; -3pt</code> (measured -11.5pt)"
          " (1 not evaluated: no data)")
    gate = text[text.index('<h3 id="gate">'):]
    gate = gate[:gate.index("</table>")]
    rows = re.findall(r"<tr><td.*?</tr>", gate)
    check("a row per check", len(rows), 3)
    verdicts = [re.findall(r"<td>(?:<strong>)?(passed|FAILED|not evaluated)", r) for r in rows]
    check("each check's verdict", verdicts, [["FAILED"], ["passed"], ["not evaluated"]])
    # before / after in their units, the exact value kept (78.25% -> 66.75%)
    check("utilization in %", 'data-v="78.25">78.25%</td>' in rows[0], True)
    check("step time in ms", 'data-v="1000000">1.00 ms</td>' in rows[1], True)
    check("the gate comes with the verdict, before the contents",
          text.index('<h3 id="gate">') < text.index("<nav"), True)
    # --section without the verdict: the gate is still there
    fresh(html)
    p = run("diff", before, after, "--fail-if", "gpu_util < -3pt", "--section", "kernel",
            "--html", html)
    check("--section kernel: a gate in the HTML", '<h3 id="gate">Gate</h3>' in open(html).read(),
          True)
    fresh(html)
    p = run("diff", before, after, "--fail-if", "step_time > +50%", "--html", html)
    check("passing: exit", p.returncode, 0)
    check("passing: the PASS line",
          '<p class="gate"><strong>PASS:</strong> 1 of 1 checks passed</p>' in open(html).read(),
          True)


def case_gate_markdown():
    before, after = fixtures()
    snap_b = load("before_snap.db", os.path.join(data, "train_rank0.json"),
                  os.path.join(data, "memory_snapshot.json"))
    snap_a = load("after_snap.db", os.path.join(data, "after_rank0.json"),
                  os.path.join(data, "after_memory_snapshot.json"))
    p = run("diff", snap_b, snap_a, "--fail-if", "step_time > +5%", "--fail-if", "gpu_util < -3pt",
            "--fail-if", "peak_allocated > +10%", "--fail-if", "kernel[ampere_sgemm_128x64_tn] < -1ms",
            "--section", "verdict")
    check("exit", p.returncode, 10)
    md = p.stdout
    table = md[md.index("## Gate"):].split("\n\n")[1].split("\n")
    header = [c.strip() for c in table[0].strip("|").split("|")]
    check("header keeps passed", header, ["check", "before", "after", "measured", "passed", "note"])
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.strip("|").split("|")]
            for r in table[2:]}
    # make_fixtures.py: steps of 1000 us; utilization 78.25 -> 66.75%; the
    # replayed peaks 19922432 -> 22020084 bytes (19.00 -> 21.00 MiB); the
    # forward GEMM 300 -> 200 us a step.
    check("step time in ms", rows["`step_time > +5%`"][1:5], ["1.00 ms", "1.00 ms", "+0.0%", "passed"])
    check("utilization in %", rows["`gpu_util < -3pt`"][1:5], ["78.25%", "66.75%", "-11.5pt", "**FAILED**"])
    check("peak in MiB", rows["`peak_allocated > +10%`"][1:5],
          ["19.00 MiB", "21.00 MiB", "+10.5%", "**FAILED**"])
    check("kernel time in us", rows["`kernel[ampere_sgemm_128x64_tn] < -1ms`"][1:5],
          ["300.00 us", "200.00 us", "-100.00 us", "passed"])
    check("no raw ns in the table", re.search(r"\b\d{6,}\b", "\n".join(table)), None)


def case_trend_ooms():
    before, after = fixtures()
    js = os.path.join(work, "t.json")
    # gpu_util fails at run 2 (78.25 -> 66.75%); ooms > 0 cannot be judged:
    # no run has a memory snapshot.
    p = run("diff", before, after, before, "--fail-if", "gpu_util < -3pt", "--fail-if", "ooms > 0",
            "--json", js)
    check("exit", p.returncode, 10)
    t = json.load(open(js))
    gate = [r["gate"] for r in t["sections"][0]["rows"]]
    check("per run", gate, ["baseline", "FAIL: gpu_util < -3pt (-11.5pt)", "PASS"])
    line = verdict_of(t, "Gate")
    check(f"verdict ({line})", line,
          f"first failure at run 2 ({after}) against run 1: gpu_util < -3pt (-11.5pt). "
          "Runs failing: 2.")
    check("ooms never listed", [g for g in gate + [line] if "ooms >" in g], [])
    # The Markdown's table of runs keeps the gate column (it was cut at 8).
    p = run("diff", before, after, before, "--fail-if", "gpu_util < -3pt", "--fail-if", "ooms > 0")
    header = [ln for ln in p.stdout.split("\n") if ln.startswith("| run |")]
    check("Markdown: the gate column", bool(header) and "| gate |" in header[0], True)
    check("Markdown: run 2 fails", "| FAIL: gpu_util &lt; -3pt (-11.5pt) |" in p.stdout, True)


def case_verdict_host_side():
    # The same GPU work each step (4 kernels, 300 us); the steps shrink from
    # 1400 to 1000 us: the CPU (input pipeline, dispatch) got faster.
    def steps(step_us):
        ks = [("aten::mm", "ampere_sgemm_128x64_tn", 150), ("aten::add", "elementwise_add", 50),
              ("aten::relu", "relu_kernel", 40), ("aten::mm", "ampere_sgemm_64x64_nn", 60)]
        return [(step_us, ks)] * 6
    b = write_trace("host_before.json", steps(1400), "NVIDIA A100-SXM4-80GB")
    a = write_trace("host_after.json", steps(1000), "NVIDIA A100-SXM4-80GB")
    js = os.path.join(work, "v.json")
    p = run("diff", b, a, "--json", js, "--section", "verdict")
    check(f"exit ({p.stderr.strip()})", p.returncode, 0)
    v = json.load(open(js))
    step = verdict_of(v, "Step time")
    check(f"1.40x faster ({step})", "1.40x faster" in step, True)
    host = verdict_of(v, "Where")
    check(f"the gain is on the host side ({host})", host.startswith(
          "GPU busy time per step unchanged (300.00 us -> 300.00 us, +0.0%) while the step time "
          "fell 400.00 us: the gain is on the host (CPU) side"), True)
    # GPU time that did fall explains the gain: no host-side line.
    a2 = write_trace("gpu_after.json", [(1000, [("aten::mm", "ampere_sgemm_128x64_tn", 150 - 110),
                                                ("aten::add", "elementwise_add", 50)])] * 6,
                     "NVIDIA A100-SXM4-80GB")
    b2 = write_trace("gpu_before.json", [(1400, [("aten::mm", "ampere_sgemm_128x64_tn", 150 + 290),
                                                 ("aten::add", "elementwise_add", 50)])] * 6,
                     "NVIDIA A100-SXM4-80GB")
    p = run("diff", b2, a2, "--json", js, "--section", "verdict")
    v = json.load(open(js))
    check("GPU-side gain: no host-side line", verdict_of(v, "Where"), "")


def case_verdict_gpu_changed():
    # A100 -> V100: the A100's cutlass GEMM (launched outside any operator,
    # so nothing pairs it) vanished and a volta GEMM is new; one kernel is
    # in both runs and got 20 us faster.
    def steps(gemm, gemm_us, ln_us):
        return [(1000, [(None, gemm, gemm_us), ("aten::layer_norm", "layer_norm_kernel", ln_us)])] * 6
    b = write_trace("a100.json", steps("cutlass::Kernel<cutlass_80_tensorop_s1688gemm>", 300, 100),
                    "NVIDIA A100-SXM4-80GB")
    a = write_trace("v100.json", steps("volta_sgemm_128x64_nn", 350, 80), "Tesla V100-SXM2-16GB")
    js = os.path.join(work, "v.json")
    p = run("diff", b, a, "--json", js, "--section", "verdict")
    check(f"exit ({p.stderr.strip()})", p.returncode, 0)
    v = json.load(open(js))
    kern = verdict_of(v, "Kernels")
    check(f"the vanished kernel is not the largest gain ({kern})",
          "largest gain cutlass" in kern, False)
    check(f"the largest gain is a kernel of both runs ({kern})",
          kern.startswith("largest gain layer_norm_kernel -20.00 us/step"), True)
    check(f"the GPU changed ({kern})",
          "the GPU changed (NVIDIA A100-SXM4-80GB before, Tesla V100-SXM2-16GB after): "
          "cutlass::Kernel vanished (-300.00 us/step) and volta_sgemm_128x64_nn is new "
          "(+350.00 us/step), kernels of the other GPU's libraries, not a gain or a loss" in kern,
          True)
    # The same GPU: a vanished kernel is a gain.
    a = write_trace("a100_after.json", steps("volta_sgemm_128x64_nn", 350, 80),
                    "NVIDIA A100-SXM4-80GB")
    p = run("diff", b, a, "--json", js, "--section", "verdict")
    kern = verdict_of(json.load(open(js)), "Kernels")
    check(f"same GPU: the vanished kernel is the largest gain ({kern})",
          kern.startswith("largest gain cutlass::Kernel -300.00 us/step (vanished)"), True)


def case_resnet50_series():
    k = os.path.join(data, "pytorch__kineto")
    files = [os.path.join(k, d, "worker0.pt.trace.json.gz") for d in
             ("resnet50_num_workers_0_2021-01", "resnet50_num_workers_0_2021-02")]
    files.append(os.path.join(k, "worker0.1623143089861.pt.trace.json.gz"))
    if not all(os.path.exists(f) for f in files):
        print("public data not found: skipped")
        sys.exit(77)
    jan, feb, jun = (load(f"r{i}.db", f) for i, f in enumerate(files))
    md, js, html = (os.path.join(work, f) for f in ("d.md", "d.json", "d.html"))
    # 1. A kernel in neither run: exit 2 with the closest names.
    p = run("diff", jan, feb, "--fail-if", "kernel[no_such_kernel] > +5%")
    check("no_such_kernel: exit", p.returncode, 2)
    check(f"no_such_kernel: message ({p.stderr.strip()})",
          "kernel 'no_such_kernel' is not in either run: did you mean '" in p.stderr, True)
    p = run("diff", jan, feb, "--fail-if", "kernel[wgrad_alg0_engine] > +5%")
    check(f"a near name: the closest first ({p.stderr.strip()})",
          "did you mean 'cudnn::cnn::wgrad_alg0_engine'" in p.stderr, True)
    # 2. --html of a failing gate shows it; files only: one FAIL line on stderr.
    fresh(html)
    p = run("diff", feb, jun, "--fail-if", "step_time > +5%", "--html", html)
    check("feb -> jun: exit", p.returncode, 10)
    check(f"feb -> jun: FAIL line ({p.stderr.strip()})", p.stderr,
          "profdb: diff: gate FAIL: `step_time > +5%` (measured +15.1%)\n")
    text = open(html).read()
    check("feb -> jun: the gate in the HTML",
          '<p class="gate"><strong>FAIL:</strong> <code>step_time &gt; +5%</code> '
          "(measured +15.1%)</p>" in text, True)
    # 3. The trend verdict: ooms > 0 (no snapshot) is never listed as failed.
    p = run("diff", jan, feb, jun, "--fail-if", "step_time > +5%", "--fail-if", "ooms > 0",
            "--json", js)
    t = json.load(open(js))
    line = verdict_of(t, "Gate")
    check(f"trend: the failing checks ({line})", line.startswith(
          f"first failure at run 3 ({jun}) against run 2: step_time > +5% (+15.1%). "), True)
    # 4. The Markdown gate table: passed kept, step times in ms (214.29 ms,
    #    the mean of the 5 analysed steps of the January trace).
    p = run("diff", jan, feb, "--fail-if", "step_time < -5%", "--section", "verdict")
    check("jan -> feb: exit", p.returncode, 10)
    check("jan -> feb: the gate row", "| `step_time < -5%` | 214.29 ms | 152.49 ms | -28.8% | "
          "**FAILED** |  |" in p.stdout, True)
    # 5. 1.41x faster, the GPU time per step unchanged: the gain is on the CPU.
    p = run("diff", jan, feb, "--json", js, "--section", "verdict")
    v = json.load(open(js))
    where = verdict_of(v, "Where")
    check(f"jan -> feb: host side ({where})", where.startswith(
          "GPU busy time per step unchanged (101.66 ms -> 103.10 ms, +1.4%) while the step time "
          "fell 61.80 ms: the gain is on the host (CPU) side"), True)
    check("jan -> feb: 1.41x", "1.41x faster" in verdict_of(v, "Step time"), True)
    # 99.85% of the after kernel time matched by name: no "kernel names
    # differ: 0% matched by operator" caveat.
    check("jan -> feb: no kernel-name caveat", "kernel names differ" in verdict_of(v, "Caveats"),
          False)
    # 6. HTA's control -> test (A100 -> V100): the A100's cutlass GEMMs
    #    vanished with the GPU, not "the largest gain".
    hta = os.path.join(data, "facebookresearch__HolisticTraceAnalysis")
    if os.path.exists(os.path.join(hta, "test.json.gz")):
        control = load("control.db", os.path.join(hta, "control.json.gz"))
        test = load("test.db", os.path.join(hta, "test.json.gz"))
        p = run("diff", control, test, "--json", js, "--section", "verdict")
        kern = verdict_of(json.load(open(js)), "Kernels")
        check(f"HTA A100 -> V100: no vanished largest gain ({kern})", "largest gain cutlass" in kern,
              False)
        check(f"HTA A100 -> V100: the GPU changed ({kern})",
              "the GPU changed (NVIDIA A100-PG509-200 before, Tesla V100-SXM2-16GB after): "
              "cutlass::Kernel vanished (-9.09 ms/step)" in kern, True)


cases = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}
if case not in cases:
    print(f"unknown case {case}; cases: {', '.join(cases)}")
    sys.exit(2)
cases[case]()
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
