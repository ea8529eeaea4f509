#!/usr/bin/env python3
"""Check the peak replay functions against an independent implementation.

    check_memreplay.py PROFDB_SO PROFDB DATA_DIR WORK_DIR

The reference below re-implements the rules of PyTorch's memory viewer
(MemoryViz.js process_alloc_data) directly on the snapshot JSON, without
looking at profdb's code or database:
  * alloc adds an element; free_completed removes the element allocated at
    that address, or, when there is none, the block was allocated from the
    start until that free; free_requested frees nothing;
  * every active_allocated block (of that device) whose address has no
    outstanding alloc was allocated throughout (its requested_size).
It then compares, for every snapshot in DATA_DIR, the real one of
tests/cuda and every hand-made case in tests/sql/data/mem_*.json: the allocated bytes after every event
(mem_timeline), the peak, its first seq, the baseline and the end
(mem_peak), and the live set at the peak (mem_live_at).  The extension is
loaded into Python's sqlite3 module, which also checks that path.
Without DATA_DIR only the hand-made cases are checked.
"""
import gzip
import json
import os
import sqlite3
import subprocess
import sys


def reference(snap, device):
    """(baseline, [allocated after each event], live sets by seq)."""
    traces = snap.get("device_traces", [])
    trace = traces[device] if device < len(traces) else []
    live = {}
    freed_before = []  # (addr, size, free position)
    for i, e in enumerate(trace):
        if e["action"] == "alloc":
            live[e["addr"]] = (e["size"], i)
        elif e["action"] == "free_completed":
            if e["addr"] in live:
                del live[e["addr"]]
            else:
                freed_before.append((e["addr"], e["size"], i))
    segments = snap["segments"] if isinstance(snap, dict) else snap
    always = []
    for s in segments:
        if s.get("device", 0) != device:
            continue
        addr = s["address"]
        for b in s["blocks"]:
            baddr = b.get("address", addr)
            addr += b["size"]
            if b["state"] == "active_allocated" and baddr not in live:
                size = b.get("requested_size")
                if size is None and b.get("history"):
                    size = b["history"][0].get("real_size")
                always.append((baddr, size if size is not None else b["size"]))
    baseline = sum(x[1] for x in freed_before) + sum(x[1] for x in always)
    allocated, timeline, current = baseline, [], {}
    for e in trace:
        if e["action"] == "alloc":
            current[e["addr"]] = e["size"]
            allocated += e["size"]
        elif e["action"] == "free_completed":
            if e["addr"] in current:
                allocated -= current.pop(e["addr"])
            else:
                allocated -= e["size"]
        timeline.append(allocated)
    return baseline, timeline, trace, freed_before, always


def live_at(trace, freed_before, always, upto):
    """Sizes of the allocations live right after position upto."""
    current, shadowed = {}, []
    for i, e in enumerate(trace[: upto + 1]):
        if e["action"] == "alloc":
            if e["addr"] in current:  # the earlier one stays allocated
                shadowed.append(current[e["addr"]])
            current[e["addr"]] = (e["size"], i)
        elif e["action"] == "free_completed":
            current.pop(e["addr"], None)
    out = [(size, seq) for size, seq in current.values()] + shadowed
    out += [(size, None) for _, size, pos in freed_before if pos > upto]
    out += [(size, None) for _, size in always]
    return sorted(out, key=lambda x: (-x[0], -1 if x[1] is None else x[1]))


def check(con, snap_id, snap, label):
    failures = 0
    devices = range(max(len(snap.get("device_traces", [])) if isinstance(snap, dict) else 0, 1))
    for device in devices:
        baseline, timeline, trace, freed_before, always = reference(snap, device)
        rows = con.execute("SELECT seq, allocated FROM mem_timeline(?, ?) ORDER BY seq",
                           (snap_id, device)).fetchall()
        if [r[1] for r in rows] != timeline or [r[0] for r in rows] != list(range(len(trace))):
            bad = next((i for i, (a, b) in enumerate(zip(rows, timeline)) if a[1] != b), None)
            print(f"FAIL {label} device {device}: timeline differs (first at {bad})")
            failures += 1
        states = [baseline] + timeline
        peak = max(states)
        first = states.index(peak)
        peak_seq = None if first == 0 else first - 1
        want = (peak, peak_seq, baseline, timeline[-1] if timeline else baseline)
        got = con.execute("SELECT peak_allocated, peak_seq, baseline, end_allocated"
                          " FROM mem_peak(?, ?)", (snap_id, device)).fetchone()
        if got is None and (trace or baseline):
            print(f"FAIL {label} device {device}: mem_peak returned no row")
            failures += 1
        elif got is not None and tuple(got) != want:
            print(f"FAIL {label} device {device}: mem_peak {tuple(got)} != reference {want}")
            failures += 1
        at = peak_seq if peak_seq is not None else -1
        ref_live = live_at(trace, freed_before, always, at)
        got_live = con.execute("SELECT size, alloc_seq FROM mem_live_at(?, ?, ?)"
                               " ORDER BY size DESC, coalesce(alloc_seq, -1)",
                               (snap_id, device, at)).fetchall()
        if [tuple(r) for r in got_live] != ref_live:
            print(f"FAIL {label} device {device}: live set at {at}: {len(got_live)} rows,"
                  f" reference {len(ref_live)}")
            failures += 1
        if sum(r[0] for r in got_live) != peak:
            print(f"FAIL {label} device {device}: live set at the peak does not sum to it")
            failures += 1
    return failures


def main():
    so, profdb, data_dir, work = sys.argv[1:5]
    cases_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sql", "data")
    os.makedirs(work, exist_ok=True)
    inputs = []
    if os.path.isdir(data_dir):
        for rel in ("ZidongLiu__DeComFL/memory.json.gz", "LfieLike__SketchKV2/my_snapshot.json",
                    "Yiyi-philosophy__LLM-inference/1.3b_snapshot.json",
                    "Yiyi-philosophy__LLM-inference/oom_snapshot.json"):
            inputs.append(os.path.join(data_dir, rel))
    # A real snapshot of PyTorch 2.11 (tests/cuda/README.md), always.
    inputs.append(os.path.join(os.path.dirname(cases_dir), "..", "cuda", "memory_snapshot.json.gz"))
    # Hand-made cases (also used by tests/sql/memreplay.sql).
    inputs += sorted(os.path.join(cases_dir, f) for f in os.listdir(cases_dir)
                     if f.startswith("mem_") and f.endswith(".json"))
    db_path = os.path.join(work, "memreplay.db")
    if os.path.exists(db_path):
        os.remove(db_path)
    r = subprocess.run([profdb, "load", "-q", "-o", db_path] + inputs,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        return 1
    con = sqlite3.connect(db_path)
    if not hasattr(con, "enable_load_extension"):
        print(f"FAIL: {sys.executable} has a sqlite3 module built without extension"
              " loading; configure with -DPYTHON3=/usr/bin/python3")
        return 1
    con.enable_load_extension(True)
    con.load_extension(so)
    failures = 0
    for path in inputs:
        snap_id = con.execute("SELECT snapshot_id FROM snapshot WHERE path = ?",
                              (path,)).fetchone()[0]
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            snap = json.load(f)
        label = os.path.basename(path)
        n = check(con, snap_id, snap, label)
        failures += n
        if not n:
            events = sum(len(t) for t in snap.get("device_traces", [])) if isinstance(snap, dict) else 0
            print(f"ok {label}: {events} events")
    print(f"{len(inputs)} snapshots checked, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
