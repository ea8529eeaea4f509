#!/usr/bin/env python3
"""Hostile file systems for profdb export (issue 40: C3, C7, C8, L6), one
ctest case each.

    hostile4_export.py PROFDB CASE WORK_DIR

Every file the export writes goes through one atomic publish
(loader/publish.c): a mkstemp temporary in the destination folder, never a
predictable name, so a link planted there is never followed; a full disk
is exit 75 with its cause named; a killed task's temporary database is
swept once its process is gone; a FIFO given as input is refused, never
waited on.
"""
import glob
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile4_common import *  # noqa: E402,F401,F403


def run_limited(*args, timeout=60, env=None):
    """profdb with args; None when it ran past timeout (killed)."""
    try:
        return run(*args, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None


def hidden_files(top):
    return [os.path.join(d, f) for d, _, files in os.walk(top) for f in files if f.startswith(".")]


def dead_pid():
    """The pid of a process that has ended (kill(pid, 0): ESRCH)."""
    while True:
        p = subprocess.Popen(["true"])
        p.wait()
        try:
            os.kill(p.pid, 0)
        except ProcessLookupError:
            return p.pid


# ---- C3: temporaries at predictable names follow planted links --------------


def case_c3_export_tmp_symlink():
    """Links planted at every temporary name an export task used
    (.NAME.<pid>.tmp, the pid known because the shell plants them for its
    own pid and then execs profdb): the victims stay as they were, the
    dataset gets regular files, and no link is published."""
    ds = path("ds")
    victims = {}
    plants = []
    names = [
        ("kernel/run=j1/rank=0", ".part-0000.parquet"),
        ("cpu_op/run=j1/rank=0", ".part-0000.parquet"),
        ("trace/run=j1/rank=0", ".part-0000.parquet"),
        ("_summary/run=j1", ".rank=0.db.zst"),
        ("_summary/run=j1", ".rank=0.db"),
        ("_inputs/trace/run=j1", ".rank=0.json"),
    ]
    for i, (folder, name) in enumerate(names):
        os.makedirs(os.path.join(ds, folder), exist_ok=True)
        victim = path("victim%d.txt" % i)
        with open(victim, "w") as f:
            f.write("precious user file %d\n" % i)
        victims[victim] = open(victim, "rb").read()
        plants.append("ln -s %s '%s/%s/%s'.$$.tmp" % (victim, ds, folder, name))
    script = "; ".join(plants) + '; exec "$0" export "$1" -o "$2" --run j1 -q'
    r = subprocess.run(["bash", "-c", script, ctx.profdb, TRACE_A, ds], capture_output=True,
                       timeout=300)
    check(r.returncode in (0, 3), "export: exit %d %r" % (r.returncode, r.stderr[-300:]))
    check(not sanitizer_report(r.stderr), "sanitizer report: %r" % r.stderr[-2000:])
    for victim, before in victims.items():
        check(open(victim, "rb").read() == before, "%s overwritten through a link" % victim)
    for folder, name in names:
        final = os.path.join(ds, folder, name[1:])
        if name == ".rank=0.db":
            continue  # never published: compressed into rank=0.db.zst
        check(os.path.isfile(final) and not os.path.islink(final),
              "%s: not a regular file (%s)" % (final, os.path.islink(final) and "a link"))
    check(hidden_files(ds) == [], "hidden files left: %s" % hidden_files(ds))
    # a review's case: in a shared dataset folder another user's temporary
    # (a live export of theirs) is never removed by this user's export
    if os.geteuid() == 0:
        theirs = os.path.join(ds, "kernel/run=j1/rank=0", ".part-0000.parquet.profdb-XyZ123")
        with open(theirs, "w") as f:
            f.write("another user's part in progress\n")
        os.chown(theirs, 65534, 65534)
        r = run("export", TRACE_A, "-o", ds, "--run", "j1", "-q", "--force")
        check(r.returncode in (0, 3), "export again: exit %d %r" % (r.returncode, r.stderr[-300:]))
        check(os.path.exists(theirs), "another user's temporary was removed")


# ---- C7: a full disk is exit 75 with its cause named ------------------------


def case_c7_fulldisk_export():
    """Export onto a small tmpfs (root), full at every point from the first
    Parquet part to the summary: exit 75 (retryable) and "No space left on
    device", never exit 2 or "not an error"; no hidden file left; the same
    export with room completes."""
    mnt = path("mnt")
    os.makedirs(mnt)
    env = dict(os.environ, TMPDIR=path("tmp"))
    os.makedirs(env["TMPDIR"])
    fulls = 0
    for kb in (16, 32, 48, 64, 96, 128, 160, 256):
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk" % kb, "tmpfs", mnt],
                          capture_output=True).returncode:
            print("skipped: cannot mount a tmpfs (needs root)")
            sys.exit(77)
        try:
            ds = os.path.join(mnt, "ds")
            r = run_limited("export", TRACE_A, "-o", ds, "--run", "j1", "-q", env=env)
            if not check(r is not None, "%d kB: export hangs" % kb):
                continue
            err = r.stderr.decode("utf-8", "replace")
            check(not sanitizer_report(err), "sanitizer report: %r" % err[-2000:])
            if r.returncode in (0, 3):
                continue
            fulls += 1
            check(r.returncode == 75, "%d kB: exit %d, not 75: %r" % (kb, r.returncode, err))
            check("No space left on device" in err, "%d kB: cause not named: %r" % (kb, err))
            check("not an error" not in err, "%d kB: %r" % (kb, err))
            check(hidden_files(ds) == [], "%d kB: hidden files left: %s" % (kb, hidden_files(ds)))
        finally:
            subprocess.run(["umount", mnt])
    check(fulls >= 4, "only %d sizes filled the disk" % fulls)
    r = run("export", TRACE_A, "-o", path("room"), "--run", "j1", "-q", env=env)
    check(r.returncode in (0, 3), "export with room: exit %d" % r.returncode)
    # the chrome and memory_viz slices of a database, -o onto a full disk
    db = path("run.db")
    snap = os.path.join(os.path.dirname(TRACE_A), "memory_snapshot.json")
    check(run("load", TRACE_A, snap, "-o", db).returncode in (0, 3), "load for the slices")
    for fmt, name in (("chrome", "slice.json"), ("memory_viz", "viz.pickle")):
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", mnt],
                          capture_output=True).returncode:
            sys.exit(77)
        try:
            out = os.path.join(mnt, name)
            r = run("export", db, "--format", fmt, "-o", out, env=env)
            err = r.stderr.decode("utf-8", "replace")
            check(r.returncode == 75 and "No space left on device" in err,
                  "%s on a full disk: exit %d (75), %r" % (fmt, r.returncode, err))
            check(os.listdir(mnt) == [], "%s: nothing left on the full disk: %s" % (fmt, os.listdir(mnt)))
        finally:
            subprocess.run(["umount", mnt])


