#!/usr/bin/env python3
"""The faults of issue 18, one ctest case each (reliability.CASE).

    check.py PROFDB CASE WORK_DIR

Each case rebuilds its reproducer (tests/reliability/data, gen.py) and
asserts the outcome docs/reliability.md promises: exit code, message,
what the database holds, which files exist afterwards.  Every case failed
on the code before the fix.  Exit 77 (skipped) only where the machine
cannot run the case (not root, no 'nobody' user).
"""
import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
ROOT = os.path.dirname(os.path.dirname(HERE))
TRACE_A = os.path.join(ROOT, "tests", "report", "data", "train_rank0.json")
TRACE_B = os.path.join(ROOT, "tests", "report", "data", "train_rank1.json")
PROFDB = WORK = None
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL", msg)
    return ok


def run(*args, **kw):
    return subprocess.run([PROFDB, *args], capture_output=True, **kw)


def gen(shape, size, name):
    out = os.path.join(WORK, name)
    subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), shape, str(size), out],
                   check=True)
    return out


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def integrity(db):
    return rows(db, "PRAGMA integrity_check") == [("ok",)]


def leftovers(folder):
    return [f for f in os.listdir(folder) if ".profdb-" in f]


def cpu_seconds(fn):
    """CPU time (user + sys) of the child processes fn runs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def file_offset_message(stderr, name):
    return re.search(r"profdb: [^\n]*%s:\d+: " % re.escape(name), stderr) is not None


# ---- 1. data loss and security ---------------------------------------------

def case_wal_other_connection():
    """F1: a load into a WAL database another client has open (frames not
    checkpointed, a read transaction running) keeps it intact."""
    db = os.path.join(WORK, "w.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "first load")
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("PRAGMA journal_mode=WAL")
    other.execute("CREATE TABLE notes(x)")
    other.execute("INSERT INTO notes VALUES ('kept')")
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    before = reader.execute("SELECT count(*) FROM trace").fetchone()[0]
    r = run("load", "-q", TRACE_B, "-o", db)
    check(r.returncode == 0, "load into the WAL database: exit %d %s" % (r.returncode, r.stderr))
    check(reader.execute("SELECT count(*) FROM trace").fetchone()[0] == before,
          "a reader's transaction saw the load happen mid-way")
    reader.execute("COMMIT")
    check(reader.execute("SELECT count(*) FROM trace").fetchone()[0] == before + 1,
          "the reader does not see the load after its transaction")
    check(integrity(db), "integrity_check fails while the other client is open")
    check(other.execute("SELECT x FROM notes").fetchall() == [("kept",)],
          "the other client's table was lost")
    reader.close()
    other.close()
    check(integrity(db), "integrity_check fails after every client closed")
    check(rows(db, "SELECT count(*) FROM trace") == [(2,)], "both traces loaded")
    check(not leftovers(WORK), "temporary files left: %s" % leftovers(WORK))


def case_hard_link_and_owner():
    """F12: a database with another hard link is written in place: the link
    sees the new content, the inode (and so owner and group) stays."""
    db, link = os.path.join(WORK, "h.db"), os.path.join(WORK, "h-link.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "first load")
    os.link(db, link)
    inode = os.stat(db).st_ino
    check(run("load", "-q", TRACE_B, "-o", db).returncode == 0, "second load")
    check(os.stat(db).st_ino == inode, "the database was replaced by another file")
    check(rows(link, "SELECT count(*) FROM trace") == [(2,)], "the hard link kept the old content")
    check(integrity(db), "integrity_check")


def case_ownership():
    """F12: root loading into a database owned by 'nobody' keeps the owner;
    nobody can load into it afterwards."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("skipped: needs root and setpriv")
        sys.exit(77)
    os.chmod(WORK, 0o777)
    db = os.path.join(WORK, "n.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "first load")
    os.chown(db, 65534, 65534)
    check(run("load", "-q", TRACE_B, "-o", db).returncode == 0, "root's load")
    st = os.stat(db)
    check((st.st_uid, st.st_gid) == (65534, 65534), "owner changed to %d:%d" % (st.st_uid, st.st_gid))
    exe = os.path.join(WORK, "profdb")
    shutil.copy(PROFDB, exe)
    os.chmod(exe, 0o755)
    trace = os.path.join(WORK, "a.json")
    shutil.copy(TRACE_A, trace)
    os.chmod(trace, 0o644)
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", exe,
                        "load", "-q", "--replace", trace, "-o", db], capture_output=True)
    check(r.returncode == 0, "the owner's next load: exit %d %s" % (r.returncode, r.stderr))


