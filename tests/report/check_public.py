#!/usr/bin/env python3
"""`profdb report` and `profdb diff` on every public file: they must succeed.

    check_public.py PROFDB DATA_DIR WORK_DIR

For each *.json / *.json.gz under DATA_DIR: the report exits 0, its JSON
parses, every section has rows or says why not (note), every column
declared is present in every row, and every finding has all its fields.
Then each file is diffed against the next one in name order (traces
against traces, snapshots and runs of different shapes: ranks, devices
and categories differ) with the same checks on the diff's JSON.
Exits 77 (skipped) when DATA_DIR does not exist.
"""
import json
import os
import subprocess
import sys

FINDING_FIELDS = ["priority", "id", "rule", "confidence", "title", "observation", "hypothesis",
                  "action", "expected_impact", "validation", "needs_artifact",
                  "expected_saving_pct", "expected_saving_ns", "expected_saving_bytes",
                  "subjects", "evidence"]
TEXT_FIELDS = ["priority", "id", "rule", "confidence", "title", "observation", "hypothesis",
               "action", "expected_impact", "validation", "needs_artifact", "expected_saving_pct"]

# What each rule must (or must not) say on public traces where the right
# answer is known (issue 13): file -> {rule: None (must not fire) or
# (lowest, highest) expected_saving_pct}.
EXPECTED = {
    # GPU 96% busy; the host blocks 45% of the window (its .item() copies
    # are cudaMemcpyAsync to pageable memory, host-blocking: issue 29),
    # 1.35 ms of each ~124 ms ProfilerStep with the GPU idle inside those
    # calls; but every one of those gaps begins with GPU work already queued
    # (from the raw JSON: 0 us per step with nothing queued, issue 44): the
    # copies' wait fills none of them, so synchronization does not fire
    # (it promised about 1.3% before).
    "facebookresearch__HolisticTraceAnalysis/test.json.gz": {"synchronization": None},
    # hipDeviceSynchronize covers 90% of the window, the GPU is 95.6% busy.
    # Its GEMMs (kernels on device 2, an MI300X listed as device 0: model
    # assumed) are bounded by their shapes at 60% of the MI300X's bf16
    # peak: 2.42 of 13.12 ms (issue 29; was half the GEMM time, 30.6%).
    "AMD-AGI__TraceLens/trace.json.gz": {"synchronization": None, "dominant_category": (18, 19)},
    # One hipMemcpyWithStream (ROCm's blocking copy) of 463.06 ms in the
    # 473.83 ms window, 463.03 ms of it with the GPU idle (issue 29), while
    # kernels launched before it wait behind a hipStreamWaitEvent: the GPU
    # waits on work outside the trace.  Neither gpu_idle nor
    # synchronization promises that time; wait_outside_trace promises 0.
    "AMD-AGI__TraceLens/sglang_Qwen3-8B_decode.json.gz": {
        "synchronization": None, "gpu_idle": None, "wait_outside_trace": (0, 0)},
    # 3 cudaFree (context creation) leave the GPU idle 981 ms of 1,633 ms:
    # one-time start-up, out of gpu_idle's saving (issue 29 audit).
    "facebookresearch__param/linear_kineto.json.gz": {"startup_calls": (0, 0),
                                                      "gpu_idle": (30, 35)},
    # 1,360 hipFree calls (the caching allocator bypassed) hold 99% of the
    # idle time: allocator_calls', not gpu_idle's input-pipeline advice.
    "AMD-AGI__TraceLens/train_resnet18.json.gz": {"allocator_calls": (80, 85),
                                                  "gpu_idle": None},
    # The harness's cudaDeviceSynchronize (profile.py) waits for work
    # launched before the trace: the gaps between those queued kernels are
    # not the sync's (issue 44's audit), so no explicit_sync; the
    # operators' syncs (31 us) are under the floor: no .item() advice.
    # The GPU idles 35% of the step once that backlog is set aside, so a
    # faster Elementwise shortens it only where something waits for the
    # step's own Elementwise: the only wait in the step is that harness
    # sync, whose 7.39 ms of Elementwise is all backlog (issue 44's fifth
    # audit): dominant_category saves none (it promised 3.69 ms) and says so.
    "AMD-AGI__TraceLens/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz": {
        "synchronization": None, "explicit_sync": None, "dominant_category": (0, 0)},
    # At the replayed peak reserved - requested is ~109 MiB, ~78 MiB of it
    # inside used segments (not the 842 MiB inactive at the end).
    "ZidongLiu__DeComFL/memory.json.gz": {"fragmentation": (4.0, 4.7), "need_snapshot": None},
    # Its collectives are 96% waiting for late peers (the straggler
    # finding's time); transfer not overlapped is ~1% of the job step, under
    # the rule's 10% floor (issue 23): no exposed_communication finding.
    "facebookresearch__param/dlrm_kineto": {"exposed_communication": None,
                                            "synchronization": None},
    # A CPU-only trace is not asked for a CUDA memory snapshot.
    # (and its aten::item reads a CPU tensor: no synchronization finding).
    "facebookresearch__HolisticTraceAnalysis/rank_non_gpu.json.gz": {"need_snapshot": None,
                                                                     "gpu_idle": None,
                                                                     "synchronization": None},
}
# Savings that must equal a figure of a section, computed independently
# there: (file, rule, section, column summed over its rows).
SAVING_FROM = [
    ("ZidongLiu__DeComFL/memory.json.gz", "fragmentation", "mem_fragmentation", "peak_external"),
]


