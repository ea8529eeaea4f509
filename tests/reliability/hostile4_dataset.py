#!/usr/bin/env python3
"""Hostile datasets (issue 40: C1, C1b, C5, C6, C13, L2), one ctest case each.

    hostile4_dataset.py PROFDB CASE WORK_DIR

A dataset (profdb export's folder) and a database given to profdb export
are untrusted input: no SQL text stored in them runs, no link or FIFO in
them is followed, a summary decompresses within bounds, and one that does
not hold profdb's schema is refused with its file named.
"""
import json
import os
import resource
import sqlite3
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile4_common import *  # noqa: E402,F401,F403


def export(src, ds, *extra):
    r = run("export", src, "-o", ds, "--run", "j1", "-q", *extra)
    check(r.returncode in (0, 3), f"export {src}: exit {r.returncode} {r.stderr[-300:]!r}")
    return os.path.join(ds, "_summary", "run=j1", "rank=0.db.zst")


def unpack(summary, plain):
    subprocess.run(["zstd", "-q", "-d", "-f", summary, "-o", plain], check=True)


def repack(plain, summary):
    subprocess.run(["zstd", "-q", "-f", plain, "-o", summary], check=True)
    os.unlink(plain)


def need_zstd():
    if subprocess.run(["sh", "-c", "command -v zstd"], capture_output=True).returncode:
        print("skipped: no zstd command")
        sys.exit(77)


def counts(db):
    c = sqlite3.connect(db)
    try:
        return c.execute("SELECT (SELECT count(*) FROM trace), (SELECT count(*) FROM _slice)").fetchone()
    finally:
        c.close()


def report_json(target, out, **kw):
    r = run("report", target, "--json", out, **kw)
    return r, (json.load(open(out)) if r.returncode == 0 and os.path.exists(out) else None)


def case_c1_dataset_summary_sql():
    """A summary's own SQL (an index list, triggers, a view) never runs in
    report DIR or diff DIR DIR; the report equals the clean dataset's."""
    need_zstd()
    victim, outside = path("victim.db"), path("outside.db")
    check(run("load", TRACE_A, "-o", victim).returncode == 0, "load the victim")
    before = counts(victim)
    summary = export(TRACE_A, path("ds"))
    _, clean = report_json(path("ds"), path("clean.json"))
    plain = path("r0.db")
    unpack(summary, plain)
    c = sqlite3.connect(plain)
    # the list of index statements earlier releases executed, a trigger on
    # each table the merge reads, and SQL after a view's CREATE text
    c.executescript(f"""
      CREATE TABLE IF NOT EXISTS _summary_index(name TEXT PRIMARY KEY, sql TEXT NOT NULL);
      INSERT INTO _summary_index VALUES('0000', 'ATTACH ''{outside}'' AS x;
        CREATE TABLE x.owned(msg); INSERT INTO x.owned VALUES(''index list'')');
      INSERT INTO _summary_index VALUES('0001', 'ATTACH ''{victim}'' AS v; DELETE FROM v._slice;
        DELETE FROM v.trace');
      CREATE TABLE own_table(x);
      CREATE TRIGGER t_own AFTER INSERT ON own_table BEGIN SELECT 1; END;
      CREATE VIEW own_view AS SELECT 1;
    """)
    c.commit()
    c.close()
    repack(plain, summary)
    r, got = report_json(path("ds"), path("r.json"))
    check(r.returncode == 0, f"report DIR exit {r.returncode}: {r.stderr[-400:]!r}")
    r2 = run("diff", path("ds"), path("ds"), "--json", path("diff.json"))
    check(r2.returncode == 0, f"diff DIR DIR exit {r2.returncode}: {r2.stderr[-400:]!r}")
    check(not os.path.exists(outside), "no file written outside the dataset by its SQL")
    check(counts(victim) == before, f"the victim database is intact ({counts(victim)} vs {before})")
    if got and clean:
        got.pop("inputs", None), clean.pop("inputs", None)
        check(got == clean, "the report of the tampered dataset equals the clean one's")


