#!/usr/bin/env python3
"""check_report_dir_frames.py PROFDB WORK [PUBLIC_TRACE...] — a rank's
summary keeps only the Python frames, operators and runtime calls the
report reads (export/dataset/_summary_drop.sql), and `profdb report DIR`
still equals `profdb report DB` (issue 25, item 3: small summaries).

The fixture (written here) is a with_stack=True trace whose report reads
Python frames, operators and runtime calls in each way the queries do;
every other one is one the summary may drop (operators and runtime calls
that launch nothing and hold no [memory] event: aten::empty, aten::detach,
aten::view, cudaGetDevice):
  - the synchronization finding: the loss.item() sync's source is the
    user frame train.py(40) above it, three frames up; an autotuning sync
    inside convolutions that launch nothing;
  - the allocator finding: cudaMalloc inside an operator that launches
    nothing (the finding names it);
  - op_memory_sum: [memory] events on the autograd thread, one in a
    dropped Python frame inside an operator, after an operator nested in
    that frame (its operator is found up the nesting, past the frame), one
    as an operator ends and a dropped frame starts (the operator's), one
    after a dropped operator (the operator's around it);
  - module_sum: nn.Module frames (dropped: the load's attribution has them);
  - recompute_sum: an activation-checkpoint frame (a marker);
  - --scope hta: whole-µs start times everywhere but in one Python frame,
    fractional durations on the GPU: HTA rounds the trace (ceil/floor),
    and only that frame tells the report so; a frame and an operator with
    a stream arg (GPU work for HTA);
  - an array-layout trace whose only category is a Python frame's (not a
    legacy exporter's, lib/findings/counts.sql);
  - the trace's first and last events are Python frames (the merge's
    event-id ranges) that no query reads.
Checks, for the fixture and each PUBLIC_TRACE given (skipped when absent):
  1. the report of the exported task's dataset equals the database's
     (JSON: every section, every finding; but 'inputs'), by default and
     with --scope hta;
  2. the summary holds fewer Python frames, and fewer operators and runtime
     calls, than the database (the fixture: exactly the kept ones), the
     runtime calls' busy time outside GPU work only (_summary_busy.sql), and
     no index nor SQL text for one (issue 40: the merge runs none of a
     summary's SQL and builds profdb's own indexes);
  3. the fixture's sections above are not empty (the equality means
     something);
  4. without GPU work, the ac2g flows the report counts are kept;
  5. the queries that read slices, Python frames, flows, metadata events,
     the nesting and the attribution contexts are the ones _summary_drop.sql
     accounts for, and none reads the columns _summary_columns.sql empties.
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

profdb, work = sys.argv[1], sys.argv[2]
public = [p for p in sys.argv[3:] if os.path.exists(p)]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed += 1


def run(*args):
    p = subprocess.run([profdb, *args], capture_output=True, text=True)
    if p.returncode not in (0, 3):
        print(f"profdb {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p


# ---- the fixture ------------------------------------------------------------
MAIN, BWD, STREAM = 100, 200, 7
events = []
corr = [500]


def x(cat, name, ts, dur, tid=MAIN, pid=1, **args):
    ev = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        ev["args"] = args
    events.append(ev)


def py(name, ts, dur, tid=MAIN):
    x("python_function", name, ts, dur, tid=tid, **{"Python id": len(events), "Python thread": 0})


def launch(api, ts, tid, kind, name, gts, gdur):
    """A runtime call, its ac2g flow and (in the GPU fixture) its GPU work."""
    corr[0] += 1
    x("cuda_runtime", api, ts, 5, tid=tid, correlation=corr[0], cbid=211)
    events.append({"ph": "s", "id": corr[0], "pid": 1, "tid": tid, "ts": ts, "cat": "ac2g",
                   "name": "ac2g"})
    events.append({"ph": "f", "id": corr[0], "pid": 0, "tid": STREAM, "ts": gts, "cat": "ac2g",
                   "name": "ac2g", "bp": "e"})
    if gpu:
        cat = {"kernel": "kernel", "memcpy": "gpu_memcpy"}[kind]
        x(cat, name, gts, gdur, pid=0, tid=STREAM, device=0, stream=STREAM, correlation=corr[0])


def memory(ts, nbytes, total, tid=BWD):
    events.append({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "s": "t",
                   "pid": 1, "tid": tid, "ts": ts,
                   "args": {"Total Reserved": 1 << 30, "Total Allocated": total, "Bytes": nbytes,
                            "Addr": 0x7000 + ts, "Device Type": 1, "Device Id": 0}})


def write_fixture(name):
    """The fixture trace (the module's gpu switch: with or without GPU work)."""
    events.clear()
    py("torch/profiler/profiler.py(750): start", 850, 10)  # the first event, above nothing
    py("train.py(20): main", 900, 6200)
    for n, t0 in ((1, 1000), (2, 3000), (3, 5000)):
        x("user_annotation", f"ProfilerStep#{n}", t0, 2000)
        py("train.py(30): train_step", t0 + 10, 1980)
        py("torch/nn/modules/module.py(1736): _call_impl", t0 + 20, 300)
        py("nn.Module: Net_0", t0 + 25, 290)
        py("model.py(12): forward", t0 + 30, 280)
        py("torch/nn/modules/linear.py(125): forward", t0 + 40, 200)
        x("cpu_op", "aten::linear", t0 + 50, 150, **{"External id": n * 10})
        launch("cudaLaunchKernel", t0 + 60, MAIN, "kernel", f"void gemm_kernel{version}<float>()",
               t0 + 100, 1000.5)
        # runtime calls whose report names the operators around them, which
        # launch nothing: an allocator call (the allocator finding names
        # its operator) and an autotuning sync (a convolution around it)
        x("cpu_op", "aten::empty_strided", t0 + 1412, 125, **{"External id": n * 10 + 9})
        x("cuda_runtime", "cudaMalloc", t0 + 1415, 115, correlation=0, cbid=20)
        x("cpu_op", "aten::convolution", t0 + 360, 35, **{"External id": n * 100})
        x("cpu_op", "aten::cudnn_convolution", t0 + 362, 30, **{"External id": n * 100 + 1})
        x("cuda_runtime", "cudaEventSynchronize", t0 + 365, 20, correlation=0, cbid=129)
        # an operator and a runtime call that launch nothing (dropped)
        x("cpu_op", "aten::empty", t0 + 70, 5, **{"External id": n * 10 + 6})
        corr[0] += 1
        x("cuda_runtime", "cudaGetDevice", t0 + 80, 2, correlation=corr[0], cbid=17)
        # a frame with a fractional start, not above anything the report reads
        if n == 2:
            py("torch/autograd/grad_mode.py(80): __enter__", t0 + 330.5, 3)
        # loss.item(): a sync whose user frame is above library frames
        py("train.py(40): log_loss", t0 + 400, 1010)
        py("torch/_tensor.py(1000): item", t0 + 405, 1000)
        py("torch/_tensor.py(1100): _wrap", t0 + 407, 995)
        x("cpu_op", "aten::item", t0 + 410, 990, **{"External id": n * 10 + 1})
        x("cpu_op", "aten::_local_scalar_dense", t0 + 412, 986, **{"External id": n * 10 + 2})
        launch("cudaMemcpyAsync", t0 + 415, MAIN, "memcpy", "Memcpy DtoH (Device -> Pageable)",
               t0 + 1120, 1.25)
        x("cuda_runtime", "cudaStreamSynchronize", t0 + 425, 975, correlation=0, cbid=131)
        # backward on the autograd thread: memory events
        py("torch/autograd/graph.py(800): _engine_run_backward", t0 + 1450, 300, tid=BWD)
        py("torch/utils/checkpoint.py(1125): recompute_fn", t0 + 1460, 100, tid=BWD)
        x("cpu_op", "aten::mm", t0 + 1470, 60, tid=BWD, **{"External id": n * 10 + 3})
        memory(t0 + 1480, 1 << 20, (n << 24) + (1 << 20))
        launch("cudaLaunchKernel", t0 + 1490, BWD, "kernel", f"void gemm_bwd_kernel{version}<float>()",
               t0 + 1550, 200.25)
        # between two operators, around no [memory] event (dropped)
        x("cpu_op", "aten::detach", t0 + 1540, 5, tid=BWD, **{"External id": n * 10 + 7})
        x("cpu_op", "autograd::engine::evaluate_function: MmBackward0", t0 + 1570, 60, tid=BWD,
          **{"External id": n * 10 + 4})
        py("torch/autograd/function.py(300): apply", t0 + 1580, 40, tid=BWD)
        x("cpu_op", "aten::mul", t0 + 1585, 10, tid=BWD, **{"External id": n * 10 + 5})
        # as aten::mul ends, a dropped frame starts: an event at that instant
        # is aten::mul's (its closed interval), not the frame's operator's
        py("torch/autograd/function.py(310): _unpack", t0 + 1595, 3, tid=BWD)
        memory(t0 + 1595, 1 << 10, (n << 24) + (1 << 10))
        # after aten::mul, in the dropped frame between it and the operator
        # around both (the summary's nesting skips the frame)
        memory(t0 + 1600, -(1 << 20) - (1 << 10), n << 24)
        # the last slice started before the next event is a dropped
        # operator that ended before it: the event is the operator's around
        # both (evaluate_function), found up from the last kept slice
        x("cpu_op", "aten::view", t0 + 1602, 2, tid=BWD, **{"External id": n * 10 + 8})
        memory(t0 + 1610, 1 << 12, (n << 24) + (1 << 12))
        # so is an operator with a stream arg (Inductor's Triton kernels on
        # ROCm) that launches nothing
        if n == 2:
            x("cpu_op", "triton_poi_fused_mul_0", t0 + 1540, 8, stream=0, grid="grid(64)")
        # a frame with a stream arg: GPU work for HTA (--scope hta), while
        # the GPU is idle, before the last step (HTA drops what is after)
        if n == 2:
            py("triton_launcher.py(50): run", t0 + 1800, 20, tid=BWD)
            events[-1]["args"]["stream"] = STREAM
    py("train.py(50): save", 7100, 50)  # the last event
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
           "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85097971712,
                                 "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
           "traceEvents": events, "displayTimeUnit": "ms"}
    path = os.path.join(work, name)
    with open(path, "w") as fh:
        json.dump(doc, fh)
    return path


