#!/usr/bin/env python3
"""Hostile input, round 3 (issue 26): one ctest case per defect (reliability.CASE).

    hostile3.py PROFDB CASE WORK_DIR

Every input is written here, from the shapes of the reproducers in the
shared repro folder (never copied from it).  Each case asserts what
docs/reliability.md promises: exit code, message, what the database holds,
which files exist afterwards; each failed on the code before the fix.
"""
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TRACE_A = os.path.join(ROOT, "tests", "report", "data", "train_rank0.json")
TRACE_B = os.path.join(ROOT, "tests", "report", "data", "train_rank1.json")
SNAPSHOT = os.path.join(ROOT, "tests", "report", "data", "memory_snapshot.json")
QUERIES = os.path.join(ROOT, "queries")
PROFDB = WORK = None
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL", msg)
    return ok


def run(*args, **kw):
    return subprocess.run([PROFDB, *args], capture_output=True, **kw)


def write(name, text, mode="w"):
    path = os.path.join(WORK, name)
    with open(path, mode) as f:
        f.write(text)
    return path


def snapshot(requested=512, device=0, entry_size=512, active_size=1024):
    """A one-segment snapshot; each argument is written as given (JSON text)."""
    return ('{"segments":[{"device":%s,"address":1048576,"total_size":2097152,'
            '"allocated_size":1024,"active_size":%s,"requested_size":1024,"stream":0,'
            '"segment_type":"large","blocks":[{"address":1048576,"size":512,'
            '"requested_size":512,"state":"active_allocated"},{"address":1049088,"size":512,'
            '"requested_size":%s,"state":"active_allocated"}]}],"device_traces":[[{"action":'
            '"alloc","addr":1049600,"size":%s,"stream":0}]]}' %
            (device, active_size, requested, entry_size))


def case_b1_snapshot_beyond_int64():
    """B1: every snapshot integer beyond int64 is refused at load with
    FILE:OFFSET (exit 1, nothing written); addresses (unsigned handles)
    beyond int64 still load, as text."""
    bad = {"requested_1e308": snapshot(requested="1e308"),
           "requested_1e19": snapshot(requested="1e19"),
           "device_1e19": snapshot(device="1e19"),
           "device_-1e308": snapshot(device="-1e308"),
           "entry_size_1e19": snapshot(entry_size="1e19"),
           "active_below_int64": snapshot(active_size="-9223372036854775809")}
    for name, text in bad.items():
        path = write(name + ".json", text)
        db = os.path.join(WORK, name + ".db")
        r = run("load", "-q", path, "-o", db)
        err = r.stderr.decode()
        check(r.returncode == 1, "%s: load exit %d (want 1)" % (name, r.returncode))
        check(re.search(r"%s\.json:\d+: .*beyond the 64-bit integer range" % re.escape(name),
                        err), "%s: no FILE:OFFSET message: %s" % (name, err))
        check(not os.path.exists(db), "%s: a database was left" % name)
    big_addr = snapshot().replace('"address":1049088', '"address":18446744073709551615')
    db = os.path.join(WORK, "addr.db")
    r = run("load", "-q", write("addr.json", big_addr), "-o", db)
    check(r.returncode == 0, "address beyond int64: load exit %d %s" % (r.returncode, r.stderr))
    if r.returncode == 0:
        con = sqlite3.connect(db)
        got = con.execute("SELECT address, typeof(address) FROM _block"
                          " WHERE typeof(address) <> 'integer'").fetchall()
        con.close()
        check(got == [("18446744073709551615", "text")], "address kept as text: %s" % got)
        check(run("report", db).returncode == 0, "report of the address-beyond-int64 snapshot")


def case_b2_replay_overflow():
    """B2: the mem_* functions do checked arithmetic on database values: an
    SQL error naming the event, never a wrapped figure or UB."""
    db = os.path.join(WORK, "s.db")
    check(run("load", "-q", SNAPSHOT, "-o", db).returncode == 0, "load")
    con = sqlite3.connect(db)
    con.execute("UPDATE _alloc_event SET size = 9223372036854775807 WHERE action ="
                " (SELECT action FROM _alloc_event GROUP BY action ORDER BY count(*) DESC"
                " LIMIT 1)")
    sid, dev = con.execute("SELECT snapshot_id, device FROM _alloc_event GROUP BY 1, 2"
                           " ORDER BY count(*) DESC LIMIT 1").fetchone()
    con.commit()
    con.close()
    for fn in ("mem_peak(%d, %d)" % (sid, dev), "mem_timeline(%d, %d)" % (sid, dev),
               "mem_live_at(%d, %d, 1000000)" % (sid, dev)):
        r = run("query", db, "SELECT * FROM " + fn)
        err = r.stderr.decode()
        check(r.returncode == 2, "%s: exit %d" % (fn, r.returncode))
        check(re.search(r"overflows 64 bits at _alloc_event seq \d+ \(snapshot %d, device %d"
                        % (sid, dev), err), "%s: message does not name the row: %s" % (fn, err))
        check("runtime error" not in err, "%s: sanitizer report" % fn)