# ---- C8: a killed task's temporary database stays for good ------------------


def case_c8_killexport_tmpdir():
    """What kill -9 of an export task leaves in $TMPDIR
    (profdb-export-<pid>-XXXXXX with its database) is removed by the next
    export and by report's sweep once its process is gone; a live process's
    folder, another user's link and what a link points to are not."""
    tmp = path("tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    victim = path("victim")
    os.makedirs(victim)
    with open(os.path.join(victim, "keep.txt"), "w") as f:
        f.write("keep\n")

    def plant():
        dead = dead_pid()
        left = os.path.join(tmp, "profdb-export-%d-AbC123" % dead)
        os.makedirs(left)
        with open(os.path.join(left, "run.db"), "wb") as f:
            f.write(b"SQLite format 3\0" + b"\0" * 4096)
        open(os.path.join(left, "lock"), "w").close()
        os.symlink(os.path.join(victim, "keep.txt"), os.path.join(left, "link"))
        live = os.path.join(tmp, "profdb-export-%d-XyZ789" % os.getpid())
        os.makedirs(live, exist_ok=True)
        link = os.path.join(tmp, "profdb-export-%d-LnK123" % dead)
        if not os.path.lexists(link):
            os.symlink(victim, link)
        return left, live, link

    def swept(what, left, live, link):
        check(not os.path.exists(left), "%s: %s left" % (what, left))
        check(os.path.isdir(live), "%s: a live process's folder removed" % what)
        check(os.path.islink(link), "%s: the link removed or followed" % what)
        check(os.path.exists(os.path.join(victim, "keep.txt")), "%s: a link followed" % what)

    left, live, link = plant()
    r = run("export", TRACE_A, "-o", path("ds"), "--run", "j1", "-q", env=env)
    check(r.returncode in (0, 3), "export: exit %d %r" % (r.returncode, r.stderr[-300:]))
    swept("export", left, live, link)
    left, live, link = plant()
    r = run("report", TRACE_A, "--json", path("r.json"), env=env)
    check(r.returncode in (0, 3), "report: exit %d %r" % (r.returncode, r.stderr[-300:]))
    check(not sanitizer_report(r.stderr), "sanitizer report: %r" % r.stderr[-2000:])
    swept("report", left, live, link)

    # The real thing: kill -9 while the task loads or exports.
    p = subprocess.Popen([ctx.profdb, "export", TRACE_A, TRACE_B, "-o", path("ds2"), "-q",
                          "--run", "j1"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    seen = []
    for _ in range(20000):
        seen = [d for d in glob.glob(os.path.join(tmp, "profdb-export-%d-*" % p.pid))]
        if seen or p.poll() is not None:
            break
        time.sleep(0.0005)
    p.kill()
    p.wait()
    print("killed at", "its load or export" if seen else "its end (nothing seen)")
    run("export", TRACE_A, "-o", path("ds3"), "--run", "j1", "-q", env=env)
    for d in seen:
        check(not os.path.exists(d), "after kill -9: %s left" % d)


# ---- L6: export --files FIFO blocks for ever ---------------------------------


def case_l6_export_files_fifo():
    """A FIFO as --files LIST, as an input, or planted as a record of the
    dataset: refused (exit 2, "not a regular file") or passed over, never
    waited on."""
    fifo = path("fifo")
    os.mkfifo(fifo)
    r = run_limited("export", "--files", fifo, "--index", "0", "-o", path("ds"), timeout=30)
    if check(r is not None, "export --files FIFO: blocks"):
        err = r.stderr.decode("utf-8", "replace")
        check(not sanitizer_report(err), "sanitizer report: %r" % err[-2000:])
        check(r.returncode == 2, "export --files FIFO: exit %d" % r.returncode)
        check("not a regular file" in err and fifo in err, "message: %r" % err)
    r = run_limited("export", fifo, "-o", path("ds"), timeout=30)
    if check(r is not None, "export FIFO: blocks"):
        check(r.returncode == 2, "export FIFO: exit %d" % r.returncode)
    # A record of the dataset that is a FIFO: the task looks records up
    # before exporting (export_record.c).
    ds = path("ds2")
    folder = os.path.join(ds, "_inputs", "trace", "run=j1")
    os.makedirs(folder)
    os.mkfifo(os.path.join(folder, "rank=0.json"))
    r = run_limited("export", TRACE_A, "-o", ds, "--run", "j1", "-q", timeout=120)
    if check(r is not None, "export into a dataset with a FIFO record: blocks"):
        check(r.returncode in (0, 3), "exit %d %r" % (r.returncode, r.stderr[-300:]))


if __name__ == "__main__":
    main(globals())
