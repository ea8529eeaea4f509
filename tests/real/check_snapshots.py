#!/usr/bin/env python3
"""Check profdb's snapshot loader against the public memory snapshots.

    check_snapshots.py PROFDB DATA_DIR WORK_DIR

Loads every snapshot listed in DATA_DIR/MANIFEST.md with one `profdb load`
call and checks, per file:
  * segment and block counts, blocks per state and trace entries per action
    equal MANIFEST.md;
  * the sums of total_size, allocated_size and active_size, the number of
    trace entries per device and the sum of their sizes per action equal an
    independent computation here (Python's json);
  * stacks are interned: the database holds exactly one stack per distinct
    frame list seen in all the files together, and every block/entry points
    at a stack with its own frames;
  * PyTorch 2.0 blocks (no address in the file) get the segment address plus
    the sizes of the blocks before them.
Exits 77 (skipped) when DATA_DIR does not exist.
"""
import collections
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys


def manifest_snapshots(data_dir):
    rows = []
    with open(os.path.join(data_dir, "MANIFEST.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.split("|")]
            if len(cells) < 12 or not cells[7].startswith("snapshot"):
                continue
            m = re.match(r"segments=(\d+); blocks=(\d+) \((.*)\); device_traces entries=(\d+)"
                         r" \((.*)\)$", cells[9])
            if not m:
                raise SystemExit(f"cannot read the counts cell of {cells[1]}")

            def counts(text):
                return {k: int(v) for k, v in (i.split(":") for i in text.split(", "))}

            rows.append((cells[1], int(m.group(1)), int(m.group(2)), counts(m.group(3)),
                         int(m.group(4)), counts(m.group(5))))
    return rows


def frames_key(frames):
    return tuple((f.get("filename"), f.get("line"), f.get("name")) for f in frames)


def main():
    profdb, data_dir, work = sys.argv[1:4]
    if not os.path.isdir(data_dir):
        print(f"skipped: {data_dir} does not exist")
        return 77
    os.makedirs(work, exist_ok=True)
    rows = manifest_snapshots(data_dir)
    db_path = os.path.join(work, "public_snapshots.db")
    if os.path.exists(db_path):
        os.remove(db_path)
    r = subprocess.run([profdb, "load", "-q", "-o", db_path]
                       + [os.path.join(data_dir, row[0]) for row in rows],
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

    all_stacks = set()
    for rel, n_seg, n_blocks, by_state, n_entries, by_action in rows:
        path = os.path.join(data_dir, rel)
        got = db.execute("SELECT snapshot_id, segments, blocks, trace_entries, status"
                         " FROM snapshot WHERE path = ?", (path,)).fetchone()
        if not got:
            fail(f"{rel}: not in the database")
            continue
        sid, segs, blocks, entries, status = got
        if (segs, blocks, entries, status) != (n_seg, n_blocks, n_entries, "ok"):
            fail(f"{rel}: {segs} segments, {blocks} blocks, {entries} entries, {status}")
        db_state = dict(db.execute("SELECT state, count(*) FROM block WHERE snapshot_id = ?"
                                   " GROUP BY 1", (sid,)))
        if db_state != by_state:
            fail(f"{rel}: blocks per state {db_state} != manifest {by_state}")
        db_action = dict(db.execute("SELECT action, count(*) FROM alloc_event"
                                    " WHERE snapshot_id = ? GROUP BY 1", (sid,)))
        if db_action != by_action:
            fail(f"{rel}: entries per action {db_action} != manifest {by_action}")

        # Independent figures from the JSON itself.
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            snap = json.load(f)
        segments = snap["segments"] if isinstance(snap, dict) else snap
        sums = tuple(sum(s[k] for s in segments)
                     for k in ("total_size", "allocated_size", "active_size"))
        db_sums = db.execute("SELECT sum(total_size), sum(allocated_size), sum(active_size)"
                             " FROM segment WHERE snapshot_id = ?", (sid,)).fetchone()
        if tuple(db_sums) != sums:
            fail(f"{rel}: size sums {tuple(db_sums)} != reference {sums}")
        ref_sizes = collections.Counter()
        ref_per_device = collections.Counter()
        for dev, trace in enumerate(snap.get("device_traces", [])):
            for e in trace:
                ref_sizes[e["action"]] += e.get("size", 0)
                ref_per_device[dev] += 1
                all_stacks.add(frames_key(e["frames"])) if e.get("frames") else None
        db_sizes = dict(db.execute("SELECT action, sum(size) FROM alloc_event"
                                   " WHERE snapshot_id = ? GROUP BY 1", (sid,)))
        if db_sizes != dict(ref_sizes):
            fail(f"{rel}: sizes per action {db_sizes} != reference {dict(ref_sizes)}")
        db_dev = dict(db.execute("SELECT device, count(*) FROM alloc_event"
                                 " WHERE snapshot_id = ? GROUP BY 1", (sid,)))
        if db_dev != dict(ref_per_device):
            fail(f"{rel}: entries per device {db_dev} != {dict(ref_per_device)}")

        # Block addresses, and stacks of blocks compared frame by frame.
        db_blocks = db.execute(
            "SELECT b.address, b.size, b.stack_id FROM block b JOIN segment s"
            " USING (segment_id) WHERE b.snapshot_id = ? ORDER BY s.segment_id, b.position",
            (sid,)).fetchall()
        ref_blocks = []
        for s in segments:
            if s.get("frames"):
                all_stacks.add(frames_key(s["frames"]))
            addr = s["address"]
            for b in s["blocks"]:
                frames = b.get("frames")
                if frames is None and b.get("history"):
                    frames = b["history"][0].get("frames")
                if frames:
                    all_stacks.add(frames_key(frames))
                for h in b.get("history", []):
                    if h.get("frames"):
                        all_stacks.add(frames_key(h["frames"]))
                ref_blocks.append((b.get("address", addr), b["size"], frames_key(frames or [])))
                addr += b["size"]
        if len(db_blocks) != len(ref_blocks):
            fail(f"{rel}: {len(db_blocks)} blocks != {len(ref_blocks)}")
        mismatches = 0
        for (a, size, stack), (ra, rsize, rframes) in zip(db_blocks, ref_blocks):
            frames = tuple(db.execute(
                "SELECT filename, line, name FROM stack_frame WHERE stack_id = ?"
                " ORDER BY depth", (stack,))) if stack is not None else ()
            if (a, size, frames) != (ra, rsize, rframes):
                mismatches += 1
        if mismatches:
            fail(f"{rel}: {mismatches} blocks differ in address, size or frames")
        print(f"ok {rel}: {n_seg} segments, {n_blocks} blocks, {n_entries} entries")

    db_stacks = db.execute("SELECT count(DISTINCT stack_id) FROM stack_frame").fetchone()[0]
    if db_stacks != len(all_stacks):
        fail(f"{db_stacks} stacks stored, {len(all_stacks)} distinct frame lists in the files")
    else:
        print(f"ok: {db_stacks} distinct stacks stored once each")
    print(f"{len(rows)} snapshots checked, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