def evil_pack(extra_sql):
    q = os.path.join(WORK, "q")
    shutil.rmtree(q, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "queries"), q)
    with open(os.path.join(q, "lib", "99_extra.sql"), "w") as f:
        f.write(extra_sql)
    return q


def case_query_pack_sandbox():
    """F2: a query pack cannot plant files (ATTACH + VACUUM INTO), call the
    two-argument fts3_tokenizer (a pointer from a blob), load extensions or
    write to the database."""
    db = os.path.join(WORK, "run.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "load")
    planted = os.path.join(WORK, "planted_file")
    attacks = {
        "attach+vacuum": "ATTACH 'file:x?mode=memory&cache=shared' AS m;\n"
                         "CREATE TABLE m.t(x);\nINSERT INTO m.t VALUES ('attacker');\n"
                         "VACUUM m INTO '%s';\n" % planted,
        "vacuum main into": "VACUUM INTO '%s';\n" % planted,
        "attach file": "ATTACH '%s' AS f;\nCREATE TABLE f.t(x);\n" % planted,
        "fts3_tokenizer": "SELECT fts3_tokenizer('t', x'4141414141414141');\n"
                          "CREATE VIRTUAL TABLE temp.f USING fts3(x, tokenize=t);\n"
                          "INSERT INTO temp.f VALUES ('a');\n",
        "load_extension": "SELECT load_extension('/nonexistent/evil');\n",
        "write main": "DELETE FROM main.trace;\n",
        "writable_schema": "PRAGMA writable_schema=ON;\n",
    }
    for name, sql in attacks.items():
        q = evil_pack(sql)
        r = run("report", db, "--queries", q, "--section", "gpu_kernel_sum")
        check(r.returncode == 2, "%s: exit %d (expected 2, refused)" % (name, r.returncode))
        check(re.search(rb"not authorized|authorization denied|too many attached", r.stderr),
              "%s: no refusal message: %s" % (name, r.stderr[-300:]))
        check(not os.path.exists(planted), "%s: a file was planted" % name)
        if os.path.exists(planted):
            os.unlink(planted)
    # VACUUM of TEMP is a no-op in SQLite: it must stay one.
    q = evil_pack("CREATE TEMP TABLE t AS SELECT 'attacker' AS x;\nVACUUM temp INTO '%s';\n"
                  % planted)
    run("report", db, "--queries", q, "--section", "gpu_kernel_sum")
    check(not os.path.exists(planted), "VACUUM temp INTO planted a file")
    check(rows(db, "SELECT count(*) FROM trace") == [(1,)], "the database changed")
    ok = run("report", db, "--queries", evil_pack("CREATE TEMP TABLE mine AS SELECT 1;\n"))
    check(ok.returncode == 0, "TEMP tables in a pack are refused: %s" % ok.stderr[-300:])


def case_report_tmpfile():
    """F3: report files are written through an exclusively created temporary
    file: links planted at the names profdb used to write never redirect the
    write."""
    os.chmod(WORK, 0o1777)
    db, out = os.path.join(WORK, "run.db"), os.path.join(WORK, "r.md")
    victim = os.path.join(WORK, "victim.txt")
    with open(victim, "w") as f:
        f.write("victim's private file\n")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "load")
    with open("/proc/sys/kernel/ns_last_pid") as f:
        last = int(f.read())
    for pid in range(last + 1, last + 400):
        os.symlink(victim, "%s.profdb-tmp-%d" % (out, pid))
    os.umask(0o022)
    r = run("report", db, "--md", out)
    check(r.returncode == 0, "report: exit %d %s" % (r.returncode, r.stderr))
    check(open(victim).read() == "victim's private file\n", "the victim's file was overwritten")
    check(open(out).read().startswith("# profdb report"), "the report was not written")
    check(os.stat(out).st_mode & 0o777 == 0o644, "report mode %o" % (os.stat(out).st_mode & 0o777))
    stray = [f for f in os.listdir(WORK) if f.startswith(".r.md.profdb-")]
    check(not stray, "temporary files left: %s" % stray)


# ---- 2. exit codes, leftovers, output -----------------------------------------

def case_empty_pid():
    """F9: "pid": "" (Kineto's window-end marker) loads; no undefined
    behaviour in the sanitizer build."""
    db = os.path.join(WORK, "e.db")
    r = run("load", "-q", os.path.join(DATA, "empty_pid.json"), "-o", db)
    check(r.returncode == 0, "exit %d %s" % (r.returncode, r.stderr))
    check(b"runtime error" not in r.stderr and b"Sanitizer" not in r.stderr, "sanitizer report")
    check(rows(db, "SELECT pid FROM instant") == [("",)], "the empty pid is kept")
    check(not leftovers(WORK), "temporary files left")


