#!/usr/bin/env python3
"""profdb report --scope hta against HTA's figures on every public trace.

    check_hta.py PROFDB PUBLIC_DIR REFERENCE_DIR WORK_DIR

REFERENCE_DIR holds what HTA v0.6.0 computed on each public trace
(../shared/data/reference/hta, README there).  For every figure where
profdb claims HTA's definition (docs/definitions.md), the largest
difference over all traces must stay within 0.5 percentage points:

  temporal_breakdown   idle / compute / non-compute % of the GPU window, per rank
  comp_comm_overlap    communication.overlap_pct, per rank
  idle_breakdown       gpu_idle host_wait / kernel_wait / other, per stream of
                       rank 0, as % of the stream's idle time
  queue_length         samples, median and maximum per stream of rank 0,
                       exactly, the mean between its two orders of equal times
                       (queue_length(), below)

The temporal breakdown of --scope hta reproduces HTA's own arithmetic (its
µs rounding, its events, its filter, lib/11_hta.sql): every rank of every
reference file with HTA figures must be within 0.5 pp, with no exemption and
no allowance for rounding (MTIA traces, sync events and CPU events with a
stream included).  For the other figures: HTA truncates times to whole
microseconds; on traces with sub-microsecond GPU times (fractional ts or
dur) each GPU event may move by up to 2 us, so there the limit is
max(0.5 pp, 2 us x events / the figure's denominator) and the largest
difference is listed apart.  Traces where profdb deliberately differs are
reported, not failed: kernels profdb counts as collectives that HTA's name
patterns do not (or the reverse), GPU synchronization markers and CPU ops
with a stream arg (Triton launchers), which HTA counts as GPU work in the
overlap, and MTIA traces (profdb does not analyse MTIA device events) for
the figures other than the temporal breakdown.  Also printed, without a
limit (the definitions differ on purpose, see docs/definitions.md): the
median launch queueing (launch_overhead.median_queue_ns vs HTA's
launch_delay median) and the stragglers (rank_sum vs
get_potential_stragglers).

KNOWN lists differences measured and not explained, each with the largest
value allowed (measured + 0.5 pp): a larger one fails.  It never holds a
temporal breakdown figure.

Exit 77 when either folder is missing.
"""
import json
import os
import re
import subprocess
import sys

profdb, public, reference, work = sys.argv[1:5]
if not os.path.isdir(public) or not os.path.isdir(reference):
    print("skip: no public data or HTA reference")
    sys.exit(77)
os.makedirs(work, exist_ok=True)
LIMIT_PP = 0.5
# (figure, trace) -> largest difference allowed, with what was measured
KNOWN = {
    # (none: resnet_act_checkpoint's gpu_idle differed by 34.6 pp because HTA
    # takes the last ProfilerStep's start from its GPU annotation, 37 ms after
    # the CPU range, and so keeps the last step's work; --scope hta does too.)
}
HTA_COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
HTA_MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")

# every public file by "<parent folder>__<file name>", as the reference names them
by_name = {}
for root, dirs, files in os.walk(public):
    for n in dirs + files:
        by_name["%s__%s" % (os.path.basename(root), n)] = os.path.join(root, n)

largest = {}      # figure -> (difference, where) on traces with whole-us GPU times
rounded = {}      # figure -> (difference, where, limit) on traces with sub-us GPU times
deliberate = {}   # figure -> (difference, where) on traces where profdb differs on purpose
failures = []
notes = []


known = {}        # figure -> (difference, where, allowed)
strict = {}       # temporal breakdown figure -> (difference, where, limit, key): every rank
tb_ranks = 0      # ranks compared in the temporal breakdown


def note_diff(figure, diff, where, differs, bound=0.0):
    """bound: HTA's truncation bound in pp for this figure on this trace"""
    allowed = KNOWN.get((figure, where.split(" ")[0]))
    if allowed is not None:
        if figure not in known or diff > known[figure][0]:
            known[figure] = (diff, where, allowed)
        return
    if differs:
        table, key = deliberate, diff
    elif bound > 0:
        table, key = rounded, diff - max(LIMIT_PP, bound)
    else:
        table, key = largest, diff
    if figure not in table or key > table[figure][-1]:
        table[figure] = (diff, where, max(LIMIT_PP, bound), key)


def run(args, **kw):
    return subprocess.run([profdb, *args], check=True, stdout=subprocess.PIPE, **kw).stdout


