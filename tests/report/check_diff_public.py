#!/usr/bin/env python3
"""profdb diff's gate and source matching on public data (exit 77 without it).

    check_diff_public.py PROFDB DATA_DIR WORK_DIR

  * HTA's control.json.gz -> test.json.gz (A100 -> V100, 5 steps each,
    HTA's trace-diff example): `step_time > +5%` fails (exit 10) and the
    step time change is beyond the step-to-step spread; control compared
    with itself passes every check (exit 0), each trace metric evaluated.
  * FlexGen's two 1.3b memory snapshots, taken in two checkouts
    (/home/.../FlexGen/flexgen/... and /home/.../origin_git_Flex/flexgen/...):
    every allocation source of the first matches one of the second, by the
    path suffix flexgen/pytorch_backend.py.
"""
import json
import os
import subprocess
import sys

profdb, data, work = sys.argv[1:4]
hta = os.path.join(data, "facebookresearch__HolisticTraceAnalysis")
flex = os.path.join(data, "Yiyi-philosophy__LLM-inference")
if not os.path.isdir(hta) or not os.path.isdir(flex):
    print("public data not found: skipped")
    sys.exit(77)
os.makedirs(work, exist_ok=True)
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


def load(name, *files):
    path = os.path.join(work, name)
    if os.path.exists(path):
        os.remove(path)
    subprocess.run([profdb, "load", "-q", *files, "-o", path], check=True)
    return path


def diff(before, after, *args):
    js = os.path.join(work, "d.json")
    p = subprocess.run([profdb, "diff", before, after, "--json", js, *args],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, json.load(open(js))


control = load("control.db", os.path.join(hta, "control.json.gz"))
test = load("test.db", os.path.join(hta, "test.json.gz"))
rc, md, js = diff(control, test, "--fail-if", "step_time > +5%", "--section", "verdict")
check("HTA control -> test: exit", rc, 10)
check("HTA control -> test: first line", md.split("\n", 1)[0].startswith(
      "**FAIL:** `step_time > +5%` (measured +51.0%)"), True)
c = js["gate"]["checks"][0]
check("HTA: step time before / after (ns)", (c["before"], c["after"]), (77870800, 117573800))
check("HTA: beyond the spread", c["noise"].startswith("the change is beyond the step-to-step spread"),
      True)
print(md.split("\n", 1)[0])

every = ["step_time > +0%", "step_time_median > +0%", "step_time_p95 > +0%", "gpu_util < -0pt",
         "category[GEMM] > +0%", "memcpy_bytes > +0%", "comm_exposed > +0%",
         "peak_allocated > +0%", "peak_reserved > +0%", "ooms > +0"]
rc, md, js = diff(control, control, *[a for r in every for a in ("--fail-if", r)],
                  "--section", "verdict")
check("HTA control -> control: exit", rc, 0)
passed = {c["metric"]: c["passed"] for c in js["gate"]["checks"]}
for m in ("step_time", "step_time_median", "step_time_p95", "gpu_util", "category[GEMM]",
          "memcpy_bytes", "comm_exposed"):
    check(f"HTA self: {m} evaluated and passed", passed[m], True)
for m in ("peak_allocated", "peak_reserved", "ooms"):  # the traces have no snapshot
    check(f"HTA self: {m} not evaluated", passed[m], None)
print(md.split("\n", 1)[0])

a = load("flex_a.db", os.path.join(flex, "log1", "1.3b_snapshot.json"))
b = load("flex_b.db", os.path.join(flex, "1.3b_snapshot.json"))
rc, md, js = diff(a, b, "--section", "alloc_growth")
rows = js["sections"][0]["rows"]
matched = sorted((r["source"].rsplit("/", 1)[1], r["matched_by"]) for r in rows)
print("\n".join(f"  {s}: {m}" for s, m in matched))
check("FlexGen: sources matched", matched, [
    ("pytorch_backend.py:195 allocate", "path suffix flexgen/pytorch_backend.py"),
    ("pytorch_backend.py:239 extend_attention_mask", "path suffix flexgen/pytorch_backend.py"),
    ("pytorch_backend.py:321 mha", "path suffix flexgen/pytorch_backend.py")])
check("FlexGen: the sources are in the other checkout",
      all("/origin_git_Flex/flexgen/" in r["source"] for r in rows), True)
# Every allocation source of the first snapshot (its held blocks' first
# user frames) found its partner.
q = subprocess.run([profdb, "query", a, "--csv",
                    "WITH f AS (SELECT stack_id, filename, line, name, row_number() OVER "
                    "(PARTITION BY stack_id ORDER BY frame_rank(filename), depth) AS pick "
                    "FROM stack_frame) SELECT count(DISTINCT filename || line || name) FROM block b "
                    "JOIN f ON f.stack_id = b.stack_id AND pick = 1 WHERE state = 'active_allocated'"],
                   capture_output=True, text=True, check=True)
check("FlexGen: all before sources matched", int(q.stdout.split()[-1]), len(rows))

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