def check_findings(doc, name, problems):
    """Every finding has its fields, a saving in [0, 100] with its absolute
    twin, list subjects, and evidence naming sections of the report."""
    ids = {s["id"] for s in doc["sections"]}
    for f in doc["findings"]:
        rule = f.get("rule")
        if list(f) != FINDING_FIELDS or not all(f[k] not in (None, "") for k in TEXT_FIELDS):
            problems.append(f"{name}: finding {rule} incomplete")
            continue
        if f["rule"] != f["id"] or not 0 <= f["expected_saving_pct"] <= 100:
            problems.append(f"{name}: finding {rule}: saving {f['expected_saving_pct']}")
        if f["expected_saving_pct"] > 0 and (f["expected_saving_ns"] is None) == (
                f["expected_saving_bytes"] is None):
            problems.append(f"{name}: finding {rule}: needs one of expected_saving_ns/_bytes")
        if not isinstance(f["subjects"], list) or not isinstance(f["evidence"], dict):
            problems.append(f"{name}: finding {rule}: subjects/evidence not a list/object")
        elif not set(f["evidence"].get("sections", [])) <= ids or not f["evidence"]["sections"]:
            problems.append(f"{name}: finding {rule}: evidence {f['evidence']} names no section")
        if f["title"].startswith("Hypothesis"):
            problems.append(f"{name}: finding {rule}: title is not a statement")


def check_fragmentation(doc, name, problems):
    """At the peak: reserved - requested = internal + external + free
    segments, each part >= 0, and no more reserved than the replay's
    highest reserved."""
    sections = {s["id"]: s for s in doc["sections"]}
    peaks = {(r["snapshot"], r["device"]): r
             for r in sections.get("mem_peak", {}).get("rows", [])}
    for r in sections.get("mem_fragmentation", {}).get("rows", []):
        if r["peak_reserved"] is None:
            continue
        parts = (r["peak_internal"], r["peak_external"], r["peak_free_segments"])
        if r["peak_reserved"] - r["peak_requested"] != sum(parts) or min(parts) < 0:
            problems.append(f"{name}: fragmentation at the peak does not add up: {r}")
        p = peaks.get((r["snapshot"], r["device"]))
        if p and r["peak_reserved"] > p["peak_reserved"]:
            problems.append(f"{name}: peak_reserved {r['peak_reserved']} above the replay's "
                            f"{p['peak_reserved']}")


