#!/usr/bin/env python3
"""Issue 29's operator links, each figure derived here from the trace's events
(no profdb table or query is read to derive it).

    check_links.py PROFDB DATA_DIR WORK_DIR CASE [PUBLIC_DIR]

CASE:
  external_id_collision      link_external_id_collision.json: each activity's
                             operator (the External id's operator only when it encloses
                             the launching runtime call on its thread, else the innermost
                             cpu_op around the call) and op_gpu_sum's device self time per
                             name; the metadata operators have none
  external_id_collision_public  the same per-activity check on the public traces
                             (PUBLIC_DIR; exit 77 without it)
  annotation_direct_launch   link_annotation_direct_launch.json: annotation_sum's device
                             time per path = the GPU work whose runtime call lies inside
                             a range of that path
  memory_op_end              link_memory_op_end.json: op_memory_sum per operator, each
                             [memory] event charged to the innermost operator whose closed
                             interval [ts, ts + dur] holds it on its thread (PyTorch's
                             profiler), the later one when one ends as another starts
"""
import gzip
import json
import os
import sqlite3
import subprocess
import sys
from decimal import Decimal

OPS = {"cpu_op", "Operator"}
ANN = {"user_annotation"}
RUNTIME = {"cuda_runtime", "Runtime", "cuda_driver", "Driver"}
GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}

PUBLIC = [  # traces with the collision pattern, and modern ones without it
    "facebookresearch__param/linear_kineto.json.gz",
    "facebookresearch__param/resnet_kineto.json.gz",
    "facebookresearch__HolisticTraceAnalysis/benchmark_result_2869224_1695835535_trace.json.gz",
    "facebookresearch__HolisticTraceAnalysis/benchmark_result_493459_1694039959_trace.json.gz",
    "facebookresearch__HolisticTraceAnalysis/benchmark_simple_add_trace.json.gz",
    "facebookresearch__HolisticTraceAnalysis/rank0.json.gz",
    "facebookresearch__HolisticTraceAnalysis/control.json.gz",
    "facebookresearch__param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json",
    "facebookresearch__HolisticTraceAnalysis/nccl_data.json.gz",
    "facebookresearch__HolisticTraceAnalysis/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "AMD-AGI__TraceLens/train_resnet18.json.gz",
]


def ns(v):
    return int(Decimal(str(v)) * 1000)


def read_events(path):
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rb") as f:
        doc = json.load(f, parse_float=Decimal)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    out = []
    for i, e in enumerate(ev):
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e or "dur" not in e:
            continue
        a = e.get("args") or {}
        ext = a.get("External id", a.get("external id"))
        out.append({"i": i, "cat": e.get("cat"), "name": e.get("name"), "pid": e.get("pid"),
                    "tid": e.get("tid"), "ts": ns(e["ts"]), "end": ns(e["ts"]) + ns(e["dur"]),
                    "dur": ns(e["dur"]), "ext": ext, "corr": a.get("correlation")})
    return out


def encloses(o, r):
    return (o["pid"] == r["pid"] and o["tid"] == r["tid"] and o["ts"] <= r["ts"]
            and r["end"] <= o["end"])


def innermost_ops(events):
    """Runtime call index -> the innermost cpu_op running at its start on its thread
    (a sweep per thread over operators and calls by start, operators first)."""
    by_thread = {}
    for e in events:
        if e["cat"] in OPS or e["cat"] in RUNTIME:
            by_thread.setdefault((repr(e["pid"]), repr(e["tid"])), []).append(e)
    out = {}
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"], 0 if e["cat"] in OPS else 1, e["i"]))
        stack = []
        for e in evs:
            while stack and stack[-1]["end"] <= e["ts"]:
                stack.pop()
            if e["cat"] in OPS:
                stack.append(e)
            else:
                out[e["i"]] = stack[-1] if stack else None
    return out


def expected_links(events):
    """Activity index -> its operator (an event dict, or None)."""
    runtime, by_ext = {}, {}
    for e in events:
        if e["cat"] in RUNTIME and e["corr"] is not None:
            runtime.setdefault(e["corr"], e)
        if (e["cat"] in OPS or e["cat"] in ANN) and e["ext"] is not None:
            by_ext.setdefault(e["ext"], []).append(e)
    inner = innermost_ops(events)
    out = {}
    for g in events:
        if g["cat"] not in GPU:
            continue
        r = runtime.get(g["corr"])
        op = None
        for ext, need in ((g["ext"], False), (r["ext"] if r else None, True)):
            if op or ext in (None, 0) or (need and r is None):
                continue
            for cats in (OPS, ANN):
                c = [o for o in by_ext.get(ext, []) if o["cat"] in cats
                     and (r is None or encloses(o, r))]
                if c:
                    op = c[0]
                    break
        if op is None and r is not None:
            op = inner.get(r["i"])
        out[g["i"]] = op
    return out, runtime


