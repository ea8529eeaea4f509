#!/usr/bin/env python3
"""Collective bandwidth (coll_sum) re-derived from the raw trace JSON.

    check_coll.py PROFDB FIXTURES_DIR PUBLIC_DIR WORK_DIR

Reads every trace with its own code (no profdb SQL): the collective
kernels, their args (the kernel's, else the record_param_comms op with the
same External id), message bytes as nccl-tests 2.19 sizes them, matching
across ranks ('Comms Id' / 'Process Group Name' + 'Seq', else order),
waiting and transfer, algbw and busbw; sums them per (group, kind, size
bucket) and compares every figure with `profdb report --scope trace
--section coll_sum --json`.  Then the fixtures' known answers
(make_coll_fixtures.py) and, when PUBLIC_DIR exists, the public traces
with collective args (TraceLens eager_trace, resnet_act_checkpoint, HTA
nccl_data) and the 8-rank DLRM job (no args: bytes unknown, transfer
checked).
"""
import gzip
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import check, finish  # noqa: E402

profdb, fixtures, public, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
COLL = os.path.join(fixtures, "coll")

ESIZE = {"Float": 4, "Int": 4, "Double": 8, "Long": 8, "Half": 2, "BFloat16": 2, "Short": 2,
         "Byte": 1, "Char": 1, "Bool": 1, "Float8_e4m3fn": 1, "Float8_e5m2": 1,
         "Float8_e4m3fnuz": 1, "Float8_e5m2fnuz": 1, "ComplexFloat": 8}
COMM_WORDS = ("nccl", "rccl", "msccl", "all_reduce", "allreduce", "all_gather", "allgather",
              "reduce_scatter", "reducescatter", "alltoall", "all_to_all")


def ns(x):
    return int((Decimal(str(x)) * 1000).to_integral_value())


def kind_of(text):
    t = text.lower().replace("_", "")
    for word, kind in (("allreduce", "all_reduce"), ("allgather", "all_gather"),
                       ("reducescatter", "reduce_scatter"), ("alltoall", "all_to_all"),
                       ("broadcast", "broadcast")):
        if word in t:
            return kind
    if "sendrecv" in t or t.startswith(("send", "recv")) or "p2p" in t:
        return "send_recv"
    for word in ("barrier", "reduce", "gather", "scatter"):
        if word in t:
            return word
    return "other"


def label(ranks_text, pg, n, has_args):
    try:
        ranks = json.loads(ranks_text)
    except (TypeError, ValueError):
        ranks = None
    if not ranks:
        return ("pg " + pg if has_args else "unknown") + (f" ({n})" if n else "")
    s = sorted(ranks)
    if len(s) == 1:
        return f"rank {s[0]} (1)"
    step = s[1] - s[0]
    if len(s) > 2 and step > 0 and all(b - a == step for a, b in zip(s, s[1:])):
        return f"ranks {s[0]}-{s[-1]}" + (f"/{step}" if step > 1 else "") + f" ({len(s)})"
    return "ranks " + ",".join(str(r) for r in ranks) + f" ({len(s)})"


def bucket(b):
    if b is None:
        return "unknown"
    names = ["0-4 KiB", "4-64 KiB", "64 KiB-1 MiB", "1-16 MiB", "16-256 MiB", "256 MiB-4 GiB"]
    lim = 4096
    for name in names:
        if b < lim:
            return name
        lim *= 16
    return "4 GiB+"


