#!/usr/bin/env python3
"""`profdb load` against `json_verify -q`, phase by phase (issue 42).

    load_phases.py PROFDB SOURCE WORK [--sizes 100,300,1000] [--repeat 3]
                   [--baseline OTHER_PROFDB] [--out docs/performance.md]

(also `bench.py ... --load-only`).  For each size (MB of JSON, made from
SOURCE by scale_trace.py, as bench.py does) it runs, interleaved, --repeat
times: `json_verify -q` on the file, `profdb load` of this build and of
--baseline when given (each load into a fresh database).  Every figure is
the best of its runs, and the ratios compare figures of the same run (the
machine is shared: see docs/performance.md).  One more load of each build
runs with PROFDB_TIMING=1; its phases (loader/parse.c, ld_phase) are
printed as seconds and as a share of that load, grouped as the issue
names them:

  parse            reading, tokens, rows; the writer thread inserts them
  nesting / attr.  `nesting: sort` (the final merge of the slices' keys),
                   `nesting: pass` (parent, depth, self time, busy intervals,
                   operator totals, attribution rows), `nesting: tree rows`
                   (the `_slice_tree` rows, sorted), `nesting: writer` (the
                   wait for the writer thread, which meanwhile built the
                   indexes and inserted those rows), `nesting` (the
                   attribution texts)
  GPU links        `flow stats`, `gpu links`, `spans`, `link stats`
  index build      `indexes` (the secondary indexes, each built by one sort
                   once the rows are in; a build that maintained them during
                   the parse shows none, and one that builds them on the
                   writer thread during the nesting shows their seconds in
                   the last column, not here) and `analyze`
  commit, fsync    `commit, close`, `fsync, rename` (the durable publish)

Rows written per event: the rows of every table of the database over the
trace's events.
"""
import argparse
import os
import re
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
GROUPS = [
    ("parse", ("parse", "writer drain")),
    ("nesting / attribution", ("nesting: sort", "nesting: pass", "nesting: tree rows",
                               "nesting: writer", "nesting")),
    ("GPU links", ("flow stats", "gpu links", "spans", "link stats")),
    ("index build, analyze", ("indexes", "analyze")),
    ("commit, fsync, rename", ("commit, close", "fsync, rename")),
]
TIMING = re.compile(r"^profdb: timing: (.+?)\s+([0-9.]+) s$")
WAITED = re.compile(r"parser waited for the writer ([0-9.]+) s, writer idle ([0-9.]+) s")
MEANWHILE = re.compile(r"writer thread meanwhile: indexes and scripts ([0-9.]+) s, rows ([0-9.]+) s,"
                       r" idle ([0-9.]+) s")


def timed(cmd, env=None, stdin=None):
    """(wall s, user+sys s, peak RSS KB, stderr) via /usr/bin/time."""
    tf = "/tmp/profdb-load-phases-time.txt"
    full = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", tf] + cmd
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as f:
        r = subprocess.run(full, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd}: exit {r.returncode}: {r.stderr.decode()[-400:]}")
    with open(tf) as f:
        wall, user, sys_, rss = f.read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss), r.stderr.decode()


def load(exe, plain, db, env=None):
    if os.path.exists(db):
        os.unlink(db)
    return timed([exe, "load", "--no-progress", plain, "-o", db], env=env)


def phases(stderr):
    got, waited = {}, None
    for line in stderr.splitlines():
        m = MEANWHILE.search(line)
        if m:
            got["(writer thread: indexes)"] = float(m.group(1))
            got["(writer thread: nesting rows)"] = float(m.group(2))
        m = TIMING.match(line.strip())
        if m:
            got[m.group(1)] = got.get(m.group(1), 0.0) + float(m.group(2))
        m = WAITED.search(line)
        if m:
            waited = (float(m.group(1)), float(m.group(2)))
    return got, waited


def rows_written(db):
    c = sqlite3.connect(db)
    tables = [t for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                      " AND name NOT LIKE 'sqlite_%'")]
    rows = sum(c.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables)
    events = c.execute("SELECT sum(events) FROM trace").fetchone()[0] or 1
    return rows, events