def case_b3_terminal_escapes():
    """B3: strings from a trace or a file name never reach stderr raw."""
    gpu = "GPU\u001b]0;pwned\u0007\u001b[2J\u009b31m"
    trace = {"deviceProperties": [{"id": 0, "name": gpu}],
             "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
                              "ts": 1, "dur": 1, "args": {"device": 0, "stream": 7}}]}
    t = write("t.json", json.dumps(trace))
    r = run("load", t, "-o", os.path.join(WORK, "x.db"))
    cut = write("cut\x1b[31mRED\r.json", json.dumps(trace)[:-3])
    r2 = run("load", "-v", cut, "-o", os.path.join(WORK, "y.db"))
    for what, out in (("summary line", r.stderr), ("error naming the file", r2.stderr)):
        bad = sorted({c for c in out if (c < 0x20 and c not in (0x0a, 0x09)) or c == 0x7f})
        check(not bad, "%s: control bytes %s on stderr: %r" % (what, bad, out))
        check(b"\xc2\x9b" not in out, "%s: a C1 control on stderr" % what)
    check(b"GPU\\x1b]0;pwned\\x07\\x1b[2J\\xc2\\x9b31m" in r.stderr,
          "the GPU name is not shown escaped: %r" % r.stderr)
    check(b"cut\\x1b[31mRED\\x0d.json" in r2.stderr, "the file name is not shown: %r" % r2.stderr)


def case_b4_markdown_scope():
    """B4: a snapshot's file name is escaped in the Markdown's Scope line,
    and input names cannot break out of their code spans."""
    d = os.path.join(WORK, "in")
    os.makedirs(d)
    shutil.copy(SNAPSHOT, os.path.join(d, "snap<svg onload=alert(1)>.json"))
    db = os.path.join(WORK, "x.db")
    check(run("load", "-q", d, "-o", db).returncode == 0, "load")
    md = os.path.join(WORK, "r.md")
    check(run("report", db, "--md", md).returncode == 0, "report")
    text = open(md, encoding="utf-8").read()
    check("<svg" not in text, "raw HTML in the Markdown: %s" %
          [line for line in text.splitlines() if "<svg" in line])
    scope = [line for line in text.splitlines() if line.startswith("- Scope:")]
    check(scope and "snap&lt;svg onload=alert(1)&gt;" in scope[0], "scope line: %s" % scope)
    tick = os.path.join(WORK, "a`b<i>.json")
    shutil.copy(TRACE_A, tick)
    r = run("report", tick)
    inputs = [line for line in r.stdout.decode().splitlines() if line.startswith("- Inputs:")]
    check(inputs and "``" in inputs[0] and "a`b<i>.json``" in inputs[0],
          "a backtick in a file name breaks its code span: %s" % inputs)