def case_negative_dur():
    """F7: a negative GPU dur loads (counted, raw value kept) and every
    report keeps working."""
    db = os.path.join(WORK, "n.db")
    r = run("load", "-q", os.path.join(DATA, "negative_dur_gpu.json"), "-o", db)
    check(r.returncode == 0, "load exit %d" % r.returncode)
    check(rows(db, "SELECT value FROM import_stats WHERE name = 'negative_dur'") == [(1,)],
          "negative_dur not counted")
    check(rows(db, "SELECT dur, extra FROM _gpu") == [(None, '{"dur":"-1.000"}')],
          "raw value not kept: %s" % rows(db, "SELECT dur, extra FROM _gpu"))
    for args in (["report", db], ["report", db, "--json", "-"], ["diff", db, db]):
        r = run(*args)
        check(r.returncode == 0, "%s: exit %d %s" % (args[0], r.returncode, r.stderr[-300:]))


def case_snapshot_overflow():
    """F8: sizes near 2^63 (replay overflow, legacy block addresses) are
    invalid input: exit 1 with FILE:OFFSET, no database."""
    for name in ("snap_replay_overflow.json", "snap_legacy_block_overflow.json"):
        db = os.path.join(WORK, name + ".db")
        r = run("load", "-q", os.path.join(DATA, name), "-o", db)
        check(r.returncode == 1, "%s: exit %d" % (name, r.returncode))
        check(file_offset_message(r.stderr.decode(), name), "%s: no FILE:OFFSET: %s" % (name, r.stderr))
        check(b"runtime error" not in r.stderr, "%s: sanitizer report" % name)
        check(not os.path.exists(db), "%s: a database was left" % name)


def case_sigpipe():
    """F10: a closed pipe on stderr does not kill the load."""
    db = os.path.join(WORK, "new.db")
    p = subprocess.Popen([PROFDB, "load", TRACE_A, "-o", db], stderr=subprocess.PIPE)
    p.stderr.close()
    check(p.wait() == 0, "exit %d" % p.returncode)
    check(os.path.exists(db) and rows(db, "SELECT count(*) FROM trace") == [(1,)], "not loaded")
    check(not leftovers(WORK), "temporary files left")


def case_interrupted_first_load():
    """F10: what SIGKILL during a first load leaves (a 0-byte file) is named
    as such by report and query; the next load works."""
    big = gen("big_trace", 300000, "big.json")
    db = os.path.join(WORK, "n.db")
    p = subprocess.Popen([PROFDB, "load", "-q", big, "-o", db])
    time.sleep(0.3)
    p.kill()
    p.wait()
    if not os.path.exists(db) or os.path.getsize(db) > 0:  # too fast or too slow here:
        open(db, "w").close()                               # make the state it leaves
    r = run("report", db)
    check(r.returncode == 1 and b"empty file" in r.stderr, "report: %d %s" % (r.returncode, r.stderr))
    r = run("query", db, "SELECT count(*) FROM trace")
    check(r.returncode == 2 and b"empty file" in r.stderr, "query: %d %s" % (r.returncode, r.stderr))
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "the next load fails")


def case_report_interrupt():
    """F10: Ctrl-C during `profdb report TRACE` (in its load or its report)
    leaves no temporary database behind."""
    big = gen("big_trace", 200000, "big.json")
    tmp = os.path.join(WORK, "tmp")
    for phase in ("load", "report"):
        shutil.rmtree(tmp, ignore_errors=True)
        os.mkdir(tmp)
        p = subprocess.Popen([PROFDB, "report", big], stdout=subprocess.DEVNULL,
                             env=dict(os.environ, TMPDIR=tmp))
        deadline = time.time() + 120
        while time.time() < deadline and p.poll() is None:
            dirs = os.listdir(tmp)
            if dirs and phase == "load":
                break
            if dirs and phase == "report":
                try:  # the report may end (and remove its folder) between two looks, and
                    # SQLite's own temporary files (etilqs_*) sit beside the folder
                    folders = [d for d in dirs if os.path.isdir(os.path.join(tmp, d))]
                    inside = os.listdir(os.path.join(tmp, folders[0])) if folders else []
                    if inside == ["run.db"] and os.path.getsize(os.path.join(tmp, folders[0], "run.db")):
                        break
                except (FileNotFoundError, NotADirectoryError):
                    pass
            time.sleep(0.01)
        p.send_signal(signal.SIGINT)
        p.wait()
        check(os.listdir(tmp) == [], "%s: left %s" % (phase, os.listdir(tmp)))