def load(profdb, trace, db):
    if os.path.exists(db):
        os.remove(db)
    r = subprocess.run([profdb, "load", "-q", trace, "-o", db], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        raise SystemExit(f"load {trace}: exit {r.returncode}: {r.stderr}")


def report(profdb, db, work, *sections):
    out = os.path.join(work, "out.json")
    args = [profdb, "report", db, "--include-warmup", "--top", "1000000", "--json", out]
    for s in sections:
        args += ["--section", s]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"report: exit {r.returncode}: {r.stderr}")
    with open(out) as f:
        return {x["id"]: x["rows"] for x in json.load(f)["sections"]}


PROFDB_LINKS = """
SELECT g.correlation, n.value, g.dur, o.name_id IS NOT NULL, on_.value, o.external_id, o.dur
FROM _gpu g JOIN _gpu_link l ON l.id = g.id JOIN _string n ON n.id = g.name_id
LEFT JOIN _slice o ON o.id = l.op_id LEFT JOIN _string on_ ON on_.id = o.name_id
WHERE g.kind IN (SELECT kind FROM _kind WHERE name IN ('kernel', 'memcpy', 'memset'))
  AND g.ts IS NOT NULL AND g.dur IS NOT NULL
"""


def compare_links(name, events, db, problems, verbose=True):
    exp, _ = expected_links(events)
    acts = {e["i"]: e for e in events if e["cat"] in GPU}
    want = sorted((repr(acts[i]["corr"]), acts[i]["name"], acts[i]["dur"],
                   (op["name"], repr(op["ext"]), op["dur"]) if op else None)
                  for i, op in exp.items())
    con = sqlite3.connect(db)
    got = sorted((repr(c), n, d, (on, repr(oe), od) if has else None)
                 for c, n, d, has, on, oe, od in con.execute(PROFDB_LINKS))
    con.close()
    bad = [(w, g) for w, g in zip(want, got) if w != g]
    if len(want) != len(got):
        problems.append(f"{name}: {len(want)} activities derived, profdb has {len(got)}")
    for w, g in bad[:5]:
        problems.append(f"{name}: activity {w[:3]}: derived operator {w[3]}, profdb {g[3]}")
    if bad:
        problems.append(f"{name}: {len(bad)} of {len(want)} activities linked differently")
    first = {}
    for e in events:
        if e["cat"] in OPS and e["ext"] is not None:
            first.setdefault(e["ext"], e)
    moved = [i for i, op in exp.items() if acts[i]["ext"] in first
             and op is not first[acts[i]["ext"]]]
    total = sum(a["dur"] for a in acts.values())
    share = 100.0 * sum(acts[i]["dur"] for i in moved) / total if total else 0.0
    if verbose:
        print(f"{name}: {len(want)} activities, {len(moved)} ({share:.2f}% of GPU time) "
              f"not on the operator of their External id, {len(bad)} differ")
    return exp, acts


def case_collision(profdb, data, work, problems):
    path = os.path.join(data, "link_external_id_collision.json")
    events = read_events(path)
    db = os.path.join(work, "t.db")
    load(profdb, path, db)
    exp, acts = compare_links("link_external_id_collision", events, db, problems)
    # the defect's own symptoms: every call whose External id collides is moved
    ext_ops = {e["ext"]: e for e in events if e["cat"] in OPS}
    collided = [i for i in exp if acts[i]["ext"] in ext_ops
                and exp[i] is not ext_ops[acts[i]["ext"]]]
    if len(collided) < 6:
        problems.append(f"fixture: only {len(collided)} collisions")
    self_ns = {}
    for i, op in exp.items():
        key = op["name"] if op and op["cat"] in OPS else "(no operator)"
        self_ns[key] = self_ns.get(key, 0) + acts[i]["dur"]
    rows = report(profdb, db, work, "op_gpu_sum")["op_gpu_sum"]
    got = {r["name"]: r["device_self_ns"] for r in rows if r["device_self_ns"]}
    if got != self_ns:
        problems.append(f"op_gpu_sum device self: derived {self_ns}, profdb {got}")
    for meta in ("aten::empty", "aten::as_strided", "aten::view", "aten::expand"):
        if any(r["name"] == meta and r["device_total_ns"] for r in rows):
            problems.append(f"{meta} launches nothing but has device time")
    print(f"op_gpu_sum device self per name: {self_ns}")


