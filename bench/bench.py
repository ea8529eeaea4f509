#!/usr/bin/env python3
"""profdb load / report / diff benchmark (not a test: run by hand).

    bench.py PROFDB SOURCE FOLDER_SOURCE WORK_DIR [--sizes 100,1000,3000]
             [--out docs/performance.md]

For each size (MB of uncompressed JSON) a trace is made from SOURCE by
bench/scale_trace.py (plain and gzip) and, in one run, these are measured
on the same file: `profdb load` (wall, user+sys CPU, peak RSS, events/s,
MB/s of JSON, database size) next to the limits and peers doing the same
reading: `json_verify -q` (yajl's bare parse), `zcat`, `zcat | json_verify
-q`, Python `json.load` + a sum of dur by name (skipped when the JSON
would not fit in memory), and `ijson` (yajl2_c backend) doing the same sum;
then `profdb report` and `profdb diff` (the database against itself) on the
loaded database.  Also: the peak replay on 1M allocator events, and a
64-file multi-rank folder load (64 copies of FOLDER_SOURCE, one per rank),
and appending --append-trace (a real ~1 MB trace) to the database of the
first size >= 1000 MB against loading it alone.
The floor (bench/floor.c, --floor, default: profdb-floor next to PROFDB)
writes the rows of each loaded database again from memory, with the
loader's writer settings and indexes and no JSON: `load / floor` is what
parsing and deriving cost on top of SQLite's own writing.
With --load-only, each size gets only `json_verify -q` and `profdb load`
(and --baseline's), interleaved, with the load's phases (PROFDB_TIMING)
as seconds and shares, and the ratios to `json_verify` (load_phases.py;
between the bench-load markers of --out).
With --report-only, each size gets only `json_verify -q`, `profdb load`,
`profdb report` and `profdb diff` (this size's database against the
previous size's: two different runs), with peak RSS and the ratios to
`json_verify`; --baseline PROFDB (and --baseline-queries DIR, the query
files of that build) adds the same for another build, in the same run,
for before / after figures.  That table goes between the bench-report
markers of --out.  --hta HTA_SRC adds HTA's parse + temporal breakdown of
the same file (bench/hta_breakdown.py, one run; skipped where the JSON
times 6, HTA's appetite, exceeds the free memory, or the size is over
--hta-max-mb) and the end-to-end
ratio HTA / (profdb load + report).
Ratios are against baselines measured in
the same run, since these machines are shared and noisy; every figure is
the best of --repeat runs.  Prints the tables and writes them with the
machine's description into --out, between its bench markers (the rest
of the file, the analysis, is kept).
"""
import argparse
import gzip
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"  # Debian's: has python3-ijson with the yajl2_c backend

SUM_JSON = r"""
import json, sys
from collections import defaultdict
t = defaultdict(float)
with open(sys.argv[1]) as f:
    doc = json.load(f)
for e in doc["traceEvents"] if isinstance(doc, dict) else doc:
    if e.get("ph") == "X":
        t[e.get("name")] += float(e.get("dur", 0))
print(len(t))
"""
SUM_IJSON = r"""
import ijson, sys
from collections import defaultdict
t = defaultdict(float)
with open(sys.argv[1], "rb") as f:
    for e in ijson.items(f, "traceEvents.item"):
        if e.get("ph") == "X":
            t[e.get("name")] += float(e.get("dur", 0))
print(len(t))
"""


def timed(cmd, shell=False, env=None):
    """(wall s, user+sys s, peak RSS KB) of a command, via /usr/bin/time."""
    tf = "/tmp/profdb-bench-time.txt"
    full = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", tf]
    full += ["bash", "-c", cmd] if shell else cmd
    r = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd}: exit {r.returncode}: {r.stderr.decode()[-400:]}")
    with open(tf) as f:
        wall, user, sys_, rss = f.read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss)


def best(n, fn):
    runs = [fn() for _ in range(n)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) // 1024 // 1024
    sqlite = subprocess.run(["sqlite3", "--version"], capture_output=True, text=True).stdout.split()[0]
    return (f"{os.cpu_count()} cores ({cpu}), {mem} GiB RAM, {platform.system()} "
            f"{platform.release()}, SQLite {sqlite}, Python {platform.python_version()}")