def case_nonutf8_path():
    """F11: a file name that is not UTF-8 gives valid JSON (U+FFFD)."""
    name = os.path.join(WORK.encode(), b"bad\xff.json")
    shutil.copy(TRACE_A, name)
    db = os.path.join(WORK, "r.db")
    check(subprocess.run([PROFDB.encode(), b"load", b"-q", name, b"-o", db.encode()]).returncode == 0,
          "load")
    for args in (["report", db, "--json", "-"], ["query", "--json", db, "SELECT path, label FROM trace"]):
        r = run(*args)
        check(r.returncode == 0, "%s: exit %d" % (args[0], r.returncode))
        try:
            text = r.stdout.decode("utf-8")
            json.loads(text)
            check("bad\ufffd" in text, "%s: the name is not shown with U+FFFD" % args[0])
        except ValueError as e:
            check(False, "%s: invalid JSON or UTF-8: %s" % (args[0], e))


def case_escape_injection():
    """F11: escape sequences in trace names do not reach the terminal."""
    db = os.path.join(WORK, "e.db")
    check(run("load", "-q", os.path.join(DATA, "escape_injection.json"), "-o", db).returncode == 0,
          "load")
    md = os.path.join(WORK, "e.md")
    outputs = {"report": run("report", db).stdout,
               "report --md": (run("report", db, "--md", md), open(md, "rb").read())[1],
               "query table": run("query", "--table", db, "SELECT value FROM _string").stdout}
    for what, out in outputs.items():
        bad = sorted({c for c in out if (c < 0x20 and c not in (0x0a, 0x09)) or c == 0x7f})
        check(not bad, "%s: control bytes %s reach the output" % (what, bad))
        check(b"\xc2\x9b" not in out, "%s: C1 control" % what)
        check("aten::\ufffd[31mRED".encode() in out or what == "query table" and
              "\ufffd[31mRED".encode() in out, "%s: the name is not shown" % what)


def case_messages():
    """F12: other formats named; a UTF-8 BOM accepted; old pickles refused;
    truncation offsets within the file; damaged databases named;
    --chunk-size bounded; a failed write names the database."""
    trace = open(TRACE_A, "rb").read()
    cases = {"z.json.zst": (b"\x28\xb5\x2f\xfd" + trace[:100], 1, b"zstd"),
             "b.json.bz2": (b"BZh91AY&SY" + trace[:100], 1, b"bzip2"),
             "x.json.xz": (b"\xfd7zXZ\x00" + trace[:100], 1, b"xz"),
             "t.zip": (b"PK\x03\x04" + trace[:100], 1, b"zip"),
             "u16.json": (trace[:200].decode().encode("utf-16"), 1, b"UTF-16"),
             "u16le.json": (trace[:200].decode().encode("utf-16-le"), 1, b"UTF-16"),
             "p0.pickle": (b"(dp0\nVsegments\np1\n(lp2\ns.", 4, b"pickle"),
             "p1.pickle": (b"}q\x00X\x08\x00\x00\x00segmentsq\x01]q\x02s.", 4, b"pickle"),
             "bom.json": (b"\xef\xbb\xbf" + trace, 0, b"")}
    for name, (content, code, word) in cases.items():
        path = os.path.join(WORK, name)
        with open(path, "wb") as f:
            f.write(content)
        db = os.path.join(WORK, "x.db")
        if os.path.exists(db):
            os.unlink(db)
        r = run("load", "-q", path, "-o", db)
        check(r.returncode == code and word in r.stderr,
              "%s: exit %d %s" % (name, r.returncode, r.stderr[:200]))
    r = run("load", "-q", os.path.join(DATA, "truncated_before_content.json"), "-o",
            os.path.join(WORK, "t.db"))
    check(r.returncode == 1 and b"truncated_before_content.json:7:" in r.stderr,
          "truncation offset: %s" % r.stderr)
    notdb = os.path.join(WORK, "notdb.db")
    with open(notdb, "w") as f:
        f.write("hello\n")
    r = run("load", "-q", TRACE_A, "-o", notdb)
    check(r.returncode == 2 and b"not an SQLite database" in r.stderr, "load into notdb: %s" % r.stderr)
    r = run("report", notdb)
    check(r.returncode == 1 and b"not an SQLite database" in r.stderr, "report notdb: %s" % r.stderr)
    gz = os.path.join(WORK, "t.json.gz")
    subprocess.run("gzip -c '%s' > '%s'" % (TRACE_A, gz), shell=True, check=True)
    r = run("load", "--chunk-size", "4294967296", gz, "-o", os.path.join(WORK, "c.db"))
    check(r.returncode == 2 and b"1073741824" in r.stderr, "chunk size: %s" % r.stderr[:200])
    r = run("load", "-q", "--chunk-size", "65536", gz, "-o", os.path.join(WORK, "c.db"))
    check(r.returncode == 0, "a valid chunk size")
    # A file size limit stands in for a full disk: writes fail with EFBIG.
    big = gen("big_trace", 100000, "big.json")
    full = os.path.join(WORK, "full.db")
    r = subprocess.run("trap '' XFSZ; ulimit -f 2000; exec '%s' load -q '%s' -o '%s'"
                       % (PROFDB, big, full), shell=True, capture_output=True)
    check(r.returncode == 2 and ("%s: cannot write the database" % full).encode() in r.stderr,
          "full disk: %d %s" % (r.returncode, r.stderr[-300:]))
    check(not leftovers(WORK), "temporary files left: %s" % leftovers(WORK))