def case_collision_public(profdb, public, work, problems):
    if not public or not os.path.isdir(public):
        print(f"{public}: no public data; skipped")
        return 77
    db = os.path.join(work, "t.db")
    for rel in PUBLIC:
        path = os.path.join(public, rel)
        if not os.path.exists(path):
            problems.append(f"{rel}: missing")
            continue
        load(profdb, path, db)
        compare_links(rel, read_events(path), db, problems)
    return 0


def annotation_paths(events):
    """Each range call -> its path (enclosing ranges of its thread, outermost first)."""
    rng = [e for e in events if e["cat"] in ANN and not str(e["name"]).startswith("ProfilerStep#")]
    out = {}
    for a in rng:
        outer = sorted((b for b in rng if b is not a and encloses(b, a)),
                       key=lambda b: (b["ts"], -b["dur"]))
        out[a["i"]] = " > ".join([b["name"] for b in outer] + [a["name"]])
    return rng, out


def case_annotation(profdb, data, work, problems):
    path = os.path.join(data, "link_annotation_direct_launch.json")
    events = read_events(path)
    rng, paths = annotation_paths(events)
    runtime = {}
    for e in events:
        if e["cat"] in RUNTIME:
            runtime.setdefault(e["corr"], e)
    want = {p: 0 for p in paths.values()}
    for g in events:
        if g["cat"] not in GPU or g["corr"] not in runtime:
            continue
        r = runtime[g["corr"]]
        for p in {paths[a["i"]] for a in rng if encloses(a, r)}:
            want[p] += g["dur"]
    db = os.path.join(work, "t.db")
    load(profdb, path, db)
    compare_links("link_annotation_direct_launch", events, db, problems)
    rows = report(profdb, db, work, "annotation_sum", "op_gpu_sum")
    got = {r["path"]: r["device_total_ns"] for r in rows["annotation_sum"]}
    if got != want:
        problems.append(f"annotation_sum device time per path: derived {want}, profdb {got}")
    total = sum(g["dur"] for g in events if g["cat"] in GPU)
    self_sum = sum(r["device_self_ns"] or 0 for r in rows["op_gpu_sum"])
    if self_sum != total:
        problems.append(f"op_gpu_sum: self times add up to {self_sum}, GPU time {total}")
    print(f"annotation_sum device time per path: {want}")


def case_memory(profdb, data, work, problems):
    path = os.path.join(data, "link_memory_op_end.json")
    with open(path) as f:
        raw = json.load(f, parse_float=Decimal)["traceEvents"]
    ops = [e for e in read_events(path) if e["cat"] in OPS]
    want = {}
    for m in raw:
        if m.get("name") != "[memory]":
            continue
        t, b = ns(m["ts"]), m["args"]["Bytes"]
        c = [o for o in ops if o["pid"] == m["pid"] and o["tid"] == m["tid"]
             and o["ts"] <= t <= o["end"]]
        # innermost: the latest start (nested ranges, and the operator starting when another ends)
        op = max(c, key=lambda o: (o["ts"], -o["end"]))["name"] if c else "(no operator)"
        w = want.setdefault(op, [0, 0, 0, 0])
        if b > 0:
            w[0] += 1
            w[1] += b
        else:
            w[2] += 1
            w[3] -= b
    db = os.path.join(work, "t.db")
    load(profdb, path, db)
    rows = report(profdb, db, work, "op_memory_sum")["op_memory_sum"]
    got = {r["name"]: [r["allocations"], r["allocated_bytes"], r["frees"], r["freed_bytes"]]
           for r in rows}
    if got != want:
        problems.append(f"op_memory_sum: derived {want}, profdb {got}")
    print(f"op_memory_sum per operator [allocs, bytes, frees, bytes]: {want}")


def main():
    profdb, data, work, case = sys.argv[1:5]
    public = sys.argv[5] if len(sys.argv) > 5 else None
    os.makedirs(work, exist_ok=True)
    problems = []
    if case == "external_id_collision":
        case_collision(profdb, data, work, problems)
    elif case == "external_id_collision_public":
        if case_collision_public(profdb, public, work, problems) == 77:
            return 77
    elif case == "annotation_direct_launch":
        case_annotation(profdb, data, work, problems)
    elif case == "memory_op_end":
        case_memory(profdb, data, work, problems)
    else:
        print(f"unknown case {case}")
        return 2
    for p in problems:
        print("PROBLEM", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