def tamper_view(db, view, extra_sql):
    """Rewrite view's stored CREATE text in db: SQLite parses only its first
    statement when it opens the file, so extra_sql after it is invisible to
    SQLite and to integrity_check, and ran when a program executed the text."""
    c = sqlite3.connect(db)
    (sql,) = c.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (view,)).fetchone()
    ver = c.execute("PRAGMA schema_version").fetchone()[0]
    c.execute("PRAGMA writable_schema = ON")
    c.execute("UPDATE sqlite_schema SET sql = ? WHERE name = ?", (sql + "; " + extra_sql, view))
    c.execute(f"PRAGMA schema_version = {ver + 1}")
    c.commit()
    c.close()


def case_c1b_export_db_schema_sql():
    """profdb export DB runs no CREATE text of the database: a profdb view
    whose stored text differs is refused (exit 2, the view named); a view of
    the user's own is ignored; nothing is written outside."""
    outside = path("outside.db")
    db = path("run.db")
    check(run("load", TRACE_A, "-o", db).returncode == 0, "load")
    attack = f"ATTACH '{outside}' AS x; CREATE TABLE x.owned(m); INSERT INTO x.owned VALUES(1)"
    tamper_view(db, "kernel", attack)
    check(run("report", db, "--json", path("r.json")).returncode == 0,
          "the tampered database still opens and reports (SQLite reads the first statement)")
    r = run("export", db, "-o", path("ds"))
    err = r.stderr.decode("utf-8", "replace")
    check(r.returncode == 2, f"export of a database with a foreign view: exit {r.returncode} (2)")
    check("kernel" in err and "not profdb's" in err, f"the message names the view: {err!r}")
    check(not os.path.exists(outside), "no file written outside by the export")
    check(not os.path.exists(path("ds", "_summary")), "no summary written from that database")
    # a view of the user's own, with SQL after it: ignored, never run
    db2 = path("run2.db")
    check(run("load", TRACE_A, "-o", db2).returncode == 0, "load 2")
    c = sqlite3.connect(db2)
    c.execute("CREATE VIEW my_view AS SELECT 1")
    c.commit()
    c.close()
    tamper_view(db2, "my_view", attack)
    r = run("export", db2, "-o", path("ds2"))
    check(r.returncode in (0, 3), f"export with a user's own view: exit {r.returncode} {r.stderr[-300:]!r}")
    check(not os.path.exists(outside), "the user's view's hidden SQL did not run")


def case_c5_dataset_fifo():
    """A FIFO, a link or a device where a summary should be: refused at
    once (exit 1, the file named), never opened blocking."""
    summary = export(TRACE_A, path("ds"))
    os.unlink(summary)
    os.mkfifo(summary)
    t = time.time()
    r = run("report", path("ds"), "--json", path("r.json"), timeout=60)
    err = r.stderr.decode("utf-8", "replace")
    check(time.time() - t < 30, "report DIR does not block on a FIFO summary")
    check(r.returncode == 1 and "rank=0.db.zst" in err and "not a regular file" in err,
          f"FIFO summary: exit {r.returncode} (1), {err!r}")
    os.unlink(summary)
    os.symlink("/dev/zero", summary)
    r = run("report", path("ds"), "--json", path("r.json"), timeout=60)
    err = r.stderr.decode("utf-8", "replace")
    check(r.returncode == 1 and "symbolic link" in err, f"linked summary: exit {r.returncode} (1), {err!r}")
    # a link where a folder of the dataset should be (a review's case)
    run_dir = os.path.dirname(summary)
    os.unlink(summary)
    real = path("elsewhere")
    os.rename(run_dir, real)
    os.symlink(real, run_dir)
    export(TRACE_A, path("real_ds"))
    os.replace(os.path.join(path("real_ds"), "_summary", "run=j1", "rank=0.db.zst"),
               os.path.join(real, "rank=0.db.zst"))
    r = run("report", path("ds"), "--json", path("r.json"), timeout=60)
    err = r.stderr.decode("utf-8", "replace")
    check(r.returncode == 1 and "run=j1: a symbolic link: not followed" in err,
          f"linked run folder: exit {r.returncode} (1), {err!r}")