def read(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        doc = json.load(f)
    return doc if isinstance(doc, dict) else {"traceEvents": doc}


def kernels_of(path):
    doc = read(path)
    rank = (doc.get("distributedInfo") or {}).get("rank", 0)
    ops = {}
    for e in doc["traceEvents"]:
        a = e.get("args") or {}
        if e.get("cat") == "cpu_op" and "Collective name" in a and "External id" in a:
            ops[a["External id"]] = a
    out = []
    for e in doc["traceEvents"]:
        name = e.get("name", "")
        if e.get("cat") != "kernel" or e.get("ph") != "X":
            continue
        if not any(w in name.lower() for w in COMM_WORDS):
            continue
        a = e.get("args") or {}
        meta = a if "Collective name" in a else ops.get(a.get("External id"))
        out.append({"rank": rank, "ts": ns(e["ts"]), "dur": ns(e["dur"]), "name": name,
                    "m": meta})
    return out


def derive(files):
    ks = [k for f in files for k in kernels_of(f)]
    order = {}
    for k in sorted(ks, key=lambda k: (k["rank"], k["ts"])):
        m = k["m"] or {}
        grp = "id:" + str(m["Comms Id"]) if "Comms Id" in m else m.get("Process Group Name", "")
        coll = m.get("Collective name") or k["name"].split("(")[0]
        if "Seq" in m:
            seq = "s" + str(m["Seq"])
        else:
            order[(k["rank"], grp, coll)] = order.get((k["rank"], grp, coll), 0) + 1
            seq = order[(k["rank"], grp, coll)]
        k["key"] = (grp, coll, seq)
    inst = {}
    for k in ks:
        inst.setdefault(k["key"], []).append(k)
    rows = {}
    for k in ks:
        peers = inst[k["key"]]
        matched = len(peers) > 1 and len({p["rank"] for p in peers}) == len(peers)
        wait = max(0, min(max(p["ts"] for p in peers) - k["ts"], k["dur"])) if matched else 0
        transfer = k["dur"] - wait
        m = k["m"] or {}
        kind = kind_of(m.get("Collective name") or k["name"])
        n = m.get("Group size") or (len(json.loads(m["Process Group Ranks"]))
                                    if m.get("Process Group Ranks") else None)
        nel = {"all_gather": m.get("Out msg nelems"),
               "send_recv": m.get("In msg nelems") or m.get("Out msg nelems")}.get(
                   kind, m.get("In msg nelems"))
        size = ESIZE.get(m.get("dtype"))
        nbytes = nel * size if nel is not None and size else None
        factor = {"all_reduce": 2 * (n - 1) / n if n else None,
                  "all_gather": (n - 1) / n if n else None,
                  "reduce_scatter": (n - 1) / n if n else None,
                  "all_to_all": (n - 1) / n if n else None,
                  "broadcast": 1.0, "reduce": 1.0, "send_recv": 1.0}.get(kind)
        busbw = nbytes / transfer * factor if nbytes is not None and factor and transfer > 0 else None
        key = (label(m.get("Process Group Ranks"), m.get("Process Group Name", ""), n, bool(m)),
               kind, bucket(nbytes))
        r = rows.setdefault(key, {"calls": 0, "bytes": None, "transfer_ns": 0, "wait_ns": 0,
                                  "bw": [], "unmatched": 0})
        r["calls"] += 1
        r["transfer_ns"] += transfer
        r["wait_ns"] += wait
        r["unmatched"] += not matched
        if nbytes is not None:
            r["bytes"] = (r["bytes"] or 0) + nbytes
        if busbw is not None:
            r["bw"].append(busbw)
    for r in rows.values():  # no call matched its peers: the wait is unknown (empty)
        if r["unmatched"] == r["calls"]:
            r["wait_ns"] = None
    return rows


def pct(v, p):
    """numpy's default (linear) percentile."""
    s = sorted(v)
    pos = (len(s) - 1) * p / 100
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def report(inputs, name, *extra):
    out = os.path.join(work, name.replace("/", "_") + ".json")
    subprocess.run([profdb, "report", *inputs, "--scope", "trace", "--section", "coll_sum",
                    "--json", out, *extra], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    with open(out) as f:
        doc = json.load(f)
    return {(r["group"], r["kind"], r["size"]): r
            for s in doc["sections"] if s["id"] == "coll_sum" for r in s.get("rows", [])}


def compare(name, inputs, files):
    got = report(inputs, name)
    want = derive(files)
    check(f"{name}: the same (group, kind, size) rows {sorted(want)}", sorted(got) == sorted(want))
    for key, w in want.items():
        g = got.get(key)
        if not g:
            continue
        for col in ("calls", "bytes", "transfer_ns", "wait_ns", "unmatched"):
            check(f"{name} {key}: {col} {g[col]} == {w[col]}", g[col] == w[col])
        med = round(pct(w["bw"], 50), 2) if w["bw"] else None
        p10 = round(pct(w["bw"], 10), 2) if w["bw"] else None
        check(f"{name} {key}: busbw median {g['busbw_median_gbps']} == {med}",
              g["busbw_median_gbps"] == med)
        check(f"{name} {key}: busbw p10 {g['busbw_p10_gbps']} == {p10}", g["busbw_p10_gbps"] == p10)
    return got


def files_in(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith((".json", ".json.gz")))


# Fixtures: one job per kind, with nccl-tests' expected busbw.
BUSBW = {"all_reduce": 60, "all_gather": 15, "reduce_scatter": 30, "all_to_all": 37.5,
         "broadcast": 40, "reduce": 40, "send_recv": 40}
for kind, bw in BUSBW.items():
    d = os.path.join(COLL, "kinds", kind)
    got = compare("kinds/" + kind, [d], files_in(d))
    rows = [r for r in got.values() if r["kind"] == kind]
    check(f"kinds/{kind}: one row, busbw {bw} GB/s", len(rows) == 1
          and rows[0]["busbw_median_gbps"] == bw and rows[0]["missing"] is None)
    if kind == "send_recv":
        check("send_recv: not matched, the whole kernel is transfer",
              rows and rows[0]["unmatched"] == rows[0]["calls"] and rows[0]["wait_ns"] is None)
    else:
        check(f"kinds/{kind}: matched by order", rows and rows[0]["matched_by"] == "pg+order")

# --link-gbps: peak_pct = median busbw / link.
got = report([os.path.join(COLL, "kinds", "all_reduce")], "link", "--link-gbps", "150")
check("--link-gbps 150: all_reduce at 40% of the link",
      [r["peak_pct"] for r in got.values()] == [40])

# DP x TP: three groups named by their ranks, matched by Seq.
d = os.path.join(COLL, "dp_tp")
got = compare("dp_tp", [d], files_in(d))
want = {("ranks 0,1 (2)", "all_reduce", "1-16 MiB"): 80, ("ranks 2,3 (2)", "all_reduce", "1-16 MiB"): 80,
        ("ranks 0,2 (2)", "all_reduce", "16-256 MiB"): 40,
        ("ranks 1,3 (2)", "all_reduce", "16-256 MiB"): 40}
for key, bw in want.items():
    check(f"dp_tp {key}: busbw median {bw}", key in got and got[key]["busbw_median_gbps"] == bw)
check("dp_tp: all matched by pg+seq", all(r["matched_by"] == "pg+seq" for r in got.values()))
dp13 = got.get(("ranks 1,3 (2)", "all_reduce", "16-256 MiB"), {})
# Rank 3 lost Seq 1: only rank 1's Seq 1 is unmatched; by order every
# later call would be paired one call off and the waiting would differ.
check("dp_tp: the lost call leaves one unmatched kernel, the others wait 10 us each",
      dp13.get("unmatched") == 1 and dp13.get("wait_ns") == 20000)

# Older Kineto: what is missing is said.
d = os.path.join(COLL, "older")
got = compare("older", [d], files_in(d))
check("older: no-args kernels say so",
      got.get(("unknown", "all_reduce", "unknown"), {}).get("missing") == "no collective args")
check("older: UNKNOWN_SCALAR says so",
      got.get(("ranks 0,1 (2)", "broadcast", "unknown"), {}).get("missing")
      == "dtype UNKNOWN_SCALAR")

# A job of 64 ranks (make_coll_fixtures.py --job64, written here): 8 TP
# groups of 8, 8 DP groups of 8 and the world, 17 groups: coll_sum has one
# row per shape of group with the min, median and max of the groups'
# median busbw and the slowest group; coll_group every group, folded in
# the Markdown past 16 groups.
JOB = os.path.join(work, "job64")
subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "make_coll_fixtures.py"), "--job64", JOB], check=True)
md = os.path.join(work, "job64.md")
got = report([JOB], "job64", "--section", "coll_group", "--md", md)
per_group = derive(files_in(JOB))


