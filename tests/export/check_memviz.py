#!/usr/bin/env python3
"""Checks of `profdb export --format memory_viz` (issue 28, item 2).

    check_memviz.py PROFDB WORKDIR fixture
    check_memviz.py PROFDB WORKDIR public SNAPSHOT.json.gz

fixture: a small snapshot written here (a simulated allocator: segments
  allocated and freed before, in and after the window, allocations made
  before recording, addresses reused, frames, an oom, a second device),
  cut at every pair of event times.
public: the public snapshot (ZidongLiu__DeComFL/memory.json.gz, 23,105
  events): --at-peak, and time windows (absolute and relative).

Every window is read back with a restricted unpickler (find_class and
persistent_load refuse everything) after checking that the pickle uses only
the opcodes of dict, list, str, int, float, bool and None (the set
PyTorch's MemoryViz.js reads).  It must equal what this script derives on
its own from the original snapshot JSON:
  - its events are the original's events in the window, with their frames;
  - replayed by the memory viewer's rules (an allocation ends at
    free_completed; a free without its alloc was allocated from the start;
    an active_allocated block with no alloc in the trace was allocated
    throughout), the window starts with exactly the allocations live at its
    start in the original, and its segments, walked back over the window's
    segment events, are the original's segments at the window's start;
  - its blocks tile each segment; its JSON twin (-o x.json) is the same;
  - the peak of allocated bytes replaying the window equals the original's
    over the window, and for --at-peak mem_peak's peak_allocated (profdb
    query).
Exit 77 (skipped) when the public snapshot is absent.
"""
import csv
import gzip
import io
import json
import os
import pickle
import pickletools
import subprocess
import sys
from collections import Counter

PROFDB, WORK, MODE = sys.argv[1], sys.argv[2], sys.argv[3]