def queue_length(name, ref, rows, mtia):
    """HTA's get_queue_length_summary (rank 0, one row per stream in stream
    order) against queue_length with --scope hta: equal samples, maximum and
    median, mean to its 4 decimals.  MTIA queues are not analysed by profdb."""
    global ql_streams
    if not isinstance(ref, list):
        return
    if mtia:
        notes.append(f"{name}: MTIA launch queues not analysed by profdb (queue length not compared)")
        return
    mine = sorted((r for r in rows if r["rank"] == 0), key=lambda r: (r["stream"], r["device"]))
    want = [{k.split("'")[3]: v for k, v in h.items()} for h in ref]
    if len(mine) != len(want):
        failures.append(f"{name}: queue_length: {len(mine)} streams, HTA {len(want)}")
        return
    for p, h in zip(mine, want):
        got = (2 * p["launched"], p["max_queue"], p["p50_queue"])
        exp = (h["count"], h["max"], h["50%"])
        # HTA orders equal times with an unstable sort: its mean lies between
        # the two orders' (4 decimals in the report)
        tol = 0.00005 + 1e-9
        if got != exp or not p["mean_queue_low"] - tol <= h["mean"] <= p["mean_queue"] + tol:
            failures.append(f"{name}: queue_length stream {p['stream']}: samples, max, median, mean "
                            f"{got + ((p['mean_queue_low'], p['mean_queue']),)}, HTA "
                            f"{exp + (h['mean'],)}")
        ql_streams += 1


ql_streams = 0  # streams whose queue length equals HTA's
for ref_file in sorted(os.listdir(reference)):
    if not ref_file.endswith(".hta.json"):
        continue
    name = ref_file[:-len(".hta.json")]
    path = by_name.get(name)
    if path is None:
        failures.append(f"{name}: no such public trace")
        continue
    with open(os.path.join(reference, ref_file)) as f:
        hta = json.load(f).get("hta", {})
    db = os.path.join(work, name + ".db")
    if os.path.exists(db):
        os.remove(db)
    load = subprocess.run([profdb, "load", "-q", path, "-o", db], stdout=subprocess.DEVNULL)
    if load.returncode not in (0, 3):
        failures.append(f"{name}: profdb load failed ({load.returncode})")
        continue
    doc = json.loads(run(["report", db, "--scope", "hta", "--json", "-"]))
    sec = {s["id"]: s["rows"] for s in doc["sections"]}
    # kernels profdb and HTA classify differently (collective or not)
    kinds = run(["query", db, "--json", "SELECT DISTINCT name, kernel_category(name) AS category FROM kernel"])
    differs = any(bool(HTA_COMM.match(k["name"])) != (k["category"] == "NCCL/communication")
                  and not HTA_MEMORY.match(k["name"]) for k in json.loads(kinds))
    if differs:
        notes.append(f"{name}: collective kernels classified differently from HTA (not failed)")
    counts = json.loads(run(["query", db, "--json",
        "SELECT (SELECT count(*) FROM gpu_activity WHERE kind IN ('kernel', 'memcpy', 'memset')"
        "          AND (ts % 1000 <> 0 OR dur % 1000 <> 0)) AS fractional,"
        "       (SELECT count(*) FROM gpu_activity WHERE kind IN ('kernel', 'memcpy', 'memset')) AS gpu,"
        "       (SELECT count(*) FROM _gpu WHERE kind = 14 AND dur > 0) AS syncs,"
        "       (SELECT count(*) FROM _slice WHERE args LIKE '%\"stream\":%') AS cpu_streams,"
        "       (SELECT count(*) FROM event WHERE cat GLOB 'mtia*') AS mtia"]))[0]
    # HTA truncates each time to a whole us: up to 2 us per GPU event
    slack_us = 2.0 * counts["gpu"] if counts["fractional"] else 0.0
    mtia_only = counts["mtia"] and not counts["gpu"]
    # events HTA takes for GPU work and profdb does not: every event with a
    # stream arg, GPU sync markers and CPU ops (Triton launchers) included
    tb_differs = differs or counts["syncs"] > 0 or counts["cpu_streams"] > 0
    if counts["syncs"]:
        notes.append(f"{name}: {counts['syncs']} GPU sync markers with a duration, GPU work for HTA (counted in the temporal breakdown; overlap not failed)")
    if counts["cpu_streams"]:
        notes.append(f"{name}: {counts['cpu_streams']} CPU events with a stream arg, GPU work for HTA (counted in the temporal breakdown; overlap not failed)")
    single = len(sec.get("temporal_breakdown", [])) == 1

    def mine(rows, rank):
        got = [r for r in rows if r["rank"] == rank or (single and len(rows) == 1)]
        return got[0] if len(got) == 1 else None

    # The temporal breakdown: HTA's own arithmetic, every rank, no exemption.
    tb = hta.get("temporal_breakdown")
    if isinstance(tb, list):
        for h in tb:
            p = mine(sec.get("temporal_breakdown", []), h["rank"])
            if p is None:
                failures.append(f"{name}: rank {h['rank']}: no temporal_breakdown row")
                continue
            tb_ranks += 1
            for key in ("idle", "compute", "non_compute"):
                d = abs(p[key + "_pct"] - h[key + "_time_pctg"])
                fig = f"temporal_breakdown {key}_pct"
                if fig not in strict or d > strict[fig][0]:
                    strict[fig] = (d, f"{name} rank {h['rank']}", LIMIT_PP, d)

    queue_length(name, hta.get("queue_length_summary"), sec.get("queue_length", []), counts["mtia"])
    if mtia_only:
        notes.append(f"{name}: MTIA device events, not analysed by profdb (only the temporal "
                     "breakdown compared)")
        continue

    ov = hta.get("comm_comp_overlap")
    if isinstance(ov, list):
        for h in ov:
            v = h.get("comp_comm_overlap_pctg")
            if v is None:
                continue
            p = mine(sec.get("communication", []), h["rank"])
            if p is None:
                failures.append(f"{name}: rank {h['rank']}: no communication row (HTA {v}%)")
                continue
            # With peers matched, profdb measures overlap on transfer only
            # (waiting for late peers split off, issue 23); HTA over whole
            # collective kernels: a deliberate difference then.
            waits = (p.get("wait_ns") or 0) > 0
            if waits:
                notes.append(f"{name}: rank {h['rank']}: overlap over transfer, waiting split off "
                             "(not failed)")
            note_diff("communication overlap_pct", abs(p["overlap_pct"] - v), f"{name} rank {h['rank']}",
                      tb_differs or waits, 100.0 * slack_us / max(p["comm_ns"] / 1000, 1))

    idle = hta.get("idle_time_breakdown")
    if isinstance(idle, dict) and idle.get("breakdown"):
        rank0 = [r for r in doc["sections"] if r["id"] == "gpu_idle"][0]["rows"]
        streams = {}
        for h in idle["breakdown"]:
            streams.setdefault(h["stream"], {})[h["idle_category"]] = h["idle_time"]
        for stream, cats in streams.items():
            rows = [r for r in rank0 if r["stream"] == stream]
            total = sum(v for v in cats.values() if v)
            if not rows or not total:
                continue
            r = rows[0]
            for cat, col in (("host_wait", "host_wait_ns"), ("kernel_wait", "kernel_wait_ns"),
                             ("other", "other_ns")):
                d = abs(r[col] / 1000 - (cats.get(cat) or 0)) / total * 100
                note_diff(f"gpu_idle {cat} (% of stream idle)", d, f"{name} stream {stream}", False,
                          100.0 * slack_us / total)

    ls = hta.get("cuda_kernel_launch_stats")
    lo = sec.get("launch_overhead", [])
    if isinstance(ls, dict) and "0" in ls and ls["0"].get("describe") and lo and lo[0]["median_queue_ns"] is not None:
        h = ls["0"]["describe"]["launch_delay"]["50%"]
        d = abs(lo[0]["median_queue_ns"] / 1000 - h)
        if "launch median queue (us, not limited)" not in largest or d > largest["launch median queue (us, not limited)"][0]:
            largest["launch median queue (us, not limited)"] = (d, name, float("inf"), d)

    st = hta.get("potential_stragglers")
    if isinstance(st, list) and len(sec.get("rank_sum", [])) > 1:
        flagged = sorted(r["rank"] for r in sec["rank_sum"] if r["straggler"] == "yes")
        notes.append(f"{name}: stragglers HTA {sorted(st)}, profdb {flagged}")
        if not set(st) <= set(flagged):
            failures.append(f"{name}: HTA's stragglers {st} not all flagged ({flagged})")

