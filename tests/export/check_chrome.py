#!/usr/bin/env python3
"""Checks of `profdb export --format chrome` (issue 28).

    check_chrome.py PROFDB WORKDIR fixture FIXTURE_DIR
    check_chrome.py PROFDB WORKDIR dlrm DLRM_DIR
    check_chrome.py PROFDB WORKDIR scale DLRM_DIR [TARGET_MB]

fixture: two ranks with ns digits in every time; --step 2 slice and a
  --rank/--from/--to window (cut events marked, kept whole; flows that
  leave the window dropped).
dlrm: the public 8-rank DLRM job: a --step slice holds the step's kernels
  of all 8 ranks (count and exact ns equal profdb query on the step), names
  8 rank processes, and loads back into profdb with the same kernels.
scale: the DLRM rank-0 trace tiled to TARGET_MB (bench/scale_trace.py): a
  one-step slice is a small fraction of the file; the export of the whole
  trace runs in flat memory.
Every slice is checked against the Chrome trace-event rules (check_rules).
Exit 77 (skipped) when the data is absent.
"""
import bisect
import csv
import io
import json
import os
import resource
import subprocess
import sys
from collections import Counter, defaultdict
from decimal import Decimal

PROFDB, WORK, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(*args):
    r = subprocess.run([PROFDB, *args], capture_output=True, text=True)
    if r.returncode != 0:
        fail("profdb %s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r


def query(db, sql):
    out = run("query", db, "--csv", sql).stdout
    return list(csv.DictReader(io.StringIO(out)))


def ns(v):
    """A trace time (decimal µs) as integer ns, exactly."""
    d = Decimal(v) * 1000
    if d != d.to_integral_value():
        fail("time %s has digits below the nanosecond" % v)
    return int(d)


def load_json(path):
    with open(path) as f:
        return json.load(f, parse_float=Decimal)


def check_rules(doc):
    """The Chrome trace-event format rules a viewer relies on."""
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("not an object with a traceEvents array")
    procs, threads = {}, {}
    slices = defaultdict(list)
    flows = defaultdict(list)
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        if ph is None or "name" not in e:
            fail("event without ph or name: %r" % e)
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail("pid/tid not integers: %r" % e)
        if ph == "M":
            if e["name"] == "process_name":
                procs[e["pid"]] = e["args"]["name"]
            elif e["name"] == "thread_name":
                threads[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        if "ts" not in e:
            fail("%s event without ts: %r" % (ph, e))
        if ph == "X":
            if "dur" not in e or Decimal(e["dur"]) < 0:
                fail("X event without a duration >= 0: %r" % e)
            slices[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
        elif ph in ("s", "t", "f"):
            if "id" not in e:
                fail("flow event without id: %r" % e)
            flows[(e.get("cat"), e["id"])].append(e)
        elif ph not in ("i", "I", "C"):
            fail("unexpected phase %s" % ph)
        if e["pid"] not in procs:
            pass  # M events come first in profdb's output, but need not
    for e in doc["traceEvents"]:
        if e["ph"] == "M":
            continue
        if e["pid"] not in procs:
            fail("pid %d has no process_name" % e["pid"])
        if (e["pid"], e["tid"]) not in threads:
            fail("pid %d tid %d has no thread_name" % (e["pid"], e["tid"]))
    # every flow pairs up: one s, one f, each bound to a kept slice
    index = {}
    for key, sl in slices.items():
        sl.sort()
        starts = [a for a, _ in sl]
        ends, m = [], None
        for _, b in sl:
            m = b if m is None else max(m, b)
            ends.append(m)
        index[key] = (starts, ends)
    for key, evs in flows.items():
        phs = Counter(e["ph"] for e in evs)
        if phs["s"] != 1 or phs["f"] != 1:
            fail("flow %r does not pair up: %r" % (key, dict(phs)))
        for e in evs:
            starts, ends = index.get((e["pid"], e["tid"]), ([], []))
            t = ns(e["ts"])
            i = bisect.bisect_right(starts, t) - 1
            if i < 0 or ends[i] < t:
                fail("flow %r %s at %s binds to no kept slice" % (key, e["ph"], e["ts"]))
    return procs, threads


def export(db, out, *opts):
    run("export", db, "--format", "chrome", "-o", out, "-q", *opts)
    doc = load_json(out)
    procs, threads = check_rules(doc)
    return doc, procs, threads


def kernels_of(doc):
    """(rank, ts, dur, name) of the slice's kernels."""
    rank = {r["pid"]: r["rank"] for r in doc["profdb.export"]["ranks"]}
    return sorted((rank[e["pid"]], ns(e["ts"]), ns(e["dur"]), e["name"])
                  for e in doc["traceEvents"] if e.get("cat") == "kernel")


def db_kernels(db, where):
    rows = query(db, "SELECT t.rank, k.ts, k.dur, k.name FROM kernel k JOIN trace t"
                     " USING (trace_id) WHERE " + where)
    return sorted((int(r["rank"]), int(r["ts"]), int(r["dur"]), r["name"]) for r in rows)


def check_loads_back(doc, path, db_back):
    if os.path.exists(db_back):
        os.remove(db_back)
    run("load", path, "-o", db_back)
    back = sorted((int(r["ts"]), int(r["dur"]), r["name"], int(r["device"]))
                  for r in query(db_back, "SELECT ts, dur, name, device FROM kernel"))
    want = sorted((ns(e["ts"]), ns(e["dur"]), e["name"], e["args"]["device"])
                  for e in doc["traceEvents"] if e.get("cat") == "kernel")
    if back != want:
        fail("the slice loaded back has other kernels: %d vs %d" % (len(back), len(want)))


def step_slice(db, step, nranks, tag):
    out = os.path.join(WORK, "%s_step%d.json" % (tag, step))
    doc, procs, threads = export(db, out, "--step", str(step))
    got = kernels_of(doc)
    want = db_kernels(db, "k.step = %d" % step)
    if not want:
        fail("no kernels in step %d" % step)
    if got != want:
        fail("step %d: %d kernels in the slice, %d in profdb query" % (step, len(got), len(want)))
    names = sorted(procs.values())
    if names != sorted("rank %d" % r for r in range(nranks)):
        fail("process names %r" % names)
    if not any(" - GPU " in n and " stream " in n for n in threads.values()):
        fail("no thread named 'rank R - GPU D stream S'")
    check_loads_back(doc, out, os.path.join(WORK, "%s_back.db" % tag))
    print("ok: step %d: %d kernels of %d ranks, %d events, loads back" %
          (step, len(got), nranks, len(doc["traceEvents"])))
    return doc


def mode_fixture(fixdir):
    db = os.path.join(WORK, "fixture.db")
    if os.path.exists(db):
        os.remove(db)
    run("load", os.path.join(fixdir, "chrome_rank0.json"),
        os.path.join(fixdir, "chrome_rank1.json"), "-o", db)
    doc = step_slice(db, 2, 2, "fixture")
    if any(e.get("cat") == "kernel" and ns(e["ts"]) < 1002000000 for e in doc["traceEvents"]):
        fail("a kernel of step 1 in the step-2 slice")
    if not any(ns(e["ts"]) % 1000 for e in doc["traceEvents"] if "ts" in e):
        fail("no ns digits in the fixture's slice")
    long = [e for e in doc["traceEvents"] if e["name"] == "long_region"]
    if len(long) != 2 or any(e["args"].get("profdb.cut") != "both" or ns(e["dur"]) != 2000500
                             for e in long):
        fail("long_region not kept whole and marked cut at both edges: %r" % long)
    if doc["deviceProperties"][0]["name"] != "Test GPU" or "rank" in doc["distributedInfo"]:
        fail("deviceProperties / distributedInfo: %r %r" % (doc["deviceProperties"],
                                                            doc["distributedInfo"]))
    k = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"][0]["args"]
    for key in ("grid", "block", "stream", "correlation", "External id", "registers per thread"):
        if key not in k:
            fail("kernel args lost %s: %r" % (key, k))
    op = [e for e in doc["traceEvents"] if e["name"] == "aten::mm"][0]["args"]
    if op.get("Input Dims") != [[64, 32], [32, 16]]:
        fail("cpu_op args lost Input Dims: %r" % op)
    # a window on rank 1 that cuts step 1's kernel 1 (starts 1001130.640 us)
    out = os.path.join(WORK, "fixture_window.json")
    doc, procs, _ = export(db, out, "--rank", "1", "--from", "1001140us", "--to", "+0.25ms")
    if list(procs.values()) != ["rank 1"]:
        fail("--rank 1 wrote processes %r" % procs)
    ks = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    if [(e["name"], e["args"].get("profdb.cut")) for e in ks] != [("gemm_kernel_1", "start"),
                                                                ("gemm_kernel_2", "end")]:
        fail("window kernels %r" % [(e["name"], e["args"]) for e in ks])
    if ns(ks[0]["dur"]) != 30334:
        fail("a cut kernel was shortened")
    flows = [e for e in doc["traceEvents"] if e["ph"] in "sf"]
    if len(flows) != 2:  # kernel 1's launch is before the window: its flow dropped
        fail("window flows %r" % flows)
    memory = [e for e in doc["traceEvents"] if e["name"] == "[memory]"]
    if memory:  # step 1's [memory] instant is at 1001005.5 + 0.5 us: outside
        fail("instant outside the window written")
    # "+0.25ms" is relative to the selection's first event: rank 1's step 1
    if doc["profdb.export"]["ranks"][0]["to_ns"] != 1001000500 + 250000:
        fail("--to +0.25ms: %r" % doc["profdb.export"])
    print("ok: fixture window: cut kernel kept whole and marked, flows paired")


def mode_dlrm(data):
    if not os.path.isdir(data):
        print("SKIP: no DLRM data at " + data)
        sys.exit(77)
    db = os.path.join(WORK, "dlrm.db")
    if os.path.exists(db):
        os.remove(db)
    run("load", data, "-o", db)
    steps = [int(r["step"]) for r in query(db, "SELECT DISTINCT step FROM step ORDER BY step")]
    step_slice(db, steps[0], 8, "dlrm")
    # --finding straggler: the ranks the report's straggler finding names,
    # each with its whole step (the report library's findings, as JSON)
    report = os.path.join(WORK, "dlrm_report.json")
    run("report", db, "--section", "findings", "--json", report)
    found = [f for f in load_json(report)["findings"] if f["rule"] == "straggler"]
    if not found:
        fail("the DLRM report has no straggler finding")
    named = sorted(s["rank"] for s in found[0]["subjects"])
    out = os.path.join(WORK, "dlrm_straggler.json")
    doc, procs, _ = export(db, out, "--finding", "straggler")
    if sorted(procs.values()) != ["rank %d" % r for r in named]:
        fail("--finding straggler: processes %r, the finding names ranks %r" % (procs, named))
    step = doc["profdb.export"]["step"]
    got = kernels_of(doc)
    want = db_kernels(db, "k.step = %d AND t.rank IN (%s)" % (step, ",".join(map(str, named))))
    if not want or got != want:
        fail("--finding straggler: %d kernels, ranks %r step %d has %d" %
             (len(got), named, step, len(want)))
    print("ok: --finding straggler: ranks %r, step %d, %d kernels" % (named, step, len(got)))


def maxrss_of(args):
    """Peak RSS (KiB) of one profdb run, measured in a child python."""
    code = ("import resource,subprocess,sys;"
            "r=subprocess.run(sys.argv[1:]);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);"
            "sys.exit(r.returncode)")
    r = subprocess.run([sys.executable, "-c", code, PROFDB, *args], capture_output=True,
                       text=True)
    if r.returncode:
        fail("profdb %s: %s" % (" ".join(args), r.stderr))
    return int(r.stdout.split()[-1])


def mode_scale(data, target_mb):
    src = os.path.join(data, "worker0_step_12.1694128201545.pt.trace.json")
    if not os.path.exists(src):
        print("SKIP: no DLRM data at " + data)
        sys.exit(77)
    big = os.path.join(WORK, "tiled.json")
    db = os.path.join(WORK, "tiled.db")
    for p in (big, db):
        if os.path.exists(p):
            os.remove(p)
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "bench", "scale_trace.py"),
                    src, big, str(target_mb)], check=True, stdout=subprocess.DEVNULL)
    run("load", big, "-o", db)
    size = os.path.getsize(big)
    steps = [int(r["step"]) for r in query(db, "SELECT step FROM step ORDER BY step")]
    step = steps[len(steps) // 2]
    out = os.path.join(WORK, "tiled_step.json")
    rss_step = maxrss_of(["export", db, "--format", "chrome", "--step", str(step), "-o", out,
                          "-q"])
    doc = load_json(out)
    check_rules(doc)
    got = kernels_of(doc)
    want = db_kernels(db, "k.step = %d" % step)
    if got != want or not got:
        fail("tiled step %d: %d kernels, profdb query %d" % (step, len(got), len(want)))
    frac = os.path.getsize(out) / size
    whole = os.path.join(WORK, "tiled_all.json")
    rss_all = maxrss_of(["export", db, "--format", "chrome", "-o", whole, "-q"])
    whole_size = os.path.getsize(whole)
    os.remove(whole)
    print("ok: tiled %.1f MB, %d steps: step %d slice %.3f MB (%.2f%%), peak RSS %d KiB;"
          " whole export %.1f MB, peak RSS %d KiB"
          % (size / 1e6, len(steps), step, os.path.getsize(out) / 1e6, 100 * frac, rss_step,
             whole_size / 1e6, rss_all))
    if frac > 2.0 / len(steps) + 0.01:
        fail("a one-step slice is %.1f%% of the file (%d steps)" % (100 * frac, len(steps)))
    # flat memory: the whole export's peak RSS stays far below its output
    # (not under ASan, whose quarantine keeps freed memory resident)
    if os.environ.get("PROFDB_TEST_SANITIZED"):
        print("peak RSS not checked: a sanitizer build keeps freed memory in its quarantine")
    elif rss_all * 1024 > max(whole_size / 2, 64 << 20):
        fail("whole export peak RSS %d KiB for %d bytes written" % (rss_all, whole_size))


os.makedirs(WORK, exist_ok=True)
if MODE == "fixture":
    mode_fixture(sys.argv[4])
elif MODE == "dlrm":
    mode_dlrm(sys.argv[4])
elif MODE == "scale":
    mode_scale(sys.argv[4], int(sys.argv[5]) if len(sys.argv) > 5 else 60)
else:
    fail("unknown mode " + MODE)