def shape(lab):
    m = re.fullmatch(r"ranks (\d+)-(\d+)(?:/(\d+))? \((\d+)\)", lab)
    return f"r..r+{int(m[2]) - int(m[1])}" + (f"/{m[3]}" if m[3] else "") + f" ({m[4]})" \
        if m else lab


want = {}
for (lab, kind, size), w in per_group.items():
    want.setdefault((shape(lab), kind, size), []).append((lab, w))
want_rows = {}
for (shp, kind, size), groups in want.items():
    meds = sorted((pct(w["bw"], 50), int(re.search(r"\d+", lab)[0]), lab) for lab, w in groups)
    name = f"{len(groups)} groups {shp}" if len(groups) > 1 else groups[0][0]
    want_rows[(name, kind, size)] = {
        "busbw_min_gbps": round(meds[0][0], 2), "busbw_max_gbps": round(meds[-1][0], 2),
        "busbw_median_gbps": round(pct([m[0] for m in meds], 50), 2),
        "slowest_group": meds[0][2], "groups": len(groups),
        "calls": sum(w["calls"] for _, w in groups),
        "transfer_ns": sum(w["transfer_ns"] for _, w in groups),
        "wait_ns": None if all(w["wait_ns"] is None for _, w in groups)
        else sum(w["wait_ns"] or 0 for _, w in groups)}