def main():
    profdb, data, work = sys.argv[1:4]
    if not os.path.isdir(data):
        print(f"{data}: no public data; skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    paths = sorted(os.path.join(d, f) for d, _, files in os.walk(data) for f in files
                   if f.endswith((".json", ".json.gz")))
    problems, findings, verdicts, fired = [], 0, 0, {}
    out = os.path.join(work, "out.json")

    def run(args, name):
        r = subprocess.run([profdb, *args, "--json", out], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            problems.append(f"{name}: exit {r.returncode}: {r.stderr.strip()[:300]}")
            return None
        with open(out) as f:
            doc = json.load(f)
        for s in doc["sections"]:
            if not s["rows"] and not s["note"]:
                problems.append(f"{name}: section {s['id']} has neither rows nor a note")
            names = [c["name"] for c in s["columns"]]
            for row in s["rows"]:
                if list(row) != names:
                    problems.append(f"{name}: section {s['id']} row keys {list(row)}")
                    break
        return doc

    for path in paths:
        name = os.path.relpath(path, data)
        doc = run(["report", path], name)
        if doc is None:
            continue
        check_findings(doc, name, problems)
        check_fragmentation(doc, name, problems)
        findings += len(doc["findings"])
        for f in doc["findings"]:
            fired.setdefault(f["rule"], []).append(name)
    # The expectations, on each file or folder (a folder's files form one run).
    for rel, want in EXPECTED.items():
        path = os.path.join(data, rel)
        if not os.path.exists(path):
            continue
        files = sorted(os.path.join(path, f) for f in os.listdir(path)) if os.path.isdir(path) \
            else [path]
        doc = run(["report", *files], rel)
        if doc is None:
            continue
        got = {f["rule"]: f for f in doc["findings"]}
        for rule, bounds in want.items():
            if bounds is None and rule in got:
                problems.append(f"{rel}: rule {rule} fires ({got[rule]['title']}); it must not")
            elif bounds is not None and rule not in got:
                problems.append(f"{rel}: rule {rule} does not fire")
            elif bounds is not None and not bounds[0] <= got[rule]["expected_saving_pct"] <= bounds[1]:
                problems.append(f"{rel}: rule {rule} saves {got[rule]['expected_saving_pct']}%, "
                                f"expected {bounds[0]}..{bounds[1]}")
        sections = {x["id"]: x for x in doc["sections"]}
        for f_rel, rule, section, column in SAVING_FROM:
            if f_rel == rel and rule in got:
                want_bytes = sum(r[column] for r in sections[section]["rows"])
                if got[rule]["expected_saving_bytes"] != want_bytes:
                    problems.append(f"{rel}: {rule} saving {got[rule]['expected_saving_bytes']} "
                                    f"is not {section}.{column} {want_bytes}")
    for before, after in zip(paths, paths[1:]):
        name = f"diff {os.path.relpath(before, data)} {os.path.relpath(after, data)}"
        doc = run(["diff", before, after], name)
        if doc is None:
            continue
        for v in doc["verdict"]:
            if list(v) != ["topic", "statement"] or not v["statement"]:
                problems.append(f"{name}: verdict line {v} incomplete")
        verdicts += len(doc["verdict"])
    # Each rule on the real traces: where it fires (the rules checked above
    # with EXPECTED are the ones whose right answer is known).
    for rule in sorted(fired):
        print(f"rule {rule}: fires on {len(fired[rule])} file(s), e.g. {fired[rule][0]}")
    for p in problems:
        print("FAIL", p)
    print(f"{len(paths)} files reported ({findings} findings), {len(paths) - 1} diffs "
          f"({verdicts} verdict lines), {len(problems)} problem(s)")
    return 1 if problems or not paths else 0


if __name__ == "__main__":
    sys.exit(main())
