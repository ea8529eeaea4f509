#!/usr/bin/env python3
"""Savings without evidence in how the trace was recorded or when it was
recorded (issue 44, patterns 4 and 5), one case per pattern, each on a
fixture generated here:

    check_startup_skew.py PROFDB CASE DATA_DIR WORK_DIR

CASE is one of:
  startup_skew_counted_as_straggler
      two ranks, no ProfilerStep, 24 all-reduces: rank 1 enters the
      profiled window 8.4 ms late and reaches its first three all-reduces
      8.4, 20 and 17.6 ms late (start-up: profiler start, cold launches),
      then every other one 181 us late.  The straggler finding names rank 1
      and promises its steady lateness only (21 x 181 us = 3.801 ms), not
      the 49.8 ms of waiting the start-up calls add; no finding promises
      the start-up waiting.
  single_step_entry_skew_counted_as_straggler
      the same job captured as one ProfilerStep a rank (a single active
      step: nothing to leave out as warm-up, the capture's first calls are
      in it): the same 3.801 ms, not 49.8 ms.
  straggler_ties_named
      20 ranks: (a) ranks 16-19 tie exactly, 1 ms late at every call: the
      finding names the four as tied (never "last in 0 of 24 calls" for a
      rank that tied for last in all of them); (b) every rank ties exactly:
      nobody is last, no straggler, and no outlying row of rank_sum's
      summary is picked by the tie-break (the highest rank "last" in every
      call); (c) 40 ranks, ranks 30-39 tie: the summary shows no part of the
      tied group chosen by row order, and says that they tie.
  legacy_trace_told_gpu_lost
      a trace of PyTorch's legacy autograd-profiler exporter (a bare JSON
      array: "CPU functions", cpu_to_cuda flows and per-operator "CUDA
      functions" ranges, never kernels): not "the GPU records were lost",
      but that the format never records kernels and to re-record with
      torch.profiler and ProfilerActivity.CUDA.
  gpu_only_capture_promised_to_host
      kernels only (no runtime call, no CPU operator: CUDA activity alone),
      a 3.78 s gap between two bursts: no host-side finding promises the
      idle time; a finding says to record the CPU side too.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import run_case  # noqa: E402

NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
GEMM = "ampere_sgemm_128x64_tn"
PID, TID = 7000, 1
HOST_RULES = ("gpu_idle", "launch_bound", "explicit_sync", "synchronization", "data_loading")


def report(profdb, work, name, inputs, sections=("findings",)):
    """profdb report of inputs (paths); the JSON document and the Markdown."""
    out, md = os.path.join(work, name + ".json"), os.path.join(work, name + ".md")
    args = [profdb, "report", *inputs, "--json", out, "--md", md]
    for s in sections:
        args += ["--section", s]
    r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise AssertionError(f"{name}: profdb report exit {r.returncode}: {r.stderr[:300]}")
    with open(out) as f, open(md) as g:
        return json.load(f), g.read()


def by_rule(doc):
    return {x["rule"]: x for x in doc["findings"]}


def rank_rows(doc):
    return {r["rank"]: r for s in doc["sections"] if s["id"] == "rank_sum" for r in s["rows"]}


def coll_job(work, name, world, late, enter=None, transfer=500, step=None):
    """One trace per rank of a job without ProfilerSteps (files in
    WORK/name/): per call i, every rank computes 1 ms, then launches its
    all-reduce late[i][rank] us after that; the all-reduce ends transfer us
    after the last rank arrived.  enter[rank]: us from the job's start to
    the rank's first event (the profiler starting late on it).  step: the
    number of one ProfilerStep#N each rank's events lie in, from its
    first event on."""
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    traces = {r: [{"ph": "M", "name": "process_name", "pid": PID, "tid": 0,
                   "args": {"name": "python3"}}] for r in range(world)}
    t, corr = 1_000_000, 100
    for r in range(world):
        e = (enter or {}).get(r, 0)
        traces[r].append({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": PID,
                          "tid": TID, "ts": t + e, "dur": 5, "args": {}})
    for row in late:
        last = max(row)
        for r in range(world):
            arrive = t + 1000 + row[r]
            for kname, kts, kdur, stream, extra in (
                    (GEMM, arrive - 1000, 1000, 7, {}),
                    (NCCL, arrive, t + 1000 + last + transfer - arrive, 20,
                     {"Collective name": "allreduce", "Process Group Name": "0",
                      "Process Group Ranks": json.dumps(list(range(world))),
                      "Group size": world})):
                corr += 1
                traces[r].append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                                  "pid": PID, "tid": TID, "ts": kts - 20, "dur": 10,
                                  "args": {"correlation": corr}})
                args = {"device": r, "context": 1, "stream": stream, "correlation": corr}
                args.update(extra)
                traces[r].append({"ph": "X", "cat": "kernel", "name": kname, "pid": r,
                                  "tid": stream, "ts": kts, "dur": kdur, "args": args})
        t += 1000 + last + transfer + 500
    if step is not None:
        for r in range(world):
            xs = [e for e in traces[r] if e["ph"] == "X" and e["cat"] == "cpu_op"]
            t0 = min(e["ts"] for e in xs)
            traces[r].append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}",
                              "pid": PID, "tid": TID, "ts": t0 - 1, "dur": t - t0 + 1, "args": {}})
    paths = []
    for r in range(world):
        p = os.path.join(d, f"rank{r}.json")
        with open(p, "w") as f:
            json.dump({"schemaVersion": 1, "traceEvents": traces[r], "distributedInfo": {
                "backend": "nccl", "rank": r, "world_size": world}}, f)
        paths.append(p)
    return paths


def case_startup_skew_counted_as_straggler(profdb, data, work, step=None):
    startup = [8400, 20000, 17600]
    late = [[0, x] for x in startup] + [[0, 181]] * 21
    name = "startup" if step is None else "startup_step"
    doc, _ = report(profdb, work, name, coll_job(work, name, 2, late, {1: 8400}, step=step),
                    ("findings", "rank_sum"))
    found, ranks, problems = by_rule(doc), rank_rows(doc), []
    f = found.get("straggler")
    steady = 21 * 181 * 1000  # rank 0 waits 181 us in each steady all-reduce
    if not f or f["subjects"] != [{"rank": 1}]:
        problems.append(f"straggler: {f and f['subjects']}, want [{{rank: 1}}] ({sorted(found)})")
    elif f["expected_saving_ns"] != steady:
        problems.append(f"straggler promises {f['expected_saving_ns']} ns, want the steady "
                        f"lateness {steady} ns (start-up calls: {sum(startup)} us)")
    if f and "start-up" not in f["observation"]:
        problems.append(f"straggler does not say start-up calls were left out: {f['observation']}")
    r1 = ranks.get(1, {})
    if r1.get("late_ns") != 21 * 181 * 1000 // 2:
        problems.append(f"rank_sum: rank 1 late_ns {r1.get('late_ns')}, want the steady "
                        f"{21 * 181 * 1000 // 2} (after the median of two ranks)")
    promised = sum(x["expected_saving_ns"] or 0 for x in doc["findings"]
                   if x["rule"] in ("straggler", "collective_waiting"))
    if promised > steady:
        problems.append(f"straggler + collective_waiting promise {promised} ns > {steady}")
    return problems


def case_single_step_entry_skew_counted_as_straggler(profdb, data, work):
    return case_startup_skew_counted_as_straggler(profdb, data, work, step=10)


def case_straggler_ties_named(profdb, data, work):
    problems = []
    # (a) ranks 16-19 tie, 1 ms late at every call
    late = [[1000 if r >= 16 else 0 for r in range(20)]] * 24
    doc, _ = report(profdb, work, "tie_node", coll_job(work, "tie_node", 20, late),
                    ("findings", "rank_sum"))
    f, ranks = by_rule(doc).get("straggler"), rank_rows(doc)
    if not f or f["subjects"] != [{"rank": r} for r in (16, 17, 18, 19)]:
        problems.append(f"(a) straggler subjects {f and f['subjects']}, want ranks 16-19")
    elif "last in 0 of" in f["observation"] or "tie" not in f["observation"]:
        problems.append(f"(a) the tied ranks are not named as tied: {f['observation']}")
    lasts = {r: ranks[r]["last_arrivals"] for r in ranks}
    if any(lasts[r] != 24 for r in (16, 17, 18, 19)) or any(lasts[r] for r in range(16)):
        problems.append(f"(a) last_arrivals {lasts}: want 24 for each of ranks 16-19 (tied), 0 "
                        "for the others")
    # (b) every rank ties: nobody is last
    late = [[0] * 20] * 24
    doc, md = report(profdb, work, "tie_all", coll_job(work, "tie_all", 20, late),
                     ("findings", "rank_sum"))
    ranks = rank_rows(doc)
    if "straggler" in by_rule(doc):
        problems.append("(b) a straggler named when every rank ties")
    if any(r["last_arrivals"] for r in ranks.values()):
        problems.append(f"(b) last arrivals given by the tie-break: "
                        f"{ {k: r['last_arrivals'] for k, r in ranks.items() if r['last_arrivals']} }")
    if any(not line.endswith("none.") for line in md.splitlines()
           if line.startswith("Outlying rows")):
        problems.append("(b) rank_sum's summary shows outlying rows when every rank ties")
    # (c) 40 ranks, ranks 30-39 tie: more tied outliers than the summary shows
    late = [[1000 if r >= 30 else 0 for r in range(40)]] * 24
    doc, md = report(profdb, work, "tie_cut", coll_job(work, "tie_cut", 40, late),
                     ("findings", "rank_sum"))
    after = md.split("Outlying rows", 1)[-1].split("More columns", 1)[0]
    shown = [line.split("|")[2].strip() for line in after.splitlines()
             if line.startswith("| ws") and line.split("|")[2].strip() in
             {str(r) for r in range(30, 40)}]
    if shown:
        problems.append(f"(c) outlying rows picked by row order from a tie of ten: ranks {shown}")
    if "tie" not in md.split("Outlying rows", 1)[-1].split("\n", 1)[0]:
        problems.append("(c) the summary does not say the outlying ranks tie")
    # (d) as (c), and ranks 28-29 less late: the count says 10 tie and 2 are less outlying
    late = [[1000 if r >= 30 else 500 if r >= 28 else 0 for r in range(40)]] * 24
    doc, md = report(profdb, work, "tie_cut_more", coll_job(work, "tie_cut_more", 40, late),
                     ("findings", "rank_sum"))
    line = "Outlying rows" + md.split("Outlying rows", 1)[-1].split("\n", 1)[0]
    if "12; the 10 most outlying are equally so" not in line or "2 others less" not in line:
        problems.append(f"(d) the summary's count of a tie past the cut: {line}")
    return problems


def legacy_trace():
    """PyTorch's legacy exporter (torch.autograd.profiler.profile(use_cuda=True)
    .export_chrome_trace): a bare array; per operator its CPU range, and its
    CUDA time as a "CUDA functions" range linked by a cpu_to_cuda flow."""
    ev, fid = [], 0
    for i, name in enumerate(["aten::mm", "aten::add", "aten::relu"] * 20):
        ts = 100 + 300 * i
        ev.append({"name": name, "ph": "X", "ts": ts, "dur": 200, "tid": 1,
                   "pid": "CPU functions", "args": {}})
        ev.append({"name": name, "ph": "s", "ts": ts, "tid": 1, "pid": "CPU functions",
                   "id": fid, "cat": "cpu_to_cuda", "args": {}})
        ev.append({"name": name, "ph": "f", "ts": ts + 50, "tid": 0, "pid": "CUDA functions",
                   "id": fid, "cat": "cpu_to_cuda", "args": {}})
        ev.append({"name": name, "ph": "X", "ts": ts + 50, "dur": 120, "tid": 0,
                   "pid": "CUDA functions", "args": {}})
        fid += 1
    return ev


def case_legacy_trace_told_gpu_lost(profdb, data, work):
    path = os.path.join(work, "legacy.json")
    with open(path, "w") as f:
        json.dump(legacy_trace(), f)
    found, problems = by_rule(report(profdb, work, "legacy", [path])[0]), []
    if "gpu_records_lost" in found:
        problems.append("a legacy-exporter trace is told its GPU records were lost")
    told = [x for x in found.values() if "legacy" in x["observation"] + x["hypothesis"]
            and "never" in x["observation"] + x["hypothesis"]
            and "torch.profiler" in x["action"] and "ProfilerActivity.CUDA" in x["action"]]
    if not told:
        problems.append(f"no finding says the legacy format never records kernels and to "
                        f"re-record with torch.profiler and ProfilerActivity.CUDA: {sorted(found)}")
    return problems


def gpu_only_trace():
    """CUDA activity only: 200 kernels of 400 us, a 3.78 s gap, 200 more."""
    ev, ts = [], 1_000_000
    for burst in range(2):
        for i in range(200):
            ev.append({"ph": "X", "cat": "kernel", "name": GEMM, "pid": 0, "tid": 7, "ts": ts,
                       "dur": 400, "args": {"device": 0, "stream": 7, "correlation": 1000 + i
                                            + 200 * burst}})
            ts += 410
        ts += 3_780_000
    return {"schemaVersion": 1, "traceEvents": ev,
            "deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 80 << 30}]}


def case_gpu_only_capture_promised_to_host(profdb, data, work):
    path = os.path.join(work, "gpu_only.json")
    with open(path, "w") as f:
        json.dump(gpu_only_trace(), f)
    found, problems = by_rule(report(profdb, work, "gpu_only", [path])[0]), []
    for rule in HOST_RULES:
        if rule in found and (found[rule]["expected_saving_ns"] or 0) > 0:
            problems.append(f"{rule} promises {found[rule]['expected_saving_ns']} ns to the "
                            "host with no host records")
    told = [x for x in found.values() if "ProfilerActivity.CPU" in x["action"]
            and "host" in x["observation"] + x["hypothesis"]]
    if not told:
        problems.append(f"no finding says to record the host side: {sorted(found)}")
    return problems


if __name__ == "__main__":
    sys.exit(run_case({k: v for k, v in globals().items() if k.startswith("case_")}))