# The opcodes of plain data that MemoryViz.js's own unpickler reads.
ALLOWED_OPS = {
    "PROTO", "FRAME", "EMPTY_DICT", "EMPTY_LIST", "MARK", "SETITEM", "SETITEMS", "APPEND",
    "APPENDS", "SHORT_BINUNICODE", "BINUNICODE", "BININT", "BININT1", "BININT2", "LONG1",
    "BINFLOAT", "NEWTRUE", "NEWFALSE", "NONE", "BINPUT", "LONG_BINPUT", "BINGET",
    "LONG_BINGET", "MEMOIZE", "STOP"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(*args):
    r = subprocess.run([PROFDB, *args], capture_output=True, text=True)
    if r.returncode != 0:
        fail("profdb %s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r


def query(db, sql):
    return list(csv.DictReader(io.StringIO(run("query", db, "--csv", sql).stdout)))


class Refuse(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError("refused: %s.%s" % (module, name))

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refused: persistent id")


def read_pickle(path):
    data = open(path, "rb").read()
    ops = {op.name for op, _, _ in pickletools.genops(data)}
    if not ops <= ALLOWED_OPS:
        fail("%s: opcodes beyond plain data: %s" % (path, sorted(ops - ALLOWED_OPS)))
    return Refuse(io.BytesIO(data)).load()


# ---- the memory viewer's rules, from its documentation (FORMATS.md 2.8) ----

def replay(entries, segments, device):
    """Replay entries as the viewer does. Returns (initial, timeline, live):
    initial: Counter of (addr, size) allocated before the first entry;
    timeline[k]: allocated bytes after entry k (timeline[-1]... see below);
    live_after(k) is computed by live_at()."""
    outstanding = {}  # addr -> (size, alloc index)
    initial = []      # (addr, size, freed at index or None)
    allocs = []       # (addr, size, alloc index, freed index or None)
    for k, e in enumerate(entries):
        a = e["action"]
        if a == "alloc":
            allocs.append([e["addr"], e["size"], k, None])
            outstanding[e["addr"]] = len(allocs) - 1
        elif a == "free_completed":
            i = outstanding.pop(e["addr"], None)
            if i is None:
                initial.append([e["addr"], e["size"], k])
            else:
                allocs[i][3] = k
    for s in segments:
        if s["device"] != device:
            continue
        for b in s["blocks"]:
            if b["state"] == "active_allocated" and b["address"] not in outstanding:
                initial.append([b["address"], b["requested_size"], None])
    return initial, allocs


def live_at(initial, allocs, k):
    """Counter of (addr, size) live right after entry k (k = -1: before the
    first)."""
    c = Counter()
    for addr, size, freed in initial:
        if freed is None or freed > k:
            c[(addr, size)] += 1
    for addr, size, made, freed in allocs:
        if made <= k and (freed is None or freed > k):
            c[(addr, size)] += 1
    return c


def timeline(initial, allocs, n):
    """Allocated bytes before the first entry, then after each of n entries."""
    delta = [0] * n
    for addr, size, freed in initial:
        if freed is not None:
            delta[freed] -= size
    for addr, size, made, freed in allocs:
        delta[made] += size
        if freed is not None:
            delta[freed] -= size
    cur = sum(s for _, s, _ in initial)
    out = [cur]
    for d in delta:
        cur += d
        out.append(cur)
    return out


SEG_MAPS = ("segment_alloc", "segment_map")
SEG_FREES = ("segment_free", "segment_unmap")


def segments_before(segs, entries):
    """The set of (address, size) segments before entries, walking back from
    segs (the state after them)."""
    s = set(segs)
    for e in reversed(entries):
        if e["action"] in SEG_MAPS:
            s.discard((e["addr"], e["size"]))
        elif e["action"] in SEG_FREES:
            s.add((e["addr"], e["size"]))
    return s


def frames_of(x):
    return [(f["name"], f["filename"], f["line"]) for f in x.get("frames", [])]


def check_window(snap, device, w, first, last, name):
    """w (the exported window) against snap (the original) over events
    [first, last]."""
    ents = snap["device_traces"][device]
    wev = w["device_traces"][device]
    ndev = max([len(snap["device_traces"])] + [s["device"] + 1 for s in snap["segments"]])
    if len(w["device_traces"]) != ndev:
        fail("%s: device_traces has %d lists, not %d" % (name, len(w["device_traces"]), ndev))
    if any(w["device_traces"][d] for d in range(len(w["device_traces"])) if d != device):
        fail("%s: events of another device" % name)
    orig = ents[first:last + 1]
    if len(wev) != len(orig):
        fail("%s: %d events, the original has %d in the window" % (name, len(wev), len(orig)))
    for k, (a, b) in enumerate(zip(wev, orig)):
        for key in ("action", "addr", "size", "stream", "time_us", "device_free",
                    "compile_context", "user_metadata"):
            if a.get(key) != b.get(key):
                fail("%s: event %d: %s %r, original %r" % (name, first + k, key, a.get(key),
                                                             b.get(key)))
        if frames_of(a) != frames_of(b):
            fail("%s: event %d: frames differ" % (name, first + k))
    # the allocations at the window's start
    oi, oa = replay(ents, snap["segments"], device)
    wi, wa = replay(wev, w["segments"], device)
    want = live_at(oi, oa, first - 1)
    got = live_at(wi, wa, -1)
    if got != want:
        fail("%s: allocations at the window's start differ: only in the window %s, only in"
             " the original %s" % (name, list((got - want).items())[:5],
                                   list((want - got).items())[:5]))
    # ... and at its end, and the peak over it
    if live_at(wi, wa, len(wev) - 1) != live_at(oi, oa, last):
        fail("%s: allocations at the window's end differ" % name)
    ot = timeline(oi, oa, len(ents))[first:last + 2]
    wt = timeline(wi, wa, len(wev))
    if ot != wt:
        fail("%s: allocated bytes over the window differ (peak %d, original %d)"
             % (name, max(wt), max(ot)))
    # segments: tiled by their blocks; walked back, the original's at the start
    for s in w["segments"]:
        at = s["address"]
        for b in s["blocks"]:
            if b["address"] != at or b["size"] <= 0:
                fail("%s: segment %#x: blocks do not tile it" % (name, s["address"]))
            at += b["size"]
        if at != s["address"] + s["total_size"]:
            fail("%s: segment %#x: blocks sum to %d, not %d" % (name, s["address"],
                                                              at - s["address"],
                                                              s["total_size"]))
        alloc = sum(b["size"] for b in s["blocks"] if b["state"] == "active_allocated")
        if alloc != s["allocated_size"]:
            fail("%s: segment %#x: allocated_size" % (name, s["address"]))
    osegs = {(s["address"], s["total_size"]) for s in snap["segments"]
             if s["device"] == device}
    wsegs = {(s["address"], s["total_size"]) for s in w["segments"]}
    if segments_before(wsegs, wev) != segments_before(osegs, ents[first:]):
        fail("%s: segments at the window's start differ" % name)
    if segments_before(osegs, ents[last + 1:]) != wsegs:
        fail("%s: segments at the window's end differ" % name)
    pw = w["profdb_window"]
    if (pw["first_seq"], pw["last_seq"], pw["device"]) != (first, last, device):
        fail("%s: profdb_window %r" % (name, pw))
    return max(wt)


def viewer_module():
    """PyTorch's torch/cuda/_memory_viz.py when $PROFDB_MEMORY_VIZ_PY names a
    copy (it imports no torch for these functions), else None."""
    path = os.environ.get("PROFDB_MEMORY_VIZ_PY")
    if not path:
        return None
    import importlib.util
    spec = importlib.util.spec_from_file_location("memory_viz", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def viewer_checks(mod, w, name):
    """segsum (asserts free + allocated == reserved per segment), trace,
    trace_plot and segment_plot of PyTorch's own module accept w."""
    try:
        mod.segsum(w)
        mod.trace(w)
        for html_text in (mod.trace_plot(w), mod.segment_plot(w)):
            if "add_local_files" not in html_text:
                fail("%s: _memory_viz.py wrote no viewer page" % name)
    except Exception as e:  # noqa: BLE001 - any failure of the viewer's code
        fail("%s: _memory_viz.py: %r" % (name, e))


def expect_error(db, args, words):
    r = subprocess.run([PROFDB, "export", db, "--format", "memory_viz", "-o",
                        os.path.join(WORK, "bad.pickle"), *args], capture_output=True, text=True)
    if r.returncode != 2 or not r.stderr.startswith("profdb: export: ") or words not in r.stderr:
        fail("%s: exit %d, %r (wanted 2 and %r)" % (" ".join(args), r.returncode, r.stderr,
                                                     words))
    if os.path.exists(os.path.join(WORK, "bad.pickle")):
        fail("%s: a file was left behind" % " ".join(args))


def export(db, name, *args):
    out = os.path.join(WORK, name)
    run("export", db, "--format", "memory_viz", "-q", "-o", out + ".pickle", *args)
    w = read_pickle(out + ".pickle")
    run("export", db, "--format", "memory_viz", "-q", "-o", out + ".json", *args)
    if json.load(open(out + ".json")) != w:
        fail("%s: the JSON and the pickle differ" % name)
    if VIEWER:
        viewer_checks(VIEWER, w, name)
    return w


# ---- the fixture: a simulated allocator ---------------------------------

MiB = 1 << 20


def make_fixture():
    """A snapshot whose final state follows from its events: segments S1
    and two allocations made before recording, S2 and S4 allocated in the
    trace, S3 allocated and freed, addresses reused, an oom; device 1 has a
    segment and two events."""
    S1, S2, S3, S4, S5 = 0x10000000, 0x20000000, 0x30000000, 0x40000000, 0x50000000
    segs = {S1: (4 * MiB, 0), S5: (2 * MiB, 1)}
    live = {S1: (1000, None), S1 + 4096: (5000, None), S1 + 65536: (300, None)}
    ents = []

    def ev(action, addr, size, frames=None, **kw):
        e = {"action": action, "addr": addr, "size": size, "stream": 0,
             "time_us": 1700000000000000 + 10 * len(ents)}
        if frames:
            e["frames"] = [{"name": f, "filename": "/src/%s.py" % f, "line": 10 + i}
                           for i, f in enumerate(frames)]
        e.update(kw)
        if action == "alloc":
            live[addr] = (size, e.get("frames"))
        elif action == "free_completed":
            live.pop(addr)
        elif action == "segment_alloc":
            segs[addr] = (size, 0)
        elif action == "segment_free":
            segs.pop(addr)
        ents.append(e)

    def alloc_free(addr):
        size = live[addr][0]
        ev("free_requested", addr, size)
        ev("free_completed", addr, size)

    ev("alloc", S1 + 8192, 2000, ["fwd", "layer"])
    alloc_free(S1)
    ev("segment_alloc", S2, 2 * MiB)
    ev("alloc", S2, 700, ["fwd"])
    ev("alloc", S2 + 1024, 100000, ["bwd", "layer"])
    alloc_free(S1 + 8192)
    ev("alloc", S1 + 8192, 1500, ["fwd", "layer"])
    alloc_free(S1 + 4096)
    ev("segment_alloc", S3, 20 * MiB)
    ev("alloc", S3, 10000000, ["big"])
    alloc_free(S2)
    alloc_free(S3)
    ev("segment_free", S3, 20 * MiB)
    ev("alloc", S2, 600)
    alloc_free(S2 + 1024)
    ev("segment_alloc", S4, 2 * MiB)
    ev("alloc", S4 + 512, 512, ["tail"])
    ents.append({"action": "oom", "size": 1 << 40, "stream": 0, "device_free": 12345,
                 "time_us": 1700000000000000 + 10 * len(ents)})
    segments = []
    for base, (size, dev) in sorted(segs.items()):
        blocks, at = [], base
        for addr in sorted(a for a in live if base <= a < base + size):
            req, frames = live[addr]
            if addr > at:
                blocks.append({"address": at, "size": addr - at, "requested_size": 0,
                               "state": "inactive", "frames": []})
            bsize = max(512, (req + 511) // 512 * 512)
            blocks.append({"address": addr, "size": bsize, "requested_size": req,
                           "state": "active_allocated", "frames": frames or []})
            at = addr + bsize
        if at < base + size:
            blocks.append({"address": at, "size": base + size - at, "requested_size": 0,
                           "state": "inactive", "frames": []})
        alloc = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
        segments.append({"device": dev, "address": base, "total_size": size,
                         "allocated_size": alloc, "active_size": alloc,
                         "requested_size": sum(b["requested_size"] for b in blocks),
                         "stream": 0, "segment_type": "small" if size == 2 * MiB else "large",
                         "segment_pool_id": [0, 0], "is_expandable": False, "frames": [],
                         "blocks": blocks})
    dev1 = [{"action": "alloc", "addr": S5, "size": 4096, "stream": 0,
             "time_us": 1700000000000000},
            {"action": "free_completed", "addr": S5, "size": 4096, "stream": 0,
             "time_us": 1700000000000001}]
    return {"segments": segments, "device_traces": [ents, dev1]}


def peak_of(db, device):
    r = query(db, "SELECT peak_allocated, peak_seq FROM mem_peak(1, %d)" % device)[0]
    return int(r["peak_allocated"]), r["peak_seq"]


def main_fixture():
    snap = make_fixture()
    path = os.path.join(WORK, "fixture_snapshot.json")
    json.dump(snap, open(path, "w"))
    db = os.path.join(WORK, "fixture.db")
    run("load", path, "-o", db, "-q")
    ents = snap["device_traces"][0]
    t = [e["time_us"] for e in ents]
    n = 0
    for first in range(len(ents)):
        for last in range(first, len(ents)):
            if (last - first) % 3 and last != len(ents) - 1:
                continue  # about a third of the pairs: every start, every length mod 3
            w = export(db, "w", "--device", "0", "--from", "%dus" % t[first],
                       "--to", "%dus" % (t[last] + 1))
            check_window(snap, 0, w, first, last, "window %d-%d" % (first, last))
            n += 1
    peak, peak_seq = peak_of(db, 0)
    w = export(db, "peak", "--at-peak", "--around", "2")
    first, last = w["profdb_window"]["first_seq"], w["profdb_window"]["last_seq"]
    if peak_seq == "" or not (first <= int(peak_seq) <= last):
        fail("--at-peak: window %d-%d, peak at %r" % (first, last, peak_seq))
    if check_window(snap, 0, w, first, last, "--at-peak") != peak:
        fail("--at-peak: the window's peak is not mem_peak's %d" % peak)
    w = export(db, "dev1", "--device", "1")
    check_window(snap, 1, w, 0, 1, "device 1")
    expect_error(db, ["--at-peak", "--from", "+1ms"], "not both")
    expect_error(db, ["--snapshot", "nosuch"], "no such snapshot")
    expect_error(db, ["--device", "7"], "no allocator events")
    expect_error(db, ["--from", "1us", "--to", "2us"], "holds no allocator event")
    expect_error(db, ["--from", "soon"], "not a time")
    print("ok: %d windows of the fixture, --at-peak (peak %d bytes), device 1" % (n, peak))


def main_public(path):
    if not os.path.exists(path):
        print("skipped: %s is absent" % path)
        sys.exit(77)
    snap = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    db = os.path.join(WORK, "public.db")
    if os.path.exists(db):
        os.remove(db)
    run("load", path, "-o", db, "-q")
    ents = snap["device_traces"][0]
    peak, peak_seq = peak_of(db, 0)
    w = export(db, "peak", "--at-peak")
    first, last = w["profdb_window"]["first_seq"], w["profdb_window"]["last_seq"]
    if not (first <= int(peak_seq) <= last) or (first, last) != (
            max(0, int(peak_seq) - 1000), min(len(ents) - 1, int(peak_seq) + 1000)):
        fail("--at-peak: window %d-%d around the peak at %s" % (first, last, peak_seq))
    got = check_window(snap, 0, w, first, last, "--at-peak")
    if got != peak:
        fail("--at-peak: the window's peak %d is not mem_peak's %d" % (got, peak))
    t = [e["time_us"] for e in ents]
    for a, b in ((0, len(ents) - 1), (5000, 9000), (len(ents) - 300, len(ents) - 1)):
        w = export(db, "w", "--from", "%dus" % t[a], "--to", "%dus" % (t[b] + 1))
        fa = min(k for k in range(len(t)) if t[k] >= t[a])
        lb = max(k for k in range(len(t)) if t[k] <= t[b])
        check_window(snap, 0, w, fa, lb, "window %d-%d" % (a, b))
    rel = (t[7000] - t[0]) / 1000.0
    w = export(db, "rel", "--from", "+%.3fms" % rel, "--to", "+%.3fms" % (rel + 250))
    fa = min(k for k in range(len(t)) if (t[k] - t[0]) * 1000 >= round(rel * 1e6))
    lb = max(k for k in range(len(t)) if (t[k] - t[0]) * 1000 < round((rel + 250) * 1e6))
    check_window(snap, 0, w, fa, lb, "relative window")
    print("ok: --at-peak window %d-%d, peak %d bytes = mem_peak; 4 time windows" %
          (first, last, peak))


os.makedirs(WORK, exist_ok=True)
VIEWER = viewer_module()
if not VIEWER:
    print("note: $PROFDB_MEMORY_VIZ_PY not set: PyTorch's _memory_viz.py not run")
if MODE == "fixture":
    main_fixture()
elif MODE == "public":
    main_public(sys.argv[4])
else:
    fail("mode fixture or public")