def case_b6_pack_bounds():
    """B6: pack files and gate files are regular files of bounded size,
    data= paths stay in the pack, pack SQL has a time limit, and a gate that
    cannot be read fails closed."""
    db = os.path.join(WORK, "t.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "load")
    pack = os.path.join(WORK, "q")
    shutil.copytree(QUERIES, pack)
    os.remove(os.path.join(pack, "gpu_util.sql"))
    os.symlink("/dev/zero", os.path.join(pack, "gpu_util.sql"))
    t0 = time.time()
    r = run("report", db, "--queries", pack, "--section", "gpu_util", timeout=60)
    check(r.returncode == 2 and b"not a regular file" in r.stderr,
          "section -> /dev/zero: exit %d %s" % (r.returncode, r.stderr[-200:]))
    os.remove(os.path.join(pack, "gpu_util.sql"))
    os.mkfifo(os.path.join(pack, "gpu_util.sql"))
    r = run("report", db, "--queries", pack, "--section", "gpu_util", timeout=60)
    check(r.returncode == 2 and b"not a regular file" in r.stderr, "section FIFO: exit %d %s"
          % (r.returncode, r.stderr[-200:]))
    os.remove(os.path.join(pack, "gpu_util.sql"))
    with open(os.path.join(pack, "gpu_util.sql"), "wb") as f:
        f.write(b"-- Title: big\n" + b"-- " + b"x" * (9 << 20) + b"\nSELECT 1;\n")
    r = run("report", db, "--queries", pack, "--section", "gpu_util", timeout=60)
    check(r.returncode == 2 and b"too large" in r.stderr, "section of 9 MiB: exit %d %s"
          % (r.returncode, r.stderr[-200:]))
    # data= outside the pack
    src = open(os.path.join(QUERIES, "step_time.sql")).read()
    charted = [line for line in src.splitlines() if line.startswith("-- Chart:")]
    if charted:
        bad = src.replace(charted[0], "-- Chart: bar data=../outside.sql x=label y=n")
        write("outside.sql", "SELECT 1 AS n;\n")
        with open(os.path.join(pack, "step_time.sql"), "w") as f:
            f.write(bad)
        r = run("report", db, "--queries", pack, "--section", "step_time", timeout=60)
        check(r.returncode == 2 and b"inside the query folder" in r.stderr,
              "data=../: exit %d %s" % (r.returncode, r.stderr[-300:]))
    # a runaway recursive query stops at the limit
    with open(os.path.join(pack, "step_time.sql"), "w") as f:
        f.write("-- Title: Runaway\n-- Question: x\n-- Columns:\n--   n  count  n\n"
                "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c)"
                " SELECT n FROM c WHERE n < 0;\n")
    t0 = time.time()
    r = run("report", db, "--queries", pack, "--section", "step_time", timeout=120,
            env=dict(os.environ, PROFDB_QUERY_TIMEOUT="2"))
    check(r.returncode == 2 and b"time limit" in r.stderr and time.time() - t0 < 60,
          "runaway query: exit %d after %.0f s %s" % (r.returncode, time.time() - t0,
                                                       r.stderr[-300:]))
    # gates: /dev/zero, a FIFO, a missing file fail closed; a good one passes
    fifo = os.path.join(WORK, "gate.fifo")
    os.mkfifo(fifo)
    for gate in ("/dev/zero", fifo, os.path.join(WORK, "missing.gate")):
        r = run("diff", db, db, "--gate", gate, timeout=60)
        check(r.returncode == 2, "--gate %s: exit %d (want 2: fails closed)"
              % (gate, r.returncode))
    good = write("good.gate", "# a comment\nstep_time > +5%\n")
    r = run("diff", db, db, "--gate", good, timeout=120)
    check(r.returncode == 0, "a readable gate: exit %d %s" % (r.returncode, r.stderr[-300:]))


def cpu_seconds(fn):
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def escaped_name_trace(mib, path):
    """A trace whose one kernel name is mib MiB of \\u00e9 escapes."""
    reps = mib * (1 << 20) // 6
    with open(path, "w") as f:
        f.write('{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"')
        f.write("\\u00e9" * reps)
        f.write('","pid":1,"tid":1,"ts":1,"dur":1}]}')
    return path


def case_b7_escaped_token_linear():
    """B7: a long string of escapes lexes in linear time: 4x the escapes
    cost about 4x the CPU (it was about 14x: quadratic), and the name is
    loaded whole."""
    small = escaped_name_trace(4, os.path.join(WORK, "small.json"))
    large = escaped_name_trace(16, os.path.join(WORK, "large.json"))

    def load(path):
        db = path + ".db"
        if os.path.exists(db):
            os.unlink(db)
        r = run("load", "-q", path, "-o", db)
        check(r.returncode == 0, "%s: exit %d %s" % (path, r.returncode, r.stderr[-300:]))
    ta = min(cpu_seconds(lambda: load(small)) for _ in range(2))
    tb = min(cpu_seconds(lambda: load(large)) for _ in range(2))
    ratio = tb / max(ta, 1e-3)
    print("escaped name 4 MiB -> 16 MiB: %.2f s -> %.2f s (x%.1f)" % (ta, tb, ratio))
    check(ratio < 8, "CPU grows x%.1f for 4x the escapes" % ratio)
    con = sqlite3.connect(large + ".db")
    got = con.execute("SELECT length(name) FROM cpu_op").fetchall()
    con.close()
    check(got == [(16 * (1 << 20) // 6,)], "the name is not loaded whole: %s" % got)


def fnv1a64(data):
    h = 14695981039346656037
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def peak_rss_mb(*args):
    """Run profdb in a child of a fresh Python; its peak RSS in MB, and its result."""
    code = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True); "
            "sys.stderr.write(r.stderr.decode(errors='replace')); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(r.returncode)")
    r = subprocess.run([sys.executable, "-c", code, PROFDB, *args], capture_output=True)
    return int(r.stdout.split()[-1]) / 1024, r


def case_b8_long_names():
    """B8: two 6 MiB kernel names that differ only in their last byte: the database
    keeps them whole, the report shows them cut (64 KiB, then their
    length and FNV-1a hash, so they stay two rows), its files stay small, and
    its memory does not grow with the names (it was ~50x the longest name)."""
    mib = 6
    names = ["k_" + "x" * (mib << 20) + tail for tail in ("A", "B")]
    trace = os.path.join(WORK, "long.json")
    with open(trace, "w") as f:
        ev = []
        for s in range(3):
            t = s * 100000
            ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s,
                       "pid": 1, "tid": 1, "ts": t, "dur": 90000})
            for i, name in enumerate(names):
                c = s * 10 + i + 1
                ts = t + 10 + i * 100
                ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::" + name, "pid": 1,
                           "tid": 1, "ts": ts, "dur": 50, "args": {"External id": c}})
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                           "pid": 1, "tid": 1, "ts": ts + 1, "dur": 5,
                           "args": {"External id": c, "correlation": c}})
                ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                           "ts": ts + 20, "dur": 30 + i,
                           "args": {"device": 0, "stream": 7, "correlation": c}})
        json.dump({"traceEvents": ev}, f)
    db = os.path.join(WORK, "long.db")
    r = run("load", "-q", trace, "-o", db)
    if not check(r.returncode == 0, "load: exit %d %s" % (r.returncode, r.stderr[-300:])):
        return
    con = sqlite3.connect(db)
    got = sorted(con.execute("SELECT DISTINCT length(name) FROM kernel").fetchall())
    con.close()
    check(got == [(len(names[0]),)], "the database does not keep the names whole: %s" % got)
    out = {k: os.path.join(WORK, "r." + k) for k in ("md", "json", "html")}
    rss, r = peak_rss_mb("report", db, "--md", out["md"], "--json", out["json"],
                         "--html", out["html"])
    check(r.returncode == 0, "report: exit %d %s" % (r.returncode, r.stderr[-300:]))
    print("report of two %d MiB names: peak RSS %.0f MB" % (mib, rss))
    if not os.environ.get("PROFDB_TEST_SANITIZED"):
        # docs/reliability.md: 3 copies of the longest name above a report's
        # usual ~100 MB (SQLite's page caches); 6 MiB names cost 390 MB before.
        check(rss < 100 + 3 * mib + 40, "report peak RSS %.0f MB for %d MiB names" % (rss, mib))
    for k, path in out.items():
        size = os.path.getsize(path)
        check(size < (1 << 20), "%s output is %d bytes" % (k, size))
    with open(out["json"]) as f:
        report = json.load(f)
    rows = [x for x in report["sections"] if x["id"] == "gpu_kernel_sum"][0]["rows"]
    want = sorted("%s\u2026[cut: %d bytes, fnv1a %016x]" % (n[:65536], len(n), fnv1a64(n.encode()))
                  for n in names)
    check(sorted(x["name"] for x in rows) == want,
          "gpu_kernel_sum names: %s" % [x["name"][-60:] for x in rows])
    check(len(rows) == 2 and {x["instances"] for x in rows} == {2},
          "two kernels of two steps each: %s" % [(x["name"][-8:], x["instances"]) for x in rows])


