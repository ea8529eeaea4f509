#!/usr/bin/env python3
"""Operator, module and source views on every public trace.

    check_whose_public.py PROFDB DATA_DIR WORK_DIR

For each trace under DATA_DIR (snapshots are skipped):
- op_gpu_sum reconciles: the device self times of all operators plus
  '(no operator)' equal the GPU time of the scope, summed here from the
  public gpu_activity view (kernels, copies and fills launched in the
  analysed steps; --include-warmup, so only empty steps are left out);
  no operator's device total exceeds that, none is below its self time.
- module_sum has rows when the trace has 'nn.Module: ' ranges, else a note;
  source_gpu_sum has rows when launching operators have .py frames above
  them, else a note naming with_stack=True.
Exits 77 (skipped) when DATA_DIR does not exist.
"""
import json
import os
import sqlite3
import subprocess
import sys

SCOPE_GPU_NS = """
SELECT coalesce(sum(g.dur), 0) FROM gpu_activity g
WHERE g.dur IS NOT NULL AND g.ts IS NOT NULL AND (
  g.step IN (SELECT s.step FROM step s WHERE s.trace_id = g.trace_id
             AND coalesce(s.span_dur, s.dur) > 0)
  OR (g.step IS NULL AND NOT EXISTS (SELECT 1 FROM step s WHERE s.trace_id = g.trace_id)))
"""


def main():
    profdb, data, work = sys.argv[1:4]
    if not os.path.isdir(data):
        print(f"{data}: no public data; skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    paths = sorted(os.path.join(d, f) for d, _, files in os.walk(data) for f in files
                   if f.endswith((".json", ".json.gz")))
    problems, checked = [], 0
    db, out = os.path.join(work, "t.db"), os.path.join(work, "out.json")
    for path in paths:
        name = os.path.relpath(path, data)
        if os.path.exists(db):
            os.remove(db)
        r = subprocess.run([profdb, "load", "-q", path, "-o", db], capture_output=True, text=True)
        if r.returncode not in (0, 3):
            problems.append(f"{name}: load exit {r.returncode}")
            continue
        con = sqlite3.connect(db)
        if not con.execute("SELECT count(*) FROM trace").fetchone()[0]:
            con.close()
            continue  # a memory snapshot
        total = con.execute(SCOPE_GPU_NS).fetchone()[0]
        has_modules = con.execute("SELECT count(*) FROM python_function "
                                  "WHERE name LIKE 'nn.Module: %'").fetchone()[0] > 0
        con.close()
        r = subprocess.run([profdb, "report", db, "--include-warmup", "--top", "1000000",
                            "--section", "op_gpu_sum", "--section", "module_sum",
                            "--section", "source_gpu_sum", "--json", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"{name}: report exit {r.returncode}: {r.stderr.strip()[:200]}")
            continue
        with open(out) as f:
            s = {x["id"]: x for x in json.load(f)["sections"]}
        rows = s["op_gpu_sum"]["rows"]
        self_sum = sum(x["device_self_ns"] or 0 for x in rows)
        if self_sum != total:
            problems.append(f"{name}: device self times add up to {self_sum} ns, GPU time is {total} ns")
        for x in rows:
            if not (x["device_self_ns"] <= x["device_total_ns"] <= total):
                problems.append(f"{name}: {x['name']}: self {x['device_self_ns']} total "
                                f"{x['device_total_ns']} of {total}")
                break
        if has_modules != bool(s["module_sum"]["rows"]):
            problems.append(f"{name}: nn.Module ranges {has_modules}, module_sum rows "
                            f"{len(s['module_sum']['rows'])}")
        src = s["source_gpu_sum"]
        if not src["rows"] and "with_stack=True" not in (src["note"] or ""):
            problems.append(f"{name}: source_gpu_sum has neither rows nor a note naming with_stack")
        checked += 1
        print(f"{name}: GPU {total} ns reconciled over {len(rows)} operator rows; "
              f"modules {len(s['module_sum']['rows'])}, sources {len(src['rows'])}")
    for p in problems:
        print("PROBLEM", p)
    print(f"{checked} traces checked, {len(problems)} problems")
    return 1 if problems or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