def case_ext_values():
    """F12: profdb_median of the int64 extremes, fmt_* of huge values."""
    db = os.path.join(WORK, "x.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "load")
    r = run("query", "--csv", db,
            "SELECT profdb_median(x) FROM (SELECT -9223372036854775808 x UNION ALL"
            " SELECT 9223372036854775807)")
    check(r.stdout.split()[-1] == b"-0.5", "median: %s" % r.stdout)
    r = run("query", "--csv", db, "SELECT profdb_fmt_bytes(1e308), profdb_fmt_ns(-1e308)")
    # a text cell starting with '-' that is not a plain number gets the CSV
    # formula guard (issue 40, C9): the value itself is unchanged
    check(r.stdout.split(b"\r\n")[1] == b"8.674e+289 EiB,'-1.000e+299 s", "fmt: %s" % r.stdout)



# ---- 4. appends (issue 14): a side database merged in one transaction --------

SNAPSHOT = os.path.join(ROOT, "tests", "report", "data", "memory_snapshot.json")


def table_rows(db):
    """Every table's rows, sorted (load_seconds, a timing, left out), and the
    schema: what an append must leave equal to a one-shot load."""
    con = sqlite3.connect(db)
    try:
        out = {"schema": sorted(con.execute(
            "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'"))}
        for (t,) in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table'"
                                " AND name NOT LIKE 'sqlite_%'").fetchall():
            cols = [c[1] for c in con.execute("SELECT * FROM pragma_table_info(?)", (t,))
                    if c[1] != "load_seconds"]
            out[t] = sorted(con.execute('SELECT %s FROM "%s"' % (
                ", ".join('"%s"' % c for c in cols), t)).fetchall(), key=repr)
        return out
    finally:
        con.close()


def dump(db):
    con = sqlite3.connect(db)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def same_rows(a, b, what):
    ra, rb = table_rows(a), table_rows(b)
    diff = sorted(t for t in set(ra) | set(rb) if ra.get(t) != rb.get(t))
    return check(not diff, "%s: tables differ from a one-shot load: %s" % (what, diff))


def modified_copy(path, name):
    """The same trace with other bytes (so not a duplicate): one more space."""
    out = os.path.join(WORK, name)
    with open(path, "rb") as f, open(out, "wb") as g:
        g.write(f.read() + b" ")
    return out