def make_trace(source, work, mb):
    plain = os.path.join(work, f"trace_{mb}.json")
    gz = plain + ".gz"
    if not (os.path.exists(plain) and os.path.exists(gz)):
        subprocess.run([PY, os.path.join(HERE, "scale_trace.py"), source, plain, str(mb),
                        "--gzip", gz], check=True)
    return plain, gz


def bench_size(profdb, source, work, mb, repeat, mem_gib):
    plain, gz = make_trace(source, work, mb)
    size = os.path.getsize(plain)
    db = os.path.join(work, f"trace_{mb}.db")
    r = {"mb": mb, "json_bytes": size, "gz_bytes": os.path.getsize(gz)}
    r["json_verify"] = best(repeat, lambda: timed(f"json_verify -q < {plain}", shell=True))
    r["zcat"] = best(repeat, lambda: timed(f"zcat {gz} > /dev/null", shell=True))
    r["zcat_verify"] = best(repeat, lambda: timed(f"zcat {gz} | json_verify -q", shell=True))

    def load(path):
        def run():
            if os.path.exists(db):
                os.unlink(db)
            return timed([profdb, "load", "-q", path, "-o", db])
        return best(repeat, run)

    r["load_gz"] = load(gz)
    r["load"] = load(plain)
    r["db_bytes"] = os.path.getsize(db)
    out = subprocess.run([profdb, "query", db, "--csv", "SELECT sum(events) FROM trace"],
                         capture_output=True, text=True, check=True).stdout.split()
    r["events"] = int(out[-1])
    # Python json.load holds the whole document: about 10x the file in RAM.
    if size * 10 < mem_gib * 0.8 * (1 << 30):
        r["json_load"] = best(1, lambda: timed([PY, "-c", SUM_JSON, plain]))
    r["ijson"] = best(1, lambda: timed([PY, "-c", SUM_IJSON, plain]))
    out = os.path.join(work, "out.json")
    r["report"] = best(repeat, lambda: timed([profdb, "report", db, "--json", out]))
    r["diff"] = best(repeat, lambda: timed([profdb, "diff", db, db, "--json", out]))
    return r


def bench_report(profdb, source, work, mb, repeat, prev, baseline=None, hta=None,
                 hta_max_mb=None):
    """json_verify, load, report and diff (against prev, the previous size's
    databases) of one size; the same with the baseline build when given
    ((PROFDB, QUERIES_DIR))."""
    plain = os.path.join(work, f"trace_{mb}.json")
    if not os.path.exists(plain):
        subprocess.run([PY, os.path.join(HERE, "scale_trace.py"), source, plain, str(mb)],
                       check=True)
    r = {"mb": mb, "json_bytes": os.path.getsize(plain)}
    r["json_verify"] = best(repeat, lambda: timed(f"json_verify -q < {plain}", shell=True))
    builds = [("new", profdb, None)] + ([("base",) + baseline] if baseline else [])
    for tag, exe, queries in builds:
        env = dict(os.environ, PROFDB_QUERIES=queries) if queries else None
        db = os.path.join(work, f"trace_{mb}.{tag}.db")

        def load():
            if os.path.exists(db):
                os.unlink(db)
            return timed([exe, "load", "-q", plain, "-o", db])
        r[tag + "_load"] = best(repeat, load)
        r[tag + "_db_bytes"] = os.path.getsize(db)
        out = os.path.join(work, "out.json")
        r[tag + "_report"] = best(repeat, lambda: timed([exe, "report", db, "--json", out],
                                                        env=env))
        before = prev[tag] if prev else db
        r[tag + "_diff"] = best(repeat, lambda: timed([exe, "diff", before, db, "--json", out],
                                                      env=env))
        r[tag + "_db"] = db
    if hta:
        with open("/proc/meminfo") as f:
            avail = {l.split(":")[0]: int(l.split()[1]) * 1024 for l in f}["MemAvailable"]
        if 6 * r["json_bytes"] < avail and (not hta_max_mb or mb <= hta_max_mb):
            env = dict(os.environ, HTA_SRC=hta)
            r["hta"] = timed([PY, os.path.join(HERE, "hta_breakdown.py"), plain], env=env)
    return r


