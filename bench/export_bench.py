#!/usr/bin/env python3
"""profdb export: speed next to the load's, dataset size next to the JSON's,
peak memory of a task, and a many-rank replica exported task by task.

    export_bench.py PROFDB TRACE [--ranks N] [--jobs J] [--work DIR]

TRACE is a trace file or a folder of a job's rank traces.  Printed, one
line each (CPU seconds are user + system of the child processes: on a
shared machine they move less than the wall clock):

  load      profdb load TRACE -o DB: wall s, CPU s, JSON MB/s (by CPU time)
  export    profdb export DB -o DIR: wall s, CPU s, JSON MB/s, files, rows
  task      profdb export FILE -o DIR (load + export, per file): wall s,
            CPU s, peak RSS MB of the largest
  size      JSON bytes, database bytes, dataset bytes (zstd Parquet)

With --ranks N (a folder TRACE): N rank files are made from the folder's
traces (rank r is a copy of trace r mod k with distributedInfo.rank = r and
world_size = N), exported task by task (--files LIST --index I, J at a
time), and the dataset is read whole by DuckDB (tests/node's
@duckdb/node-api): ranks seen, kernel rows, seconds to count them and to
read one rank; then the summaries' bytes a rank, `profdb report DIR` and
`profdb diff DIR DIR` (wall, CPU, peak RSS), and their ratio to
`json_verify -q` of the ranks' JSON.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_DIR = os.path.join(HERE, "..", "tests", "node")


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env=None):
    c0, t0 = cpu_children(), time.monotonic()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0, cpu_children() - c0


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def json_bytes(files):
    import gzip
    total = 0
    for f in files:
        with open(f, "rb") as h:
            magic = h.read(2)
        if magic == b"\x1f\x8b":
            with gzip.open(f, "rb") as g:
                while True:
                    b = g.read(1 << 20)
                    if not b:
                        break
                    total += len(b)
        else:
            total += os.path.getsize(f)
    return total


def duckdb(sql_list):
    script = """