def case_b5_out_of_memory():
    """B5: when memory runs out the load says so, exits 5 and leaves
    nothing; with what docs/performance.md says a load needs it runs at
    full speed (glibc's per-thread heaps under ulimit -v made it ~20x
    slower)."""
    if os.environ.get("PROFDB_TEST_SANITIZED"):
        print("skipped: an address-space limit cannot hold a sanitizer's shadow memory")
        sys.exit(77)
    import resource
    big = os.path.join(WORK, "big.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "scale_trace.py"), TRACE_A, big,
                    "20"], check=True, capture_output=True)

    def limited(mb):
        def apply():
            resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
        return apply
    out = os.path.join(WORK, "out")
    os.makedirs(out)
    db = os.path.join(out, "x.db")
    r = subprocess.run([PROFDB, "load", "-q", big, "-o", db], capture_output=True,
                       preexec_fn=limited(36))
    check(r.returncode == 5, "36 MB: exit %d (want 5) %s" % (r.returncode, r.stderr[-300:]))
    check(b"profdb: out of memory" in r.stderr, "36 MB: no message: %r" % r.stderr[-300:])
    check(os.listdir(out) == [], "36 MB: left %s" % os.listdir(out))
    t_free = cpu_seconds(lambda: run("load", "-q", big, "-o", os.path.join(WORK, "free.db")))
    r = [None]

    def load_limited():
        if os.path.exists(db):
            os.unlink(db)
        r[0] = subprocess.run([PROFDB, "load", "-q", big, "-o", db], capture_output=True,
                              preexec_fn=limited(150))
    t_lim = cpu_seconds(load_limited)
    check(r[0].returncode == 0, "150 MB: exit %d %s" % (r[0].returncode, r[0].stderr[-300:]))
    print("CPU: %.2f s without a limit, %.2f s under 150 MB" % (t_free, t_lim))
    check(t_lim < 3 * t_free + 1, "150 MB: %.1f s CPU vs %.1f s without a limit" % (t_lim, t_free))