def report_table(results, mach, baseline):
    lines = [f"Machine: {mach}.", "",
             "| JSON | `json_verify -q` | `profdb load` | load / verify | load RSS "
             "| `profdb report` | report / verify | report RSS | `profdb diff` (vs previous size) "
             "| diff / verify | diff RSS |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for tag in ["new"] + (["base"] if baseline else []):
        if baseline:
            lines.append(f"| **{'this build' if tag == 'new' else 'baseline'}** |||||||||||")
        for r in results:
            jv = r["json_verify"][0]
            ld, rp, df = r[tag + "_load"], r[tag + "_report"], r[tag + "_diff"]
            lines.append(
                f"| {r['json_bytes'] / 1e6:.0f} MB | {fmt_s(jv)} | {fmt_s(ld[0])} "
                f"| {ld[0] / jv:.2f}x | {ld[2] / 1024:.0f} MB | {fmt_s(rp[0])} "
                f"| {rp[0] / jv:.2f}x | {rp[2] / 1024:.0f} MB | {fmt_s(df[0])} "
                f"| {df[0] / jv:.2f}x | {df[2] / 1024:.0f} MB |")
    lines += ["", "CPU time (user + sys) of the same runs, which a busy machine disturbs less:",
              "", "| JSON | build | `json_verify -q` | load | report | diff |",
              "|---:|---|---:|---:|---:|---:|"]
    for r in results:
        for tag in ["new"] + (["base"] if baseline else []):
            lines.append(
                f"| {r['json_bytes'] / 1e6:.0f} MB | {'this' if tag == 'new' else 'baseline'} "
                f"| {fmt_s(r['json_verify'][1])} | {fmt_s(r[tag + '_load'][1])} "
                f"| {fmt_s(r[tag + '_report'][1])} | {fmt_s(r[tag + '_diff'][1])} |")
    if any("hta" in r for r in results):
        lines += ["", "End to end against HTA (its source checkout's parse + "
                  "`get_temporal_breakdown`, one run) on the same file:", "",
                  "| JSON | HTA | its RSS | `profdb load` + `report` | its peak RSS "
                  "| HTA / profdb (wall) | HTA / profdb (CPU) |", "|---:|---:|---:|---:|---:|---:|---:|"]
        for r in results:
            ld, rp = r["new_load"], r["new_report"]
            if "hta" not in r:
                lines.append(f"| {r['json_bytes'] / 1e6:.0f} MB | not run (--hta-max-mb, or ~6x the JSON in RAM) "
                             f"| | {fmt_s(ld[0] + rp[0])} | {max(ld[2], rp[2]) / 1024:.0f} MB | | |")
                continue
            h = r["hta"]
            lines.append(
                f"| {r['json_bytes'] / 1e6:.0f} MB | {fmt_s(h[0])} | {h[2] / 1024:.0f} MB "
                f"| {fmt_s(ld[0] + rp[0])} | {max(ld[2], rp[2]) / 1024:.0f} MB "
                f"| {h[0] / (ld[0] + rp[0]):.1f}x | {h[1] / (ld[1] + rp[1]):.1f}x |")
    return "\n".join(lines)


def write_block(path, name, argv, text):
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    old = open(path).read() if os.path.exists(path) else ""
    if begin not in old:
        old += f"\n{begin}\n{end}\n"
    head, rest = old.split(begin, 1)
    tail = rest.split(end, 1)[1]
    block = f"{begin}\n<!-- written by bench/bench.py {' '.join(argv)} -->\n\n{text}\n\n{end}"
    with open(path, "w") as f:
        f.write(head + block + tail)


def bench_replay(profdb, work, repeat):
    """Peak replay on a snapshot with 1M allocator events (ext_bench.py's)."""
    sys.path.insert(0, HERE)
    from ext_bench import write_snapshot  # noqa: E402
    snap = os.path.join(work, "snapshot_1m.json")
    if not os.path.exists(snap):
        write_snapshot(snap, 1_000_000)
    db = os.path.join(work, "snapshot_1m.db")
    if os.path.exists(db):
        os.unlink(db)
    load = timed([profdb, "load", "-q", snap, "-o", db])
    peak = best(repeat, lambda: timed([profdb, "query", db, "SELECT * FROM mem_peak(1, 0)"]))
    return {"load": load, "peak": peak}


def bench_folder(profdb, source, work, repeat):
    """64 ranks: the same trace with a different rank each, so that no file
    is a duplicate of another."""
    folder = os.path.join(work, "ranks")
    if not os.path.isdir(folder):
        os.makedirs(folder)
        opener = gzip.open if open(source, "rb").read(2) == b"\x1f\x8b" else open
        with opener(source, "rt") as f:
            doc = json.load(f)
        for rank in range(64):
            d = dict(doc)
            d["distributedInfo"] = dict(d.get("distributedInfo") or {}, rank=rank, world_size=64)
            with open(os.path.join(folder, f"rank{rank:02d}.json"), "w") as f:
                json.dump(d, f)
    total = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
    db = os.path.join(work, "ranks.db")

    def run():
        if os.path.exists(db):
            os.unlink(db)
        return timed([profdb, "load", "-q", folder, "-o", db])
    return {"bytes": total, "load": best(repeat, run)}


def bench_floor(floor, db, work, repeat):
    """SQLite's own time to write db's rows and indexes (bench/floor.c):
    the figures of the fastest of `repeat` runs."""
    out = os.path.join(work, "floor.db")
    runs = []
    for _ in range(repeat):
        r = subprocess.run([floor, db, out], capture_output=True, text=True, check=True)
        runs.append({k: float(v) for k, v in (kv.split("=") for kv in r.stdout.split())})
    os.unlink(out)
    return min(runs, key=lambda f: f["floor_s"])


def floor_cells(r):
    """The main table's `floor` and `load / floor` cells."""
    return f"{fmt_s(r['floor']['floor_s'])} | {r['load'][0] / r['floor']['floor_s']:.2f}x"


def floor_table(results):
    """Where the floor's time goes, per size."""
    lines = ["| JSON | rows written | floor: insert | indexes | commit, fsync | floor "
             "| without indexes | `profdb load` | load / floor |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        f = r["floor"]
        lines.append(
            f"| {r['json_bytes'] / 1e6:.0f} MB | {f['rows'] / 1e6:.2f} M "
            f"| {fmt_s(f['insert_s'])} | {fmt_s(f['index_s'])} | {fmt_s(f['commit_s'])} "
            f"| {fmt_s(f['floor_s'])} | {fmt_s(f['floor_rows_s'])} | {fmt_s(r['load'][0])} "
            f"| {r['load'][0] / f['floor_s']:.2f}x |")
    return lines


def bench_append(profdb, work, small, base_mb, repeat):
    """Appending a small trace (about 1 MB) to the database of the base_mb
    trace (bench_size's, made here if missing) against loading it alone:
    an append must cost what is added, not the size of the database."""
    base = os.path.join(work, f"trace_{base_mb}.db")
    if not os.path.exists(base):
        plain = os.path.join(work, f"trace_{base_mb}.json")
        subprocess.run([profdb, "load", "-q", plain, "-o", base], check=True)
    alone, appended = os.path.join(work, "append_alone.db"), os.path.join(work, "append.db")

    def load_alone():
        if os.path.exists(alone):
            os.unlink(alone)
        return timed([profdb, "load", "-q", small, "-o", alone])

    def append():
        shutil.copy(base, appended)  # not timed: a fresh copy of the base each run,
        os.sync()                    # on disk (else the append's fsync writes the copy)
        return timed([profdb, "load", "-q", small, "-o", appended])
    opener = gzip.open if open(small, "rb").read(2) == b"\x1f\x8b" else open
    with opener(small, "rb") as f:
        small_json = len(f.read())
    r = {"small_bytes": small_json, "base_mb": base_mb,
         "base_db_bytes": os.path.getsize(base), "alone": best(repeat, load_alone),
         "append": best(repeat, append)}
    os.unlink(appended)
    return r


def append_line(a):
    return (f"Append: a {a['small_bytes'] / 1e6:.1f} MB trace (JSON; "
            f"{os.path.basename(a['small'])}) "
            f"loaded alone {fmt_s(a['alone'][0])}, appended to the {a['base_mb']} MB trace's "
            f"database ({a['base_db_bytes'] / 1e6:.0f} MB) {fmt_s(a['append'][0])}: "
            f"{a['append'][0] / a['alone'][0]:.1f}x.")


def fmt_s(x):
    return f"{x:.2f} s"


def tables(results, replay, folder, mach, append=None):
    lines = [f"Machine: {mach}.", "",
             "| JSON | events | `profdb load` | MB/s | Mevents/s | CPU | peak RSS | DB / JSON "
             "| `json_verify -q` | load / json_verify | floor | load / floor "
             "| gzip: `profdb load` | `zcat \\| json_verify` "
             "| gz load / (zcat\\|verify) | `zcat` |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        w, c, rss = r["load"]
        lines.append(
            f"| {r['json_bytes'] / 1e6:.0f} MB | {r['events'] / 1e6:.2f} M | {fmt_s(w)} "
            f"| {r['json_bytes'] / 1e6 / w:.0f} | {r['events'] / 1e6 / w:.2f} | {fmt_s(c)} "
            f"| {rss / 1024:.0f} MB | {r['db_bytes'] / r['json_bytes']:.2f} "
            f"| {fmt_s(r['json_verify'][0])} | {w / r['json_verify'][0]:.2f}x "
            f"| {floor_cells(r)} | {fmt_s(r['load_gz'][0])} | {fmt_s(r['zcat_verify'][0])} "
            f"| {r['load_gz'][0] / r['zcat_verify'][0]:.2f}x | {fmt_s(r['zcat'][0])} |")
    lines += [""] + floor_table(results)
    lines += ["", "| JSON | Python `json.load` + sum | its RSS | vs `profdb load` (time, RSS) "
              "| `ijson` + sum | its RSS | vs `profdb load` | `profdb report` | its RSS "
              "| `profdb diff` (self) |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        w, _, rss = r["load"]
        if "json_load" in r:
            jl = r["json_load"]
            jcell = (f"{fmt_s(jl[0])} | {jl[2] / 1024:.0f} MB | {jl[0] / w:.1f}x slower, "
                     f"{jl[2] / rss:.0f}x more RAM")
        else:
            jcell = "not run: needs ~10x the file in RAM | | "
        ij = r["ijson"]
        lines.append(
            f"| {r['json_bytes'] / 1e6:.0f} MB | {jcell} | {fmt_s(ij[0])} | {ij[2] / 1024:.0f} MB "
            f"| {ij[0] / w:.1f}x slower | {fmt_s(r['report'][0])} | {r['report'][2] / 1024:.0f} MB "
            f"| {fmt_s(r['diff'][0])} |")
    lines += ["", f"Peak replay on 1M allocator events: load {fmt_s(replay['load'][0])}, "
              f"`mem_peak` {fmt_s(replay['peak'][0])} (profdb query, process start included).",
              "",
              f"64-rank folder ({folder['bytes'] / 1e6:.0f} MB of JSON in 64 files): load "
              f"{fmt_s(folder['load'][0])} wall, {fmt_s(folder['load'][1])} CPU "
              f"({folder['load'][1] / folder['load'][0]:.2f} cores busy on average), peak RSS "
              f"{folder['load'][2] / 1024:.0f} MB."]
    if append:
        lines += ["", append_line(append)]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profdb")
    ap.add_argument("source")
    ap.add_argument("folder_source")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="100,1000,3000")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--floor", help="profdb-floor (default: next to PROFDB)")
    ap.add_argument("--append-trace", default=os.path.join(
        HERE, "..", "..", "shared", "data", "public", "AMD-AGI__TraceLens",
        "gaunernst_bert-small-uncased__1016001.json.gz"),
        help="the ~1 MB trace appended to the largest size's database")
    ap.add_argument("--report-only", action="store_true",
                    help="only json_verify, load, report and diff per size")
    ap.add_argument("--baseline", help="another build's profdb, measured the same way")
    ap.add_argument("--baseline-queries", help="its query files (PROFDB_QUERIES)")
    ap.add_argument("--hta", help="HTA source checkout: time its parse + temporal breakdown")
    ap.add_argument("--hta-max-mb", type=int,
                    help="HTA only on sizes up to this (it takes ~6 min per GB here)")
    ap.add_argument("--load-only", action="store_true",
                    help="only json_verify and the load, with its phases (load_phases.py)")
    a = ap.parse_args()
    if a.load_only:
        sys.path.insert(0, HERE)
        from load_phases import run  # noqa: E402
        text = run(a.profdb, a.source, a.work, [int(x) for x in a.sizes.split(",")], a.repeat,
                   a.baseline)
        print(text)
        if a.out:
            write_block(a.out, "bench-load", sys.argv[1:], text)
        return
    if a.report_only:
        os.makedirs(a.work, exist_ok=True)
        baseline = (a.baseline, a.baseline_queries) if a.baseline else None
        results, prev = [], None
        t0 = time.time()
        for mb in (int(x) for x in a.sizes.split(",")):
            print(f"bench: {mb} MB ...", file=sys.stderr, flush=True)
            r = bench_report(a.profdb, a.source, a.work, mb, a.repeat, prev, baseline, a.hta,
                             a.hta_max_mb)
            prev = {"new": r["new_db"], "base": r.get("base_db")}
            results.append(r)
        text = report_table(results, machine(), baseline)
        print(text)
        print(f"bench: {time.time() - t0:.0f} s", file=sys.stderr)
        if a.out:
            write_block(a.out, "bench-report", sys.argv[1:], text)
        return
    floor = a.floor or os.path.join(os.path.dirname(os.path.abspath(a.profdb)), "profdb-floor")
    if not os.access(floor, os.X_OK):
        sys.exit(f"bench: {floor} not found (built with profdb: cmake --build build;"
                 " or give --floor PATH)")
    os.makedirs(a.work, exist_ok=True)
    for tool in ("json_verify", "zcat", "sqlite3"):
        if not shutil.which(tool):
            sys.exit(f"bench: {tool} not found (apt-get install yajl-tools gzip sqlite3)")
    with open("/proc/meminfo") as f:
        mem_gib = int(f.readline().split()[1]) / (1 << 20)
    t0 = time.time()
    results = []
    for mb in (int(x) for x in a.sizes.split(",")):
        print(f"bench: {mb} MB ...", file=sys.stderr, flush=True)
        results.append(bench_size(a.profdb, a.source, a.work, mb, a.repeat, mem_gib))
        results[-1]["floor"] = bench_floor(floor, os.path.join(a.work, f"trace_{mb}.db"),
                                           a.work, a.repeat)
    print("bench: peak replay, folder ...", file=sys.stderr, flush=True)
    replay = bench_replay(a.profdb, a.work, a.repeat)
    folder = bench_folder(a.profdb, a.folder_source, a.work, a.repeat)
    append = None
    if os.path.exists(a.append_trace):
        print("bench: append ...", file=sys.stderr, flush=True)
        base_mb = min((mb for mb in (r["mb"] for r in results) if mb >= 1000),
                      default=max(r["mb"] for r in results))
        append = dict(bench_append(a.profdb, a.work, a.append_trace, base_mb, a.repeat),
                      small=a.append_trace)
    text = tables(results, replay, folder, machine(), append)
    print(text)
    print(f"bench: {time.time() - t0:.0f} s", file=sys.stderr)
    if a.out:
        begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
        old = open(a.out).read() if os.path.exists(a.out) else f"{begin}\n{end}\n"
        head, rest = old.split(begin, 1)
        tail = rest.split(end, 1)[1]
        block = (f"{begin}\n<!-- written by bench/bench.py {' '.join(sys.argv[1:])} -->\n\n"
                 f"{text}\n\n{end}")
        with open(a.out, "w") as f:
            f.write(head + block + tail)


if __name__ == "__main__":
    main()
