#!/usr/bin/env python3
"""Replicate a real job's ranks: the job model's scaling benchmark (issue 23).

    replicate_ranks.py SOURCE... --ranks N -o OUT_DIR [--gzip]

SOURCE is the traces of one job (files or a folder of *.json / *.json.gz),
e.g. the public 8-rank DLRM job.  OUT_DIR gets N traces, rank0000.json ...:
rank i is a byte-for-byte copy of source rank (i mod k) (k source traces,
taken in rank order) with only its distributedInfo rewritten: rank = i,
world_size = N, and a process group spanning the whole source world
(pg_size = the source world size) spanning the N ranks.  Events and times
are untouched, so the copies of a rank arrive at every collective exactly
when it did: a job of N ranks that behave like the k real ones.

What replication must not change (tests/report/check_job.py): every finding,
saving and percentage (they are per job step), the diff against the source
job, and the report's length beyond the 1.3x the issue allows; what it may
change is only the report's cost, linear in N (bench/job_bench.sh).
"""
import argparse
import gzip
import json
import os
import sys

KEY = '"distributedInfo"'


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def sources(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += [os.path.join(p, f) for f in sorted(os.listdir(p))
                      if f.endswith((".json", ".json.gz"))]
        else:
            files.append(p)
    out = []
    for f in files:
        text = read(f)
        at = text.find(KEY)
        if at < 0:
            sys.exit(f"replicate_ranks.py: {f}: no distributedInfo (not a rank of a job)")
        start = text.index("{", at + len(KEY))
        info, end = json.JSONDecoder().raw_decode(text, start)
        out.append((info.get("rank", 0), f, text, start, end, info))
    out.sort(key=lambda s: (s[0], s[1]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", nargs="+")
    ap.add_argument("--ranks", type=int, required=True, help="ranks of the replica job")
    ap.add_argument("-o", "--out", required=True, help="output folder (created)")
    ap.add_argument("--gzip", action="store_true", help="write .json.gz")
    a = ap.parse_args()
    src = sources(a.source)
    if a.ranks < 1:
        sys.exit("replicate_ranks.py: --ranks must be at least 1")
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.ranks):
        _, _, text, start, end, info = src[i % len(src)]
        info = dict(info)
        world = info.get("world_size")
        info["rank"] = i
        info["world_size"] = a.ranks
        if "pg_config" in info:
            pgs = []
            for pg in info["pg_config"]:
                pg = dict(pg)
                if world is not None and pg.get("pg_size") == world:
                    pg["pg_size"] = a.ranks
                    pg["ranks"] = list(range(a.ranks))
                pgs.append(pg)
            info["pg_config"] = pgs
        body = text[:start] + json.dumps(info) + text[end:]
        name = os.path.join(a.out, f"rank{i:04d}.json" + (".gz" if a.gzip else ""))
        if a.gzip:
            with gzip.open(name, "wt", encoding="utf-8", compresslevel=1) as f:
                f.write(body)
        else:
            with open(name, "w", encoding="utf-8") as f:
                f.write(body)
    print(f"{a.out}: {a.ranks} ranks from {len(src)} source trace(s)")


if __name__ == "__main__":
    main()