def case_append_matches_one_shot():
    """Appending traces and a snapshot to a database (written in place, not
    copied) gives the rows of loading them all at once, in every table;
    also with --replace and --run, whose checks see the earlier traces."""
    once, appended = os.path.join(WORK, "once.db"), os.path.join(WORK, "appended.db")
    check(run("load", "-q", TRACE_A, TRACE_B, SNAPSHOT, "-o", once).returncode == 0, "one shot")
    check(run("load", "-q", TRACE_A, "-o", appended).returncode == 0, "first load")
    inode = os.stat(appended).st_ino
    r = run("load", "-q", TRACE_B, SNAPSHOT, "-o", appended)
    check(r.returncode == 0, "append: exit %d %s" % (r.returncode, r.stderr))
    check(os.stat(appended).st_ino == inode, "the append replaced the file (a copy, not a merge)")
    same_rows(once, appended, "append")
    check(integrity(appended), "integrity_check after the append")
    # --replace of both (the newest artifacts among them) in an append, next
    # to the same on a copy: a database missing a table of the schema (as
    # one from an older profdb) is copied first, then renamed over.
    copied = os.path.join(WORK, "copied.db")
    shutil.copy(once, copied)
    con = sqlite3.connect(copied)
    con.execute("DROP TABLE _copy_kind")
    con.close()
    copied_inode = os.stat(copied).st_ino
    for db in (appended, copied):
        r = run("load", "-q", "--replace", TRACE_B, SNAPSHOT, "-o", db)
        check(r.returncode == 0, "--replace: exit %d %s" % (r.returncode, r.stderr))
    check(os.stat(appended).st_ino == inode, "--replace replaced the file")
    check(os.stat(copied).st_ino != copied_inode, "the older database was not copied")
    same_rows(copied, appended, "append --replace")
    check(rows(appended, "SELECT group_concat(trace_id) FROM trace") == [("1,3",)],
          "ids after --replace: %s" % rows(appended, "SELECT trace_id FROM trace"))
    # A duplicate of the original's content is found and skipped: nothing changes.
    before = open(appended, "rb").read()
    r = run("load", TRACE_A, "-o", appended)
    check(r.returncode == 0 and b"already loaded as trace 1" in r.stderr,
          "duplicate of the original: %d %s" % (r.returncode, r.stderr))
    check(open(appended, "rb").read() == before, "a skipped duplicate changed the database")
    # --run: the check of the appended trace compares with the original's.
    run_once, run_app = os.path.join(WORK, "run_once.db"), os.path.join(WORK, "run_app.db")
    again = modified_copy(TRACE_A, "rank0_again.json")
    r1 = run("load", "-q", "--run", "r", TRACE_A, again, "-o", run_once)
    check(run("load", "-q", "--run", "r", TRACE_A, "-o", run_app).returncode == 0, "run load")
    r2 = run("load", "-q", "--run", "r", again, "-o", run_app)
    check(r1.returncode == r2.returncode == 0, "--run loads: %d %d" % (r1.returncode, r2.returncode))
    check(b"rank 0 is already in run r (trace 1)" in r2.stderr,
          "the append's run check did not see the original's trace: %s" % r2.stderr)
    check(r1.stderr == r2.stderr, "warnings differ: %s / %s" % (r1.stderr, r2.stderr))
    same_rows(run_once, run_app, "append --run")
    check(not leftovers(WORK), "temporary files left: %s" % leftovers(WORK))


def one_thread_trace(name, events):
    """events cpu_op slices one after another on one thread."""
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write('{"traceEvents": [')
        for i in range(events):
            f.write('%s{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":1}'
                    % ("," if i else "", i % 100, i * 2))
        f.write(']}')
    return path


def case_append_statistics():
    """A small append to a large database does not re-ANALYZE its large
    tables (that reads them whole) but counts its rows in their statistics;
    a table that grows by more than a tenth is analyzed again."""
    db = os.path.join(WORK, "s.db")
    check(run("load", "-q", one_thread_trace("base.json", 300000), "-o", db).returncode == 0,
          "base load")
    stat = "SELECT stat FROM sqlite_stat1 WHERE tbl = ? AND idx IS NULL"
    check(rows(db, stat.replace("?", "'_slice'")) == [("300000",)],
          "base statistics: %s" % rows(db, stat.replace("?", "'_slice'")))
    # A mark an ANALYZE of _slice would remove (SQLite reads and keeps it).
    con = sqlite3.connect(db)
    con.execute("UPDATE sqlite_stat1 SET stat = stat || ' unordered'"
                " WHERE tbl = '_slice' AND idx IS NULL")
    con.commit()
    con.close()
    r = run("load", "-q", TRACE_A, "-o", db)
    check(r.returncode == 0, "append: exit %d %s" % (r.returncode, r.stderr))
    count = rows(db, "SELECT count(*) FROM _slice")[0][0]
    check(count > 300000, "the append added no slice")
    check(rows(db, stat.replace("?", "'_slice'")) == [("%d unordered" % count,)],
          "_slice statistics after a small append: %s, %d rows"
          % (rows(db, stat.replace("?", "'_slice'")), count))
    check(rows(db, stat.replace("?", "'trace'")) == [("2",)],
          "trace (1 -> 2 rows) not analyzed again: %s" % rows(db, stat.replace("?", "'trace'")))