gpu, version = True, ""
fixture = write_fixture("frames_rank0.json")
FRAMES = sum(1 for e in events if e.get("cat") == "python_function")
FLOWS = sum(1 for e in events if e.get("cat") == "ac2g")
# kept: the marker; the frames above the sync and copy calls and the marker
# (main, train_step, log_loss, item, _wrap; _engine_run_backward); the
# first, the last, the fractional
KEPT_NAMES = {"train.py(20): main", "train.py(30): train_step", "train.py(40): log_loss",
              "torch/_tensor.py(1000): item", "torch/_tensor.py(1100): _wrap",
              "torch/autograd/graph.py(800): _engine_run_backward",
              "torch/utils/checkpoint.py(1125): recompute_fn", "torch/profiler/profiler.py(750): start",
              "train.py(50): save", "torch/autograd/grad_mode.py(80): __enter__",
              "triton_launcher.py(50): run", "torch/nn/modules/linear.py(125): forward"}
KEPT = sum(1 for e in events if e.get("cat") == "python_function" and e["name"] in KEPT_NAMES)
# operators and runtime calls no query reads one by one: dropped, but the
# first call of each operator (its _attr_shape key's, which profdb diff reads)
DROPPED_CALLS = {"aten::empty", "cudaGetDevice", "aten::detach", "aten::view"}
FIRST_KEPT = {"aten::empty", "aten::detach", "aten::view"}
CALLS = sum(1 for e in events if e.get("cat") in ("cpu_op", "cuda_runtime"))
KEPT_CALLS = CALLS - sum(1 for e in events if e.get("name") in DROPPED_CALLS) + len(FIRST_KEPT)


