#!/usr/bin/env python3
"""Fuzz profdb's reading of datasets (issue 40): hostile summaries.

    fuzz_dataset.py PROFDB WORK_DIR [--seconds N] [--seed S] [--traces T1 T2]

Exports two ranks into a dataset once, then, until the budget is spent,
copies it, mutates one rank's summary and runs `profdb report DIR` (and now
and then `profdb diff DIR DIR`) on the copy.  Mutations:
  - SQL on the summary's database: tables dropped, renamed, re-typed or
    replaced by views; triggers and views of its own; SQL text hidden after
    a view's CREATE; an index list of SQL to run (_summary_index, as earlier
    releases executed it); hostile values (huge, NUL, invalid UTF-8, other
    types, extreme integers, duplicate and negative ids); rows deleted;
  - bytes of the database flipped, the header's page count or size changed;
  - the zstd stream cut, its bytes flipped, frames appended (another
    rank's, a frame of zeros), an empty file, a sparse tail (a size that
    says nothing of the bytes);
  - generated columns (whose expressions a SELECT would run);
  - the summary replaced by a FIFO, a link, a folder.
Every run must end by itself (a timeout is a hang), with exit 0-3, without
a sanitizer report, a signal, an "internal error" or "not an error"
message, and without writing anything outside its work folder (a canary
folder beside it stays empty).  A failing input is kept under
WORK_DIR/failures/N/ with what went wrong; exit 1 when there is one.
Prints the executions and what the runs ended with.
"""
import argparse
import collections
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(ROOT, "docs", "examples", "generated_gpu_run")

HOSTILE_VALUES = [
    None, 0, -1, 2**63 - 1, -2**63, 1e308, float("inf"), "", "x" * 100000,
    "a\x00b", b"\xff\xfe\x00", "\x1b[2J\x07", "=cmd|' /C calc'!A0", "'; DROP TABLE trace; --",
    b"\x00" * 1000, "kernel", 3.5, "9" * 40,
]


def sql_mutations(canary):
    """SQL texts, each one mutation of a summary database."""
    attack = (f"ATTACH '{canary}/owned.db' AS x; CREATE TABLE x.t(m); INSERT INTO x.t VALUES(1)")
    return [
        "DROP TABLE {table}",
        "ALTER TABLE {table} RENAME TO {table}_old",
        "ALTER TABLE {table} ADD COLUMN fuzz_extra TEXT",
        "DROP TABLE {table}; CREATE VIEW {table} AS SELECT 1 AS id",
        "DROP TABLE {table}; CREATE TABLE {table}(id TEXT)",
        "CREATE TRIGGER fuzz_t AFTER INSERT ON {table} BEGIN SELECT 1; END",
        "CREATE TABLE IF NOT EXISTS _summary_index(name TEXT PRIMARY KEY, sql TEXT NOT NULL);"
        f" INSERT INTO _summary_index VALUES('0', '{attack.replace(chr(39), chr(39) * 2)}')",
        "CREATE TABLE IF NOT EXISTS _summary_index(name TEXT PRIMARY KEY, sql TEXT NOT NULL);"
        " INSERT INTO _summary_index VALUES('0', 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL"
        " SELECT x+1 FROM c) SELECT count(*) FROM c')",
        "CREATE VIEW fuzz_v AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c)"
        " SELECT x FROM c",
        "ALTER TABLE {table} ADD COLUMN fuzz_gen GENERATED ALWAYS AS (randomblob(1000000)) VIRTUAL",
        "DELETE FROM {table}",
        "DELETE FROM {table} WHERE rowid % 2 = 0",
        "UPDATE _profdb SET value = 999 WHERE key = 'schema_version'",
        "DELETE FROM _string WHERE rowid % 3 = 0",
        "UPDATE _string SET value = (SELECT value FROM _string LIMIT 1)",
        "INSERT INTO _string(value) SELECT value FROM _string",
        "UPDATE trace SET trace_id = -trace_id",
        "UPDATE _slice SET id = id + 1000000000000",
        "UPDATE _gpu SET trace_id = 2",
    ]


def tables_of(db):
    c = sqlite3.connect(db)
    try:
        return [r[0] for r in c.execute("SELECT name FROM sqlite_schema WHERE type = 'table'"
                                        " AND name NOT LIKE 'sqlite%'")]
    finally:
        c.close()


def columns_of(c, table):
    return [r[1] for r in c.execute(f'PRAGMA table_info("{table}")')]