def case_b9_report_sigkill():
    """B9: SIGKILL during `report TRACE` leaves a temporary folder that the
    next report removes; a report running alongside keeps its own."""
    tmp = os.path.join(WORK, "tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    p = subprocess.Popen([PROFDB, "report", TRACE_A], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env)
    deadline = time.time() + 30
    while time.time() < deadline and not any(
            os.path.exists(os.path.join(tmp, d, "run.db")) for d in os.listdir(tmp)):
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait()
    left = os.listdir(tmp)
    check(len(left) == 1, "the killed report left %s (the case needs one folder)" % left)
    # a live process's folder (its lock held) must survive the sweep
    live = os.path.join(tmp, "profdb-LIVE01")
    os.makedirs(live)
    lockf = open(os.path.join(live, "lock"), "w")
    import fcntl
    fcntl.flock(lockf, fcntl.LOCK_EX)
    r = subprocess.run([PROFDB, "report", TRACE_A], capture_output=True, env=env)
    check(r.returncode == 0, "report after the kill: exit %d" % r.returncode)
    now = sorted(os.listdir(tmp))
    check(now == ["profdb-LIVE01"], "left in TMPDIR after the next report: %s" % now)
    lockf.close()


def case_b10_messages():
    """B10: a folder given as a database says so and what to do."""
    d = os.path.join(WORK, "dir.db")
    os.makedirs(d)
    r = run("query", d, "SELECT 1")
    check(r.returncode == 2 and b"a folder, not a database" in r.stderr,
          "query DIR: exit %d %s" % (r.returncode, r.stderr))
    check(b"disk I/O error" not in r.stderr, "query DIR still says disk I/O error")
    r = run("report", d)
    check(r.returncode != 0 and b"not an SQLite database" not in r.stderr,
          "report DIR.db: exit %d %s" % (r.returncode, r.stderr))


def case_b10_busy_append():
    """B10: an append that another connection's open transaction blocks
    says what holds it and what to do (waits 60 s: label slow)."""
    db = os.path.join(WORK, "j.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "load")
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM trace").fetchall()
    r = run("load", "-q", TRACE_B, "-o", db, timeout=300)
    reader.execute("COMMIT")
    reader.close()
    err = r.stderr.decode()
    check(r.returncode == 2, "append while a reader holds a transaction: exit %d" % r.returncode)
    check("holds a transaction open" in err and "load again" in err, "message: %s" % err)
    check(sqlite3.connect(db).execute("SELECT count(*) FROM trace").fetchone()[0] == 1,
          "the database changed")


def case_b11_user_trigger():
    """B11: appends work next to the user's triggers; a failing trigger is
    named in the message and nothing changes."""
    db = os.path.join(WORK, "v.db")
    check(run("load", "-q", TRACE_A, "-o", db).returncode == 0, "load")
    con = sqlite3.connect(db)
    con.executescript("CREATE TABLE audit(n); CREATE TRIGGER my_trig AFTER INSERT ON trace"
                      " BEGIN INSERT INTO audit VALUES (NEW.trace_id); END")
    con.close()
    r = run("load", "-q", TRACE_B, "-o", db)
    check(r.returncode == 0, "append next to a working trigger: exit %d %s"
          % (r.returncode, r.stderr))
    con = sqlite3.connect(db)
    check(con.execute("SELECT count(*) FROM audit").fetchone()[0] == 1, "the trigger did not run")
    con.executescript("DROP TRIGGER my_trig; CREATE TRIGGER bad_trig AFTER INSERT ON trace"
                      " BEGIN INSERT INTO audit VALUES (NEW.no_such_column); END")
    con.close()
    before = open(db, "rb").read()
    r = run("load", "-q", "--replace", TRACE_B, "-o", db)
    err = r.stderr.decode()
    check(r.returncode == 2 and "bad_trig" in err and "not an error" not in err,
          "failing trigger: exit %d %s" % (r.returncode, err))
    check(open(db, "rb").read() == before, "the database changed")


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