def summary_db(ds):
    """The one summary of the dataset, decompressed (zstd's command line)."""
    found = [os.path.join(r, f) for r, _, fs in os.walk(os.path.join(ds, "_summary")) for f in fs]
    if len(found) != 1:
        return None
    plain = found[0][:-4] + ".plain"
    subprocess.run(["zstd", "-q", "-d", "-f", found[0], "-o", plain], check=True)
    return plain


def frames_in(db):
    """Python frames, flows, slices without a nesting row (and the reverse),
    indexes built, index definitions, operators and runtime calls."""
    c = sqlite3.connect(db)
    one = lambda q: c.execute(q).fetchone()[0]
    n = one("SELECT count(*) FROM _slice WHERE kind = (SELECT kind FROM _kind"
            " WHERE name = 'python_function')")
    flows = one("SELECT count(*) FROM _flow")
    unnested = one("SELECT (SELECT count(*) FROM _slice WHERE id NOT IN (SELECT id FROM _slice_tree))"
                   " + (SELECT count(*) FROM _slice_tree WHERE id NOT IN (SELECT id FROM _slice))")
    idx = one("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
    defs = one("SELECT count(*) FROM sqlite_schema WHERE name = '_summary_index'")
    defs = defs and one("SELECT count(*) FROM _summary_index")
    calls = one("SELECT count(*) FROM _slice WHERE kind IN (SELECT kind FROM _kind"
                " WHERE name IN ('cpu_op', 'runtime'))")
    c.close()
    return n, flows, unnested, idx, defs, calls


def same(label, trace, scope):
    name = label + ("_hta" if scope else "")
    db, ds = os.path.join(work, label + ".db"), os.path.join(work, label + "_ds")
    extra = ["--scope", "hta"] if scope else []
    if not os.path.exists(db):
        run("load", "-q", trace, "-o", db)
        run("export", "-q", trace, "-o", ds)
    a, b = os.path.join(work, name + ".db.json"), os.path.join(work, name + ".dir.json")
    run("report", db, "--json", a, *extra)
    run("report", ds, "--json", b, *extra)
    if not (os.path.exists(a) and os.path.exists(b)):
        check(False, f"{name}: both reports written")
        return None, [], db, ds
    ra, rb = json.load(open(a)), json.load(open(b))
    sa, sb = ({s["id"]: s for s in r["sections"]} for r in (ra, rb))
    # the critical paths: a dataset says it cannot (its summaries leave most
    # CPU operators out: lib/90_unavailable.sql); check_report_dir.py checks it
    differ = sorted(k for k in set(sa) | set(sb)
                    if k not in ("critical_path", "critical_path_job") and sa.get(k) != sb.get(k))
    others = sorted(k for k in set(ra) | set(rb)
                    if k not in ("inputs", "sections") and ra.get(k) != rb.get(k))
    check(not differ and not others,
          f"{name}: report DIR equals report DB ({len(sa)} sections, "
          f"{len(ra.get('findings', []))} findings)" + (f"; differing: {differ + others}" if differ or others else ""))
    return sa, ra.get("findings", []), db, ds


def rows(sections, sid):
    return (sections or {}).get(sid, {}).get("rows") or []


sections, findings, db, ds = same("fixture", fixture, False)
hta, _, _, _ = same("fixture", fixture, True)
plain = summary_db(ds)
if plain:
    n, flows, unnested, idx, defs, calls = frames_in(plain)
    names = [r[0] for r in sqlite3.connect(plain).execute(
        "SELECT n.value FROM _slice s JOIN _string n ON n.id = s.name_id")]
    extra = sorted(n for n in set(names) & DROPPED_CALLS
                   if n not in FIRST_KEPT or names.count(n) > 1)
    busy = lambda f: sqlite3.connect(f).execute(
        "SELECT count(*), coalesce(sum(dur), 0) FROM cpu_busy WHERE class = 'runtime'").fetchone()
    (n_sum, t_sum), (n_db, t_db) = busy(plain), busy(db)
    runtime_ns = [r["runtime_ns"] for r in rows(sections, "step_time")]
    check(0 < t_sum < t_db and n_sum <= n_db and runtime_ns and all(x > 0 for x in runtime_ns),
          f"fixture: the summary keeps the runtime calls' busy time outside GPU work only "
          f"({t_sum} of {t_db} ns, {n_sum} of {n_db} intervals; step_time runtime_ns {runtime_ns})")
    filled = lambda f: sqlite3.connect(f).execute(
        "SELECT (SELECT count(*) FROM _slice WHERE external_id IS NOT NULL OR cbid IS NOT NULL),"
        " (SELECT count(*) FROM _slice_tree WHERE self_dur IS NOT NULL)").fetchone()
    check(filled(plain) == (0, 0) and min(filled(db)) > 0,
          f"fixture: the summary empties the columns no query reads ({filled(plain)}; "
          f"the database: {filled(db)})")
    check(calls == KEPT_CALLS < CALLS and not extra,
          f"fixture: the summary keeps the {KEPT_CALLS} operators and runtime calls the report "
          f"reads of {CALLS} ({calls}; dropped ones kept: {extra})")
    check(n == KEPT and KEPT < FRAMES,
          f"fixture: the summary keeps the {KEPT} Python frames the report reads of {FRAMES} ({n})")
    check(flows == 0 < FLOWS, f"fixture: the summary keeps none of the {FLOWS} flows ({flows})")
    check(unnested == 0, f"fixture: one nesting row per kept slice ({unnested} without)")
    check(idx == 0 and defs == 0,
          f"fixture: no index in the summary and no SQL text for one (the merge builds profdb's own;"
          f" {idx} built, {defs} _summary_index)")
else:
    check(False, "fixture: one summary written")
sync = [f for f in findings if f["id"] == "synchronization"]
check(any(s.get("source") == "train.py(40): log_loss" for f in sync for s in f["subjects"]),
      f"fixture: the synchronization finding names the user frame train.py(40) ({json.dumps(sync)[:300]})")
mem = {r["name"]: r for r in rows(sections, "op_memory_sum")}
check("autograd::engine::evaluate_function: MmBackward0" in mem and "aten::mul" in mem
      and "aten::view" not in mem,
      f"fixture: op_memory_sum charges the operator around the dropped frame, the one "
      f"ending as a dropped frame starts, and the one around a dropped operator ({sorted(mem)})")
alloc = [f for f in findings if f["id"] == "allocator_calls"]
check(any("made inside aten::empty_strided" in f["observation"] for f in alloc),
      f"fixture: the allocator finding names the operator around cudaMalloc ({json.dumps(alloc)[:300]})")
check(any("autotuning inside convolutions" in f["observation"] for f in sync),
      "fixture: the synchronization finding tells the autotuning sync inside a convolution")
check(len(rows(sections, "module_sum")) > 0, "fixture: module_sum has rows")
check(len(rows(sections, "recompute_sum")) > 0, "fixture: recompute_sum has rows")
check(len(rows(hta, "temporal_breakdown")) > 0, "fixture: --scope hta's temporal_breakdown has rows")

# profdb diff of two datasets equals the diff of their databases: the
# kernels renamed (another library version) are matched by their operator
# and its parent slice, a dropped Python frame (diff/lib/15_launch.sql); the
# operators by name and shapes, aten::empty's key from a call that launches
# nothing.
version = "_v2"
other = write_fixture("frames_v2_rank0.json")
other_db, other_ds = os.path.join(work, "v2.db"), os.path.join(work, "v2_ds")
run("load", "-q", other, "-o", other_db)
run("export", "-q", other, "-o", other_ds)
diffs = []
for a, b, out in ((db, other_db, "diff.db.json"), (ds, other_ds, "diff.dir.json")):
    run("diff", a, b, "--json", os.path.join(work, out))
    diffs.append(json.load(open(os.path.join(work, out))) if os.path.exists(os.path.join(work, out))
                 else {})
for d in diffs:
    d.pop("inputs", None)
text = json.dumps(diffs[0])
check(diffs[0] and diffs[0] == diffs[1],
      "fixture: profdb diff of the datasets equals the diff of the databases" +
      ("" if diffs[0] == diffs[1] else f" (differing: {sorted(k for k in diffs[0] if diffs[0].get(k) != diffs[1].get(k))})"))
check("torch/nn/modules/linear.py(125): forward" in text and "aten::empty" in text,
      "fixture: the diff matches the renamed GEMM kernels under their operator's parent frame, "
      "and lists aten::empty's calls")

# Without GPU work the report counts the ac2g flows (lib/findings/counts.sql): kept.
gpu = False
nogpu = write_fixture("frames_nogpu_rank0.json")
_, nogpu_findings, _, nogpu_ds = same("nogpu", nogpu, False)
plain = summary_db(nogpu_ds)
check(plain and frames_in(plain)[1] == FLOWS,
      f"nogpu: the summary keeps the {FLOWS} ac2g flows the report counts")
check("ac2g_flows" in json.dumps(nogpu_findings), "nogpu: a finding counts the ac2g flows")

# An array-layout trace (no categories: PyTorch's legacy exporter) whose
# only category is a Python frame's: not taken for a legacy trace.
legacy = os.path.join(work, "frames_legacy.json")
with open(legacy, "w") as fh:
    json.dump([{"ph": "X", "name": "aten::first", "pid": 1, "tid": 1, "ts": 100, "dur": 5},
               {"ph": "X", "cat": "python_function", "name": "model.py(1): f", "pid": 1, "tid": 1,
                "ts": 200, "dur": 50},
               {"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 210, "dur": 5},
               {"ph": "X", "name": "aten::last", "pid": 1, "tid": 1, "ts": 300, "dur": 5}], fh)
same("legacy", legacy, False)

# The queries that read the tables a summary thins out: a new reader must
# be checked against export/dataset/_summary_drop.sql (and added here).
READERS = {
    "python_function": ["lib/10_trace_scope.sql", "lib/35_sync.sql", "lib/55_memory_event_op.sql",
                        "lib/60_critical_path.sql", "mem_peak_context.sql", "run_summary.sql"],
    "_flow": ["lib/findings/counts.sql", "lib/10_trace_scope.sql"],
    "_meta": ["lib/10_trace_scope.sql"],
    "_slice": ["diff/lib/15_launch.sql",
               "fill_kernel_sum.sql", "findings/allocator_calls.sql", "lib/findings/counts.sql",
               "lib/findings/graph.sql", "lib/findings/launch.sql", "launch_overhead.sql",
               "mem_peak_context.sql",
               "op_memory_sum.sql", "op_shape_sum.sql", "queue_length.sql", "source_gpu_sum.sql",
               "lib/10_trace_scope.sql", "lib/11_hta.sql", "lib/13_cold_launch.sql", "lib/35_sync.sql",
               "lib/38_claim.sql", "lib/50_collectives.sql", "lib/50_op_tree.sql",
               "lib/55_memory_event_op.sql", "lib/58_flops.sql", "lib/findings/queued.sql",
               "lib/36_gpu_gaps.sql",
               "lib/findings/critical.sql", "lib/15_timeline.sql",
               # the critical path and its replays: not run on a dataset
               # (lib/60_critical_path.sql, which also names the events' kinds for
               # the replays, lib/63, which a dataset's export computes)
               "lib/60_critical_path.sql", "lib/61_critical_path_edges.sql",
               "lib/61_critical_path_walk.sql"],
    "_attr_ctx": ["lib/50_op_tree.sql"],
    "_attr_ctx_op": ["lib/50_op_tree.sql"],
    "_attr_ctx_shape": ["lib/50_op_tree.sql"],
    "_attr_shape": ["diff/lib/15_launch.sql", "op_shape_sum.sql"],
    "_slice_tree": ["diff/lib/15_launch.sql", "findings/allocator_calls.sql", "lib/10_trace_scope.sql",
                    "lib/35_sync.sql", "lib/36_gpu_gaps.sql", "lib/38_claim.sql",
                    "lib/50_op_tree.sql", "lib/55_memory_event_op.sql", "lib/58_flops.sql",
                    "lib/60_critical_path.sql",
                    "mem_peak_context.sql"],
}
# The columns a summary empties (export/dataset/_summary_columns.sql): no
# query names them; self_dur and path_id only where they are other tables'.
EMPTIED = ["external_id", "seq_num", "fwd_tid", "ev_idx", "cbid", "python_id", "python_parent_id",
           "record_fn_id", "input_strides", "kernel_id", "extra", "grid_x", "grid_y", "grid_z",
           "block_x", "block_y", "block_z", "registers", "shared_memory", "blocks_per_sm",
           "warps_per_sm", "occupancy_pct", "bandwidth_gbps"]
READERS.update({c: [] for c in EMPTIED})
READERS["self_dur"] = ["diff/lib/10_sides.sql", "cpu_op_self_sum.sql", "cpu_op_total_sum.sql", "op_family_sum.sql",
                       "op_gpu_sum.sql", "op_shape_sum.sql", "lib/10_trace_scope.sql",
                       # _slice_tree's over 1 ms, kept (_summary_columns.sql)
                       "lib/36_gpu_gaps.sql"]
READERS["path_id"] = ["mem_peak_context.sql", "lib/50_op_tree.sql"]
queries = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "queries")
for token, expected in READERS.items():
    got = []
    for sub in ("", "lib", "lib/findings", "findings", "charts", "diff", "diff/lib", "diff/trend"):
        for f in sorted(os.listdir(os.path.join(queries, sub))):
            if f.endswith(".sql"):
                text = "\n".join(l.split("--")[0] for l in open(os.path.join(queries, sub, f)))
                if re.search(r"\b" + token + r"\b", text):
                    got.append(os.path.join(sub, f) if sub else f)
    check(sorted(got) == sorted(expected),
          f"the queries reading {token} are the ones export/dataset/_summary_*.sql account for "
          f"({sorted(got)})")

for i, trace in enumerate(public):
    label = f"public{i}"
    print(f"     {label}: {trace}")
    same(label, trace, False)
    plain = summary_db(os.path.join(work, label + "_ds"))
    if plain:
        got, whole = frames_in(plain), frames_in(os.path.join(work, label + ".db"))
        check(got[2] == 0, f"{label}: one nesting row per kept slice")
        check(got[0] < whole[0] or whole[0] == 0, f"{label}: {got[0]} of {whole[0]} Python frames kept")
        check(got[5] < whole[5], f"{label}: {got[5]} of {whole[5]} operators and runtime calls kept")
if not public and len(sys.argv) > 3:
    print("     (public traces absent: only the fixture checked)")
sys.exit(1 if failed else 0)