def mutate_sql(rng, plain, canary):
    tables = tables_of(plain)
    table = rng.choice(tables)
    c = sqlite3.connect(plain)
    try:
        if rng.random() < 0.35:  # hostile values into a random column of a random table
            cols = columns_of(c, table)
            col = rng.choice(cols)
            v = rng.choice(HOSTILE_VALUES)
            if rng.random() < 0.5:
                c.execute(f'UPDATE "{table}" SET "{col}" = ? WHERE rowid IN'
                          f' (SELECT rowid FROM "{table}" ORDER BY random() LIMIT 3)', (v,))
                what = f"UPDATE {table}.{col} = {v!r:.60}"
            else:
                c.execute(f'INSERT INTO "{table}" SELECT * FROM "{table}" LIMIT 2')
                what = f"duplicate rows of {table}"
        elif rng.random() < 0.15:  # SQL hidden after a view's CREATE text
            views = [r[0] for r in c.execute("SELECT name FROM sqlite_schema WHERE type='view'")]
            if not views:
                return "no view"
            view = rng.choice(views)
            (sql,) = c.execute("SELECT sql FROM sqlite_schema WHERE name=?", (view,)).fetchone()
            ver = c.execute("PRAGMA schema_version").fetchone()[0]
            c.execute("PRAGMA writable_schema = ON")
            c.execute("UPDATE sqlite_schema SET sql = ? WHERE name = ?",
                      (sql + f"; ATTACH '{canary}/view.db' AS x", view))
            c.execute(f"PRAGMA schema_version = {ver + 1}")
            what = f"SQL after view {view}"
        else:
            m = rng.choice(sql_mutations(canary)).format(table=f'"{table}"')
            c.executescript(m)
            what = m[:120]
        c.commit()
        return what
    except sqlite3.Error as e:
        return f"(sqlite refused: {e})"
    finally:
        c.close()


def mutate_bytes(rng, data):
    b = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0 and b:
        for _ in range(rng.randint(1, 16)):
            i = rng.randrange(len(b))
            b[i] = rng.randrange(256)
        return bytes(b), "bytes flipped"
    if kind == 1 and len(b) > 100:  # the header's page size / page count
        off = rng.choice([16, 28, 24, 92])
        b[off:off + 4] = rng.randbytes(4)
        return bytes(b), f"header bytes at {off}"
    if kind == 2:
        return bytes(b[:rng.randrange(len(b) + 1)]), "database cut"
    return bytes(b) + rng.randbytes(rng.randint(1, 4096)), "bytes appended"


def zstd(data, level=3):
    return subprocess.run(["zstd", "-q", f"-{level}", "-c"], input=data, capture_output=True,
                          check=True).stdout


def unzstd(path, out):
    subprocess.run(["zstd", "-q", "-d", "-f", path, "-o", out], check=True)