import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const out = [];
for (const sql of JSON.parse(process.argv[2])) {
  const t0 = performance.now();
  const r = await con.runAndReadAll(sql);
  out.push({ rows: r.getRowObjectsJson(), s: (performance.now() - t0) / 1000 });
}
console.log(JSON.stringify(out));
"""
    path = os.path.join(NODE_DIR, ".bench_query.mjs")
    with open(path, "w") as f:
        f.write(script)
    try:
        out = subprocess.run(["node", path, json.dumps(sql_list)], check=True,
                             capture_output=True, text=True, cwd=NODE_DIR)
        return json.loads(out.stdout)
    finally:
        os.remove(path)


def timed_rss(cmd):
    """Wall s, CPU s (user + system) and peak RSS MB of cmd."""
    t0 = time.monotonic()
    out = subprocess.run(["/usr/bin/time", "-f", "%U %S %M"] + cmd, check=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    user, system, kb = out.stderr.strip().splitlines()[-1].split()
    return time.monotonic() - t0, float(user) + float(system), int(kb) / 1024


def peak_rss_mb(cmd):
    return timed_rss(cmd)[2]


def report_dir_lines(profdb, dataset, json_paths, work):
    """The job's report and diff from its summaries (issue 43's targets: a
    1024-rank report DIR <= 10 s and <= 200 MB; a rank's summary <= 256 KB),
    next to json_verify -q of the same JSON (a ratio in one run)."""
    json_total = sum(os.path.getsize(p) for p in json_paths)
    sums = [os.path.getsize(os.path.join(root, f))
            for root, _, fs in os.walk(os.path.join(dataset, "_summary")) for f in fs]
    if sums:
        print(f"summary {len(sums)} ranks: {sum(sums) / 1e6:.1f} MB, {sum(sums) / len(sums) / 1e3:.0f}"
              f" KB a rank (largest {max(sums) / 1e3:.0f} KB), {sum(sums) / json_total * 100:.1f}%"
              f" of the JSON")
    md = os.path.join(work, "report_dir.md")
    w, c, rss = timed_rss([profdb, "report", dataset, "--md", md, "-q"])
    n = max(len(sums), 1)
    print(f"report  DIR: {w:.1f} s wall, {c:.1f} s CPU ({w / n * 1000:.1f} ms a rank), peak RSS"
          f" {rss:.0f} MB")
    w2, c2, rss2 = timed_rss([profdb, "diff", dataset, dataset, "--md", md, "-q"])
    print(f"diff    DIR DIR: {w2:.1f} s wall, {c2:.1f} s CPU, peak RSS {rss2:.0f} MB")
    if shutil.which("json_verify"):
        t0 = time.monotonic()
        for path in json_paths:
            with open(path, "rb") as h:
                subprocess.run(["json_verify", "-q"], stdin=h, check=True)
        v = time.monotonic() - t0
        print(f"verify  json_verify -q of every rank's JSON: {v:.1f} s; report DIR {w / v:.2f}x,"
              f" diff {w2 / v:.2f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profdb")
    ap.add_argument("trace")
    ap.add_argument("--ranks", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="profdb-export-bench-")
    os.makedirs(work, exist_ok=True)
    if os.path.isdir(a.trace):
        files = sorted(os.path.join(a.trace, f) for f in os.listdir(a.trace)
                       if f.endswith(".json") or f.endswith(".json.gz"))
    else:
        files = [a.trace]
    jb = json_bytes(files)
    mb = jb / 1e6

    db = os.path.join(work, "bench.db")
    ds = os.path.join(work, "from_db")
    for p in (db, ds):
        shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else (
            os.path.exists(p) and os.remove(p))
    w, c = timed([a.profdb, "load", a.trace, "-o", db, "-q"])
    print(f"load    {w:7.2f} s wall {c:7.2f} s CPU  {mb / c:7.1f} MB/s of JSON by CPU"
          f" ({mb:.1f} MB of JSON, {len(files)} files)")
    w, c = timed([a.profdb, "export", db, "-o", ds, "-q"])
    print(f"export  {w:7.2f} s wall {c:7.2f} s CPU  {mb / c:7.1f} MB/s of JSON by CPU")
    tds = os.path.join(work, "from_tasks")
    shutil.rmtree(tds, ignore_errors=True)
    tw = tc = 0.0
    rss = 0.0
    for f in files:
        w, c = timed([a.profdb, "export", f, "-o", tds, "-q"])
        tw += w
        tc += c
    rss = peak_rss_mb([a.profdb, "export", max(files, key=os.path.getsize), "-o", tds, "-q",
                       "--force"])  # held already: not skipped
    print(f"task    {tw:7.2f} s wall {tc:7.2f} s CPU  {mb / tc:7.1f} MB/s of JSON by CPU"
          f" (load + export, {len(files)} tasks); peak RSS {rss:.0f} MB (largest input)")
    print(f"size    JSON {jb / 1e6:.1f} MB, database {os.path.getsize(db) / 1e6:.1f} MB,"
          f" Parquet dataset {du(ds) / 1e6:.2f} MB ({du(ds) / jb * 100:.1f}% of the JSON)")

    if a.ranks and os.path.isdir(a.trace):
        src = [json.load(open(f)) for f in files if f.endswith(".json")]
        rdir = os.path.join(work, f"replica{a.ranks}")
        shutil.rmtree(rdir, ignore_errors=True)
        os.makedirs(rdir)
        paths = []
        for r in range(a.ranks):
            t = dict(src[r % len(src)])
            t["distributedInfo"] = dict(t.get("distributedInfo") or {}, rank=r,
                                        world_size=a.ranks)
            p = os.path.join(rdir, f"rank{r}.pt.trace.json")
            with open(p, "w") as f:
                json.dump(t, f)
            paths.append(p)
        lst = os.path.join(work, "replica.txt")
        with open(lst, "w") as f:
            f.write("\n".join(paths) + "\n")
        rds = os.path.join(work, f"replica{a.ranks}_dataset")
        shutil.rmtree(rds, ignore_errors=True)
        rjb = sum(os.path.getsize(p) for p in paths)

        def one(i):
            r = subprocess.run([a.profdb, "export", "--files", lst, "--index", str(i), "-o", rds,
                                "-q", "--run", "replica"])
            return r.returncode

        c0, t0 = cpu_children(), time.monotonic()
        with ThreadPoolExecutor(a.jobs) as ex:
            codes = list(ex.map(one, range(a.ranks)))
        w, c = time.monotonic() - t0, cpu_children() - c0
        bad = [i for i, rc in enumerate(codes) if rc != 0]
        print(f"replica {a.ranks} ranks, {rjb / 1e6:.0f} MB of JSON: {w:.1f} s wall, {c:.1f} s CPU"
              f" ({a.jobs} at a time), {len(bad)} tasks failed; dataset"
              f" {du(rds) / 1e6:.1f} MB in {sum(len(f) for _, _, f in os.walk(rds))} files")
        # The whole array again: every input is held (same content and
        # options), so every task is skipped (export/export_record.c).
        c0, t0 = cpu_children(), time.monotonic()
        with ThreadPoolExecutor(a.jobs) as ex:
            codes = list(ex.map(one, range(a.ranks)))
        w, c = time.monotonic() - t0, cpu_children() - c0
        print(f"again   {a.ranks} tasks, every input held: {w:.1f} s wall, {c:.1f} s CPU"
              f" ({c / a.ranks * 1000:.0f} ms a task), {sum(rc != 0 for rc in codes)} failed")
        if shutil.which("node") and os.path.isdir(os.path.join(NODE_DIR, "node_modules")):
            k = f"read_parquet('{rds}/kernel/*/*/*.parquet', hive_partitioning = true)"
            res = duckdb([f"SELECT count(DISTINCT rank) AS ranks, count(*) AS kernels,"
                          f" sum(dur) AS dur FROM {k}",
                          f"SELECT count(*) AS kernels FROM {k} WHERE rank = 517"])
            r0, r1 = res[0]["rows"][0], res[1]["rows"][0]
            print(f"duckdb  ranks {r0['ranks']}, kernel rows {r0['kernels']}, sum(dur)"
                  f" {r0['dur']} ns: {res[0]['s']:.2f} s; rank 517 alone: {r1['kernels']}"
                  f" rows in {res[1]['s']:.3f} s")
        else:
            print("duckdb  skipped (no node or no tests/node/node_modules)")
        report_dir_lines(a.profdb, rds, paths, work)
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