def case_c5_dataset_endless_sql():
    """SQL that never ends, stored in a summary, is never run: the report
    of the dataset finishes as fast as the clean one's."""
    need_zstd()
    summary = export(TRACE_A, path("ds"))
    plain = path("r0.db")
    unpack(summary, plain)
    c = sqlite3.connect(plain)
    c.executescript("""
      CREATE TABLE IF NOT EXISTS _summary_index(name TEXT PRIMARY KEY, sql TEXT NOT NULL);
      INSERT INTO _summary_index VALUES('0000',
        'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c');
    """)
    c.commit()
    c.close()
    repack(plain, summary)
    t = time.time()
    r = run("report", path("ds"), "--json", path("r.json"), timeout=120,
            env=dict(os.environ, PROFDB_QUERY_TIMEOUT="20"))
    check(r.returncode == 0 and time.time() - t < 15,
          f"report DIR: exit {r.returncode} in {time.time() - t:.1f} s {r.stderr[-300:]!r}")


def case_c6_dataset_zstd_bomb():
    """A summary that decompresses to a GiB (frames of zeros after the real
    database) is refused after at most 200x its size, quickly."""
    need_zstd()
    summary = export(TRACE_A, path("ds"))
    size0 = os.path.getsize(summary)
    zeros = subprocess.run("head -c 1G /dev/zero | zstd -q -3 -c", shell=True, check=True,
                           capture_output=True).stdout
    with open(summary, "ab") as f:
        f.write(zeros)
    tmp = path("tmp")
    os.mkdir(tmp)
    t = time.time()
    r = run("report", path("ds"), "--json", path("r.json"), timeout=120,
            env=dict(os.environ, TMPDIR=tmp))
    err = r.stderr.decode("utf-8", "replace")
    check(r.returncode == 1 and "zstd bomb" in err and "rank=0.db.zst" in err,
          f"bomb: exit {r.returncode} (1), {err!r}")
    check(time.time() - t < 20, f"refused quickly ({time.time() - t:.1f} s)")
    check(os.listdir(tmp) == [], f"nothing left in TMPDIR ({os.listdir(tmp)})")
    # a sparse tail makes the file's size as large as it likes: the bound
    # counts the compressed bytes read, not the size (a review's attack)
    db_1g = path("big.db")
    c = sqlite3.connect(db_1g)
    c.execute("PRAGMA page_size = 4096")
    c.execute("CREATE TABLE t(x)")
    c.commit()
    c.close()
    head = bytearray(open(db_1g, "rb").read(4096))
    head[28:32] = (262144).to_bytes(4, "big")  # 1 GiB of pages
    head[92:96] = head[24:28]
    bomb = subprocess.run(["zstd", "-q", "-3", "-c"], input=bytes(head) + b"\0" * ((1 << 30) - 4096),
                          capture_output=True, check=True).stdout
    with open(summary, "wb") as f:
        f.write(bomb)
    os.truncate(summary, 100 << 20)
    t = time.time()
    # no file may grow past 64 MiB (SIGXFSZ otherwise): the bomb is 1 GiB
    r = run("report", path("ds"), "--json", path("r.json"), timeout=120,
            env=dict(os.environ, TMPDIR=tmp),
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20)))
    err = r.stderr.decode("utf-8", "replace")
    check(r.returncode == 1 and ("zstd bomb" in err or "damaged summary" in err),
          f"sparse bomb: exit {r.returncode} (1), {err!r}")
    check(time.time() - t < 20, f"sparse bomb refused quickly ({time.time() - t:.1f} s)")
    # restore a real summary for the next check
    export(TRACE_A, path("ds"), "--force")
    size0 = os.path.getsize(summary)
    # the same summary cut inside its database: damaged, not a bomb
    with open(summary, "r+b") as f:
        f.truncate(size0 // 2)
    r = run("report", path("ds"), "--json", path("r.json"))
    err = r.stderr.decode("utf-8", "replace")
    check(r.returncode == 1 and "damaged summary" in err, f"cut summary: exit {r.returncode}, {err!r}")


def case_l2_summary_schema():
    """A summary without one of profdb's tables, or with a table of other
    columns, is refused with its file named (exit 1): a rank's GPU work is
    never dropped silently."""
    need_zstd()
    summary = export(TRACE_A, path("ds"))
    plain = path("r0.db")
    for change, what in (("DROP TABLE _gpu", "_gpu: missing table"),
                         ("ALTER TABLE _gpu ADD COLUMN tampered", "_gpu: other columns"),
                         ("DROP TABLE _gpu; CREATE VIEW _gpu AS SELECT 1", "_gpu: a view, not a table"),
                         # a review's attack: generated columns a SELECT would evaluate
                         # (a 20 MB value a row), behind one column whose name spells
                         # profdb's two ("id INTEGER, value" TEXT)
                         ("DROP TABLE _string; CREATE TABLE _string(\"id INTEGER, value\" TEXT,"
                          " id INTEGER GENERATED ALWAYS AS (1) VIRTUAL,"
                          " value TEXT GENERATED ALWAYS AS (printf('%.*c', 20000000, 'x')) VIRTUAL);"
                          " INSERT INTO _string VALUES('1')",
                          "_string: a generated or hidden column"),
                         ("DROP TABLE _string; CREATE TABLE _string(\"id INTEGER, value\" TEXT)",
                          "_string: other columns")):
        unpack(summary, plain)
        c = sqlite3.connect(plain)
        c.executescript(change)
        c.commit()
        c.close()
        backup = summary + ".orig"
        os.replace(summary, backup)
        repack(plain, summary)
        r = run("report", path("ds"), "--json", path("r.json"))
        err = r.stderr.decode("utf-8", "replace")
        check(r.returncode == 1 and "rank=0.db.zst" in err and what in err,
              f"{change}: exit {r.returncode} (1), {err!r} (wants {what!r})")
        os.replace(backup, summary)


def case_c13_merge_linear():
    """The merge is linear in ranks x strings: 96 ranks of 1,500 names of
    their own take report DIR about as long as report DB of the same traces
    (it was quadratic: 7 s against 1 s at 64 ranks)."""
    ranks, names = 96, 1500
    traces = path("traces")
    os.mkdir(traces)
    for r in range(ranks):
        ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
               "ts": 0, "dur": 10 * names + 10}]
        ev += [{"ph": "X", "cat": "kernel", "name": "rank%d_kernel_%d" % (r, i), "pid": 0, "tid": 7,
                "ts": 10 * i, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": i + 1}}
               for i in range(names)]
        with open(os.path.join(traces, "t%03d.json" % r), "w") as f:
            json.dump({"schemaVersion": 1, "distributedInfo": {"rank": r, "world_size": ranks},
                       "traceEvents": ev}, f)
    check(run("load", traces, "-o", path("all.db")).returncode == 0, "load all ranks")
    # one task a rank, as a job array exports: each summary holds its own names
    for name in sorted(os.listdir(traces)):
        r = run("export", os.path.join(traces, name), "-o", path("ds"), "--run", "j", "-q")
        check(r.returncode in (0, 3), f"export {name}: exit {r.returncode}")

    def timed(target):
        """CPU seconds of one report (children's user + system time)."""
        t0 = os.times()
        r = subprocess.run([ctx.profdb, "report", target, "--section", "run_summary", "--json",
                            path("out.json")], capture_output=True)
        check(r.returncode == 0, f"report {target}: exit {r.returncode} {r.stderr[-300:]!r}")
        t1 = os.times()
        return t1.children_user - t0.children_user + t1.children_system - t0.children_system

    db_s = timed(path("all.db"))
    dir_s = timed(path("ds"))
    print(f"report DB {db_s:.2f} s CPU, report DIR {dir_s:.2f} s CPU ({ranks} ranks x {names} names)")
    check(dir_s < 3 * db_s + 1, f"report DIR ({dir_s:.2f} s) within 3x report DB ({db_s:.2f} s)")


if __name__ == "__main__":
    main(globals())