class Fuzzer:
    def __init__(self, args):
        self.profdb = os.path.abspath(args.profdb)
        self.work = os.path.abspath(args.work)
        self.rng = random.Random(args.seed)
        self.seconds = args.seconds
        self.outcomes = collections.Counter()
        self.failures = 0
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.base = os.path.join(self.work, "base")
        self.canary = os.path.join(self.work, "canary")
        os.makedirs(self.canary)
        for t in args.traces:
            r = subprocess.run([self.profdb, "export", t, "-o", self.base, "--run", "j1", "-q"],
                               capture_output=True)
            if r.returncode not in (0, 3):
                sys.exit(f"cannot export {t}: {r.stderr.decode(errors='replace')}")
        self.summaries = sorted(
            os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(self.base, "_summary"))
            for f in fs if f.endswith(".db.zst"))
        self.plains = []
        for i, s in enumerate(self.summaries):
            p = os.path.join(self.work, f"plain{i}.db")
            unzstd(s, p)
            self.plains.append(p)

    def mutate(self, ds):
        """Mutate one summary of the dataset copy ds; returns what was done."""
        i = self.rng.randrange(len(self.summaries))
        target = os.path.join(ds, os.path.relpath(self.summaries[i], self.base))
        choice = self.rng.random()
        if choice < 0.45:
            plain = os.path.join(ds, "..", "m.db")
            shutil.copyfile(self.plains[i], plain)
            what = mutate_sql(self.rng, plain, self.canary)
            if self.rng.random() < 0.3:
                what += " + " + self.mutate_sql_again(plain)
            data = open(plain, "rb").read()
            os.unlink(plain)
            with open(target, "wb") as f:
                f.write(zstd(data))
            return what
        if choice < 0.65:
            data, what = mutate_bytes(self.rng, open(self.plains[i], "rb").read())
            with open(target, "wb") as f:
                f.write(zstd(data))
            return what
        if choice < 0.9:
            comp = open(target, "rb").read()
            kind = self.rng.randrange(6)
            if kind == 0:
                comp, what = comp[:self.rng.randrange(len(comp) + 1)], "zstd cut"
            elif kind == 1:
                comp, what = mutate_bytes(self.rng, comp)[0], "zstd bytes changed"
            elif kind == 2:
                comp += open(self.summaries[(i + 1) % len(self.summaries)], "rb").read()
                what = "another rank's frame appended"
            elif kind == 3:
                comp += zstd(b"\0" * (64 << 20), 19)
                what = "64 MiB of zeros appended"
            elif kind == 4:
                comp, what = b"", "empty summary"
            else:  # a sparse tail: the file's size says nothing of its bytes
                with open(target, "wb") as f:
                    f.write(comp + zstd(b"\0" * (64 << 20), 19))
                os.truncate(target, os.path.getsize(target) + (1 << 30))
                return "sparse tail after 64 MiB of zeros"
            with open(target, "wb") as f:
                f.write(comp)
            return what
        os.unlink(target)
        kind = self.rng.randrange(4)
        if kind == 0:
            os.mkfifo(target)
            return "FIFO"
        if kind == 1:
            os.symlink(self.summaries[i], target)
            return "link to a real summary"
        if kind == 2:
            os.symlink("/dev/zero", target)
            return "link to /dev/zero"
        os.mkdir(target)
        return "folder"

    def mutate_sql_again(self, plain):
        return mutate_sql(self.rng, plain, self.canary)

    def one(self, n):
        case = os.path.join(self.work, "case")
        shutil.rmtree(case, ignore_errors=True)
        os.makedirs(case)
        ds = os.path.join(case, "ds")
        shutil.copytree(self.base, ds, symlinks=True)
        what = self.mutate(ds)
        tmp = os.path.join(case, "tmp")
        os.makedirs(tmp)
        env = dict(os.environ, TMPDIR=tmp, PROFDB_QUERY_TIMEOUT="20",
                   ASAN_OPTIONS="detect_leaks=1:abort_on_error=1",
                   UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
        cmd = ([self.profdb, "diff", ds, ds, "--json", os.path.join(case, "out.json")]
               if self.rng.random() < 0.2 else
               [self.profdb, "report", ds, "--json", os.path.join(case, "out.json")])
        t = time.time()
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=90, env=env, stdin=subprocess.DEVNULL)
            rc, err = r.returncode, r.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = "hang", ""
        problems = []
        if rc == "hang":
            problems.append("no end within 90 s")
        elif rc < 0 or rc not in (0, 1, 2, 3):
            problems.append(f"exit {rc}")
        for bad in ("AddressSanitizer", "runtime error:", "LeakSanitizer", "not an error",
                    "internal error"):
            if bad in err:
                problems.append(f"stderr has {bad!r}")
        if os.listdir(self.canary):
            problems.append(f"files written outside: {os.listdir(self.canary)}")
        leftovers = os.listdir(tmp)
        if leftovers:
            problems.append(f"temporaries left in TMPDIR: {leftovers}")
        self.outcomes[rc] += 1
        if rc == 2:  # an I/O or database error: legitimate, but worth reading
            with open(os.path.join(self.work, "exit2.txt"), "a") as f:
                f.write(f"#{n} {what}: {err.strip()[-500:]}\n")
        if problems:
            self.failures += 1
            keep = os.path.join(self.work, "failures", str(self.failures))
            shutil.move(case, keep)
            with open(os.path.join(keep, "what.txt"), "w") as f:
                f.write(f"{what}\n{' '.join(cmd)}\n{problems}\n{err}\n")
            for c in os.listdir(self.canary):
                os.unlink(os.path.join(self.canary, c))
            print(f"FAIL #{n}: {what}: {problems} -> {keep}", flush=True)
        return time.time() - t

    def run(self):
        start, n = time.time(), 0
        while time.time() - start < self.seconds:
            n += 1
            self.one(n)
        print(f"fuzz_dataset: {n} executions in {time.time() - start:.0f} s; exits "
              f"{dict(self.outcomes)}; {self.failures} failing input(s)")
        return 1 if self.failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profdb")
    ap.add_argument("work")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--traces", nargs="+",
                    default=[os.path.join(EXAMPLE, "rank0.pt.trace.json"),
                             os.path.join(EXAMPLE, "rank1.pt.trace.json")])
    args = ap.parse_args()
    if shutil.which("zstd") is None:
        print("skipped: no zstd command")
        sys.exit(77)
    if args.seed is None:
        args.seed = random.randrange(1 << 30)
    print(f"fuzz_dataset: seed {args.seed}", flush=True)
    sys.exit(Fuzzer(args).run())


if __name__ == "__main__":
    main()