def start_append(db, trace):
    return subprocess.Popen([PROFDB, "load", "-q", trace, "-o", db], stderr=subprocess.PIPE)


def case_append_killed_in_merge():
    """SIGKILL while an append moves its rows into the original (its journal
    or WAL holding part of them): once SQLite opens the file again, it is
    byte for byte what it was, and the next load works."""
    # 500,000 events on one thread: a merge of about 50 MB, more than the
    # 32 MB page cache, so that WAL frames are written before the commit.
    big = one_thread_trace("big.json", 500000)
    for mode in ("delete", "wal"):
        db = os.path.join(WORK, "k_%s.db" % mode)
        check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "%s: first load" % mode)
        con = sqlite3.connect(db)
        con.execute("PRAGMA journal_mode=%s" % mode)
        con.close()
        before, before_dump = open(db, "rb").read(), dump(db)
        journal = db + ("-wal" if mode == "wal" else "-journal")
        p = start_append(db, big)
        deadline = time.time() + 300
        # The journal exists (WAL: holds frames) only inside the merge's transaction.
        while p.poll() is None and time.time() < deadline:
            try:
                if os.path.getsize(journal) > 0:
                    break
            except OSError:
                pass
        p.kill()
        p.wait()
        if not check(os.path.exists(journal) and os.path.getsize(journal) > 0,
                     "%s: the load was not killed inside its merge" % mode):
            continue
        # profdb's read-only commands first: they roll a hot journal back.
        r = run("query", "--csv", db, "SELECT count(*) FROM trace")
        check(r.returncode == 0 and r.stdout.split()[-1] == b"1",
              "%s: query after the kill: %d %s %s" % (mode, r.returncode, r.stdout, r.stderr))
        check(dump(db) == before_dump, "%s: the content changed" % mode)
        check(integrity(db), "%s: integrity_check" % mode)
        check(open(db, "rb").read() == before, "%s: the file is not byte-identical" % mode)
        r = run("load", "-q", TRACE_B, "-o", db)
        check(r.returncode == 0, "%s: the next load: %d %s" % (mode, r.returncode, r.stderr))
        check(rows(db, "SELECT count(*) FROM trace") == [(2,)], "%s: traces after" % mode)
        check(not leftovers(WORK), "%s: temporary files left: %s" % (mode, leftovers(WORK)))