check(f"job64: 17 groups {len(per_group)}", len({k[0] for k in per_group}) == 17)
check(f"job64: one row per shape of group {sorted(got)} == {sorted(want_rows)}",
      sorted(got) == sorted(want_rows))
for key, w in want_rows.items():
    for col, v in w.items():
        g = got.get(key, {}).get(col)
        check(f"job64 {key}: {col} {g} == {v}", g == v)
with open(md) as f:
    text = f.read()
sec = text.split("`coll_sum`", 1)[-1].split("`coll_group`", 1)
rows = [ln for ln in sec[0].splitlines() if ln.startswith("| ") and not ln.startswith("| group")]
check(f"job64: coll_sum's Markdown has {len(rows)} rows, at most 20", 0 < len(rows) <= 20)
check("job64: coll_group folded past 16 groups",
      "17 rows over 17 process groups" in (sec[1] if len(sec) > 1 else ""))
with open(os.path.join(work, "job64.json")) as f:
    cg = [r for s in json.load(f)["sections"] if s["id"] == "coll_group" for r in s["rows"]]
check("job64: coll_group's JSON has every group's row",
      sorted((r["process_group"], r["kind"], r["size"]) for r in cg) == sorted(per_group))

# Public traces.
if os.path.isdir(public):
    for rel in ("AMD-AGI__TraceLens/eager_trace.json.gz",
                "AMD-AGI__TraceLens/resnet_act_checkpoint.json.gz",
                "facebookresearch__HolisticTraceAnalysis/nccl_data.json.gz"):
        p = os.path.join(public, rel)
        got = compare(os.path.basename(rel).split(".")[0], [p], [p])
        check(f"{rel}: a row with busbw", any(r["busbw_median_gbps"] for r in got.values()))
    d = os.path.join(public, "facebookresearch__param", "dlrm_kineto")
    got = compare("dlrm", [d], files_in(d))
    check("dlrm: 8 ranks matched, bytes unknown (no args)",
          all(r["bytes"] is None and r["unmatched"] == 0 for r in got.values()) and got)
else:
    print(f"skip: no public data at {public}")
finish()
