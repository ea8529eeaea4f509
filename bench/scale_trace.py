#!/usr/bin/env python3
"""Make a large, realistic Kineto trace by repeating a real one.

    scale_trace.py SOURCE OUT.json TARGET_MB [--gzip OUT.json.gz] [--copies K]

The source's events are written K times (K chosen so the output reaches
TARGET_MB of JSON), copy i shifted by i x the source's time window, with
correlation / External id / flow ids / Python ids offset and ProfilerStep
numbers renumbered, so every copy is distinct real Kineto content: the
loader links, nests and steps them as it would a long profile.  Metadata
events (ph M) and the top-level keys are written once.  Times are kept as
exact decimal text (the copy offsets are whole nanoseconds).

With --gzip, the same content is also written gzip-compressed (level 6,
as torch.profiler's export does through Python's gzip module).  With
--copies, exactly K copies, whatever TARGET_MB (tests/report's scaling
check compares a trace with its 4 copies).
"""
import argparse
import gzip
import json
import math
import os
import re
import sys
from decimal import Decimal

ID_ARGS = ("correlation", "External id", "Python id", "Python parent id", "Ev Idx")
STEP = re.compile(r"^ProfilerStep#(\d+)$")


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def num(d):
    """Decimal or int as JSON number text, exactly as read."""
    if isinstance(d, Decimal):
        s = format(d, "f")
        return s.rstrip("0").rstrip(".") if "." in s else s
    return str(d)


def dump(v):
    """Compact JSON with Decimals written as numbers (json.dumps cannot)."""
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dump(x) for x in v) + "]"
    if isinstance(v, Decimal):
        return num(v)
    if isinstance(v, str) and v.startswith("@") and v.endswith("@"):
        return v  # a placeholder, replaced by a number when rendering
    return json.dumps(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("target_mb", type=float)
    ap.add_argument("--gzip", dest="gz")
    ap.add_argument("--copies", type=int)
    a = ap.parse_args()

    doc = load(a.source)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    meta = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M"]
    timed = [e for e in body if "ts" in e]
    t0 = min(Decimal(e["ts"]) for e in timed)
    t1 = max(Decimal(e["ts"]) + Decimal(e.get("dur", 0)) for e in timed)
    window = (t1 - t0 + Decimal(1000)).quantize(Decimal("0.001"))  # 1 ms apart
    max_id = 1
    steps = [int(STEP.match(e.get("name", "")).group(1)) for e in body
             if STEP.match(e.get("name", "") or "")]
    step_span = (max(steps) - min(steps) + 1) if steps else 0
    for e in body:
        for k in ID_ARGS:
            v = (e.get("args") or {}).get(k)
            if isinstance(v, int):
                max_id = max(max_id, abs(v))
        if isinstance(e.get("id"), int):
            max_id = max(max_id, e["id"])
    id_stride = 10 ** (len(str(max_id)) + 1)

    # Serialize each body event once, with placeholders for what changes.
    templates = []
    for e in body:
        e = dict(e)
        subs = {}
        if "ts" in e:
            subs["ts"] = Decimal(e["ts"])
            e["ts"] = "@TS@"
        if isinstance(e.get("id"), int):
            subs["id"] = e["id"]
            e["id"] = "@ID@"
        if isinstance(e.get("args"), dict):
            e["args"] = args = dict(e["args"])
            for j, k in enumerate(ID_ARGS):
                if isinstance(args.get(k), int) and args[k] != 0:
                    subs["arg:" + k] = args[k]
                    args[k] = "@A" + str(j) + "@"
        m = STEP.match(e.get("name", "") or "")
        if m:
            subs["step"] = int(m.group(1))
            e["name"] = "ProfilerStep#@STEP@"
        templates.append((dump(e), subs))

    size_one = sum(len(t) + 1 for t, _ in templates)
    copies = a.copies or max(1, math.ceil(a.target_mb * 1e6 / size_one))
    head = {k: v for k, v in doc.items() if k != "traceEvents"} if isinstance(doc, dict) else {}

    def render(out):
        out.write('{"traceEvents":[\n')
        first = True
        for e in meta:
            out.write(("" if first else ",\n") + dump(e))
            first = False
        for i in range(copies):
            shift = window * i
            for text, subs in templates:
                t = text
                if "ts" in subs:
                    t = t.replace("@TS@", num(subs["ts"] + shift))
                if "id" in subs:
                    t = t.replace("@ID@", str(subs["id"] + i * id_stride))
                for k, v in subs.items():
                    if k.startswith("arg:"):
                        t = t.replace("@A" + str(ID_ARGS.index(k[4:])) + "@",
                                      str(v + i * id_stride if v > 0 else v - i * id_stride))
                if "step" in subs:
                    t = t.replace("@STEP@", str(subs["step"] + i * step_span))
                out.write(("" if first else ",\n") + t)
                first = False
        out.write("\n]")
        for k, v in head.items():
            out.write(",\n" + json.dumps(k) + ":" + dump(v))
        out.write("}\n")

    with open(a.out, "w") as f:
        render(f)
    if a.gz:
        with gzip.open(a.gz, "wt", compresslevel=6) as f:
            render(f)
    print(f"{a.out}: {copies} copies of {len(body)} events "
          f"({os.path.getsize(a.out) / 1e6:.0f} MB)", file=sys.stderr)


if __name__ == "__main__":
    main()
