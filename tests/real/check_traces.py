#!/usr/bin/env python3
"""Check profdb's trace loader against the public traces.

    check_traces.py PROFDB DATA_DIR WORK_DIR

Loads every trace listed in DATA_DIR/MANIFEST.md with one `profdb load`
call, then, for each file:
  * the event count per raw category and per phase equals MANIFEST.md;
  * an independent computation here (Python's json with exact Decimal
    numbers, not profdb's code) of the sum of dur per raw category, the
    total dur per kernel name and every ProfilerStep duration equals what
    the database holds, to the nanosecond.
Exits 77 (skipped) when DATA_DIR does not exist.
"""
import collections
import decimal
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys


def manifest_traces(data_dir):
    """(path, events, {cat: n}, {ph: n}) for every trace row of MANIFEST.md."""
    rows = []
    with open(os.path.join(data_dir, "MANIFEST.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.split("|")]
            if len(cells) < 12 or not cells[7].startswith("trace"):
                continue
            events = cells[9]
            m = re.match(r"traceEvents=(\d+); by cat: (.*); by ph: (.*)$", events)
            if not m:
                raise SystemExit(f"cannot read the events cell of {cells[1]}")

            def counts(text):
                out = {}
                for item in text.split(", "):
                    key, _, n = item.rpartition(":")
                    out[key] = int(n)
                return out

            rows.append((cells[1], int(m.group(1)), counts(m.group(2)), counts(m.group(3))))
    return rows


def to_ns(value):
    """Exact ns from a JSON number parsed as int or Decimal (µs)."""
    d = decimal.Decimal(value) * 1000
    return int(d.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_EVEN))


def independent(path):
    """Per-file figures computed from the JSON text alone."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    dur_by_cat = collections.Counter()
    kernel_dur = collections.Counter()
    steps = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        if not isinstance(e.get("dur"), (int, decimal.Decimal)):
            continue
        dur = to_ns(e["dur"])
        cat = e.get("cat")
        dur_by_cat[cat if cat is not None else "(no cat)"] += dur
        if cat in ("kernel", "Kernel"):
            kernel_dur[e.get("name")] += dur
        name = e.get("name", "")
        if (cat in ("user_annotation", "cpu_op", "Operator", None)
                and re.fullmatch(r"ProfilerStep#\d+", name)):
            n = int(name[13:])
            ts = to_ns(e["ts"])
            if n not in steps or ts < steps[n][0]:
                steps[n] = (ts, dur)
    return len(events), dur_by_cat, kernel_dur, {n: d for n, (_, d) in steps.items()}


def main():
    profdb, data_dir, work = sys.argv[1:4]
    if not os.path.isdir(data_dir):
        print(f"skipped: {data_dir} does not exist")
        return 77
    os.makedirs(work, exist_ok=True)
    rows = manifest_traces(data_dir)
    db_path = os.path.join(work, "public_traces.db")
    if os.path.exists(db_path):
        os.remove(db_path)
    paths = [os.path.join(data_dir, r[0]) for r in rows]
    r = subprocess.run([profdb, "load", "-q", "-o", db_path] + paths,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        print(f"FAIL: profdb load exited {r.returncode}")
        return 1
    db = sqlite3.connect(db_path)
    failures = 0

    def fail(msg):
        nonlocal failures
        failures += 1
        print("FAIL", msg)

    for rel, n_events, by_cat, by_ph in rows:
        path = os.path.join(data_dir, rel)
        got = db.execute("SELECT trace_id, events, status FROM trace WHERE path = ?",
                         (path,)).fetchone()
        if not got:
            fail(f"{rel}: not in the database")
            continue
        trace_id, events, status = got
        if events != n_events or status != "ok":
            fail(f"{rel}: events={events} status={status}, manifest {n_events}")
        cats = dict(db.execute(
            "SELECT coalesce(raw_cat, '(no cat)'), count(*) FROM event"
            " WHERE trace_id = ? GROUP BY 1", (trace_id,)))
        if cats != by_cat:
            fail(f"{rel}: per-category counts {cats} != manifest {by_cat}")
        phs = dict(db.execute(
            "SELECT coalesce(ph, '(none)'), count(*) FROM event WHERE trace_id = ?"
            " GROUP BY 1", (trace_id,)))
        if phs != by_ph:
            fail(f"{rel}: per-phase counts {phs} != manifest {by_ph}")

        total, dur_by_cat, kernel_dur, steps = independent(path)
        if total != n_events:
            fail(f"{rel}: independent count {total} != manifest {n_events}")
        db_dur = {k: v for k, v in db.execute(
            "SELECT coalesce(raw_cat, '(no cat)'), sum(dur) FROM event"
            " WHERE trace_id = ? AND ph = 'X' AND dur IS NOT NULL GROUP BY 1",
            (trace_id,))}
        if db_dur != dict(dur_by_cat):
            fail(f"{rel}: dur sums per category differ:\n  db  {db_dur}\n  ref {dict(dur_by_cat)}")
        db_kernels = dict(db.execute(
            "SELECT name, sum(dur) FROM kernel WHERE trace_id = ? GROUP BY name", (trace_id,)))
        if db_kernels != dict(kernel_dur):
            diff = {k for k in set(db_kernels) | set(kernel_dur)
                    if db_kernels.get(k) != kernel_dur.get(k)}
            fail(f"{rel}: kernel totals differ for {len(diff)} names")
        db_steps = dict(db.execute("SELECT step, dur FROM step WHERE trace_id = ?",
                                   (trace_id,)))
        if db_steps != steps:
            fail(f"{rel}: steps {db_steps} != reference {steps}")
        print(f"ok {rel}: {n_events} events, {len(by_cat)} categories,"
              f" {len(kernel_dur)} kernel names, {len(steps)} steps")
    print(f"{len(rows)} traces checked, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