def bench(builds, source, work, mb, repeat):
    plain = os.path.join(work, f"trace_{mb}.json")
    if not os.path.exists(plain):
        subprocess.run([PY, os.path.join(HERE, "scale_trace.py"), source, plain, str(mb)],
                       check=True)
    r = {"mb": mb, "bytes": os.path.getsize(plain), "verify": [], "load": {}, "timing": {}}
    for _ in range(repeat):  # interleaved: each round sees the same machine
        r["verify"].append(timed(["json_verify", "-q"], stdin=plain)[:3])
        for tag, exe in builds:
            db = os.path.join(work, f"trace_{mb}.{tag}.db")
            r["load"].setdefault(tag, []).append(load(exe, plain, db)[:3])
    for tag, exe in builds:
        db = os.path.join(work, f"trace_{mb}.{tag}.db")
        out = load(exe, plain, db, env=dict(os.environ, PROFDB_TIMING="1"))
        r["timing"][tag] = (out[0],) + phases(out[3])
        r["rows_" + tag] = rows_written(db)
    return r


def best(runs):
    return min(x[0] for x in runs), min(x[1] for x in runs), max(x[2] for x in runs)


def tables(results, builds):
    lines = ["| JSON | build | `json_verify -q` wall / CPU | `profdb load` wall / CPU "
             "| load / verify (wall) | load / verify (CPU) | MB/s | peak RSS | rows / event |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        vw, vc, _ = best(r["verify"])
        for tag, _ in builds:
            lw, lc, rss = best(r["load"][tag])
            rows, events = r["rows_" + tag]
            lines.append(f"| {r['bytes'] / 1e6:.0f} MB | {tag} | {vw:.2f} s / {vc:.2f} s "
                         f"| {lw:.2f} s / {lc:.2f} s | {lw / vw:.2f}x | {lc / vc:.2f}x "
                         f"| {r['bytes'] / 1e6 / lw:.0f} | {rss / 1024:.0f} MB "
                         f"| {rows / events:.2f} |")
    lines += ["", "Phases (`PROFDB_TIMING=1`, one more load of each build; share of that "
              "load's wall time):", "",
              "| JSON | build | " + " | ".join(g for g, _ in GROUPS) + " | total | parser "
              "waited for the writer / writer idle |",
              "|---:|---|" + "---:|" * (len(GROUPS) + 2)]
    for r in results:
        for tag, _ in builds:
            wall, got, waited = r["timing"][tag]
            total = sum(v for k, v in got.items() if not k.startswith("(")) or 1
            cells = []
            for _, names in GROUPS:
                s = sum(got.get(n, 0.0) for n in names)
                cells.append(f"{s:.2f} s ({100 * s / total:.0f}%)")
            w = f"{waited[0]:.2f} s / {waited[1]:.2f} s" if waited else ""
            if "(writer thread: indexes)" in got:  # this round's build: the post-pass overlaps
                w += (f"; during the nesting the writer thread built the indexes "
                      f"({got['(writer thread: indexes)']:.2f} s) and inserted "
                      f"({got['(writer thread: nesting rows)']:.2f} s)")
            lines.append(f"| {r['bytes'] / 1e6:.0f} MB | {tag} | " + " | ".join(cells)
                         + f" | {total:.2f} s | {w} |")
    return "\n".join(lines)


def run(profdb, source, work, sizes, repeat, baseline=None):
    os.makedirs(work, exist_ok=True)
    builds = [("this", profdb)] + ([("baseline", baseline)] if baseline else [])
    results = []
    for mb in sizes:
        print(f"load_phases: {mb} MB ...", file=sys.stderr, flush=True)
        results.append(bench(builds, source, work, mb, repeat))
    return tables(results, builds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profdb")
    ap.add_argument("source")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="100,300,1000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", help="another build's profdb, measured in the same rounds")
    ap.add_argument("--out", help="write the tables between its bench-load markers")
    a = ap.parse_args()
    text = run(a.profdb, a.source, a.work, [int(x) for x in a.sizes.split(",")], a.repeat,
               a.baseline)
    print(text)
    if a.out:
        sys.path.insert(0, HERE)
        from bench import write_block  # noqa: E402
        write_block(a.out, "bench-load", sys.argv[1:], text)


if __name__ == "__main__":
    main()