def case_append_failures():
    """An append that fails changes nothing: an invalid file among the
    inputs, a truncated one with --strict, a full disk during the merge."""
    db = os.path.join(WORK, "f.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "first load")
    before = open(db, "rb").read()
    bad = os.path.join(WORK, "bad.json")
    with open(bad, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": }]}')
    cut = os.path.join(WORK, "cut.json")
    with open(TRACE_B, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:20000])
    for args, code in (([TRACE_B, bad], 1), (["--strict", TRACE_B, cut], 1)):
        r = run("load", "-q", *args, "-o", db)
        check(r.returncode == code, "%s: exit %d %s" % (args, r.returncode, r.stderr[-300:]))
        check(open(db, "rb").read() == before, "%s: the database changed" % args)
        check(not leftovers(WORK), "%s: temporary files left" % args)
    # A file size limit just above the database: the merge's writes fail
    # (the side database, small, fits).
    big = gen("big_trace", 100000, "big.json")
    # (In bytes, through setrlimit: `ulimit -f` counts 512-byte blocks in
    # /bin/sh (dash) and 1024-byte ones in bash, so the margin was half the
    # intended one, and a schema with a few more tables no longer fit.)
    limit = len(before) + 200 * 1024

    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    r = subprocess.run([PROFDB, "load", "-q", big, "-o", db], preexec_fn=limit_file_size,
                       capture_output=True)
    check(r.returncode == 2 and ("%s: cannot write the database" % db).encode() in r.stderr,
          "full disk in the merge: %d %s" % (r.returncode, r.stderr[-300:]))
    check(not os.path.exists(db + "-journal"), "a journal was left")
    check(open(db, "rb").read() == before, "full disk: the database changed")
    check(not leftovers(WORK), "full disk: temporary files left: %s" % leftovers(WORK))


def case_append_reader():
    """A reader holding a transaction on a rollback-journal database sees
    the database as it was until it ends its transaction; the append
    commits after that (SQLite's lock), and new readers see all of it."""
    db = os.path.join(WORK, "r.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "first load")
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    view = reader.execute("SELECT count(*), sum(events) FROM trace").fetchone()
    p = start_append(db, TRACE_B)
    time.sleep(2)  # the append is done parsing and waits on the reader's lock
    check(p.poll() is None, "the append committed under a reader's transaction")
    check(reader.execute("SELECT count(*), sum(events) FROM trace").fetchone() == view,
          "the reader saw the append mid-way")
    other = sqlite3.connect(db, timeout=0.1)
    try:
        seen = other.execute("SELECT count(*) FROM trace").fetchone()
        check(seen == (1,), "a new reader saw a partial load: %s" % (seen,))
    except sqlite3.OperationalError:
        pass  # locked out while the commit waits: it sees nothing partial either
    other.close()
    reader.execute("COMMIT")
    reader.close()
    check(p.wait() == 0, "append: exit %d %s" % (p.returncode, p.stderr.read()))
    check(rows(db, "SELECT count(*) FROM trace WHERE status = 'ok'") == [(2,)], "both traces")
    check(integrity(db), "integrity_check")

# ---- 3. time that grows with the square of the input -----------------------

def case_huge_token():
    """F4: a token beyond 32 MiB (here a 1 GiB name in a small .json.gz) is
    refused with FILE:OFFSET in seconds; an 8 MiB name loads."""
    gz = gen("huge_token", 1024, "huge.json.gz")
    t0 = time.time()
    r = run("load", "-q", gz, "-o", os.path.join(WORK, "h.db"))
    took = time.time() - t0
    check(r.returncode == 1 and file_offset_message(r.stderr.decode(), "huge.json.gz")
          and b"32 MiB" in r.stderr, "exit %d %s" % (r.returncode, r.stderr))
    check(took < 60, "refusing took %.1f s" % took)
    ok = gen("huge_token", 8, "eight.json")
    r = run("load", "-q", ok, "-o", os.path.join(WORK, "e.db"))
    check(r.returncode == 0, "an 8 MiB name: exit %d %s" % (r.returncode, r.stderr))


def scaling(shape, small, large, action):
    """CPU time of action on gen(shape, large) over gen(shape, small): about
    large/small when linear, its square when quadratic."""
    a = gen(shape, small, "%s_small" % shape)
    b = gen(shape, large, "%s_large" % shape)
    # The faster of two runs each: one run can be slowed by other tests
    # sharing the machine (ctest -j), which is noise, not growth.
    ta = min(cpu_seconds(lambda: action(a)) for _ in range(2))
    tb = min(cpu_seconds(lambda: action(b)) for _ in range(2))
    return tb / max(ta, 1e-3), ta, tb


def load_fresh(path):
    db = path + ".db"
    if os.path.exists(db):
        os.unlink(db)
    r = run("load", "-q", path, "-o", db)
    check(r.returncode == 0, "%s: exit %d" % (path, r.returncode))
    return db


def case_gpu_links_linear():
    """F5: GPU links in linear time when thousands of events share one
    External id / correlation, or kernels have no launch call; links right."""
    for shape in ("shared_ids", "steps_unlinked"):
        ratio, ta, tb = scaling(shape, 2500, 10000, load_fresh)
        print("%s: %.2f s -> %.2f s for 4x the events (x%.1f)" % (shape, ta, tb, ratio))
        check(ratio < 9, "%s: CPU time grows x%.1f for 4x the events" % (shape, ratio))
    db = os.path.join(WORK, "shared_ids_large.db")
    check(rows(db, "SELECT count(DISTINCT launch_id), count(DISTINCT op_id), count(*) FROM _gpu_link")
          == [(1, 1, 10000)], "shared ids: each kernel links to the first launch and op")
    db = os.path.join(WORK, "steps_unlinked_large.db")
    check(rows(db, "SELECT count(*) FROM _gpu_link l JOIN _gpu g ON g.id = l.id"
                   " JOIN step s ON s.trace_id = g.trace_id AND s.step = l.step"
                   " WHERE g.ts >= s.ts AND g.ts < s.ts + s.dur") == [(10000,)],
          "unlaunched kernels: each in the step that holds it")


def case_many_devices():
    """F6: the report on a snapshot with many devices grows linearly."""
    def report(path):
        db = load_fresh(path)
        r = run("report", db)
        check(r.returncode == 0, "report: exit %d" % r.returncode)
    ratio, ta, tb = scaling("many_devices", 2500, 10000, report)
    print("many_devices: %.2f s -> %.2f s for 4x the devices (x%.1f)" % (ta, tb, ratio))
    check(ratio < 9, "CPU time grows x%.1f for 4x the devices" % ratio)


def main():
    global PROFDB, WORK
    PROFDB, case, WORK = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    globals()["case_" + case]()
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