print("largest difference per figure (profdb --scope hta vs HTA), in percentage points:")


def print_limited(title, table):
    """Print a table of limited figures; a difference over its limit fails."""
    print(title)
    for fig, (d, where, limit, _) in sorted(table.items()):
        ok = d <= limit
        print(f"    {fig:42s} {d:9.3f}  {'ok  ' if ok else 'FAIL'} (limit {limit:.2f}) at {where}")
        if not ok:
            failures.append(f"{fig}: {d:.3f} pp (limit {limit:.2f}) at {where}")


print_limited(f"  temporal breakdown, every rank with HTA figures ({tb_ranks}), no exemption"
              " (limit 0.5 pp):", strict)
if tb_ranks == 0:
    failures.append("no temporal breakdown compared")
print_limited("  traces with whole-us GPU times (limit 0.5 pp):", largest)
print_limited("  traces with sub-us GPU times (limit: max(0.5, HTA's truncation bound)):", rounded)
print_limited("  known differences (limit: the measured value + 0.5 pp, see KNOWN):",
              {f: (d, w, a, 0) for f, (d, w, a) in known.items()})
print("  traces where profdb differs on purpose (not limited, docs/definitions.md):")
for fig, (d, where, _, _) in sorted(deliberate.items()):
    print(f"    {fig:42s} {d:9.3f}  at {where}")
print("  not compared (profdb has no figure defined as HTA's): kernel-type breakdown"
      " (kernel_category_sum groups by kernel family, not COMMUNICATION/COMPUTATION/MEMORY"
      " overlaps), memory bandwidth per rank")
print(f"  queue length (queue_length vs get_queue_length_summary, rank 0): {ql_streams} streams equal")
if ql_streams == 0:
    failures.append("no queue length compared")
for n in notes:
    print("note:", n)
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
