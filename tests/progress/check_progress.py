#!/usr/bin/env python3
"""What a user sees of a load's progress, on a narrow terminal and in pipes.

    check_progress.py PROFDB SOURCE_DIR WORK_DIR

Runs `profdb load` and `profdb report` on trace and snapshot fixtures in a
pseudo-terminal WIDTH columns wide, replays the output on a small
terminal model, and checks:
  - every phase the loader announces (each progress_phase("...") in
    loader/*.c) appears, and each file's read progress ([i/n], MB read);
  - no progress line is wider than WIDTH - 1 columns, though the path is
    longer than the terminal: the path loses its start, the figures stay;
  - the final screen holds no stale progress text (every redraw erases to
    the end of the line, and the line is cleared before other messages);
  - `profdb report FILE.json` shows the same progress;
  - with stderr on a pipe there is no progress line, unless --progress
    forces it (then cut to $COLUMNS); a log's plain lines come only every
    10 s (check_log_lines.py), so none in these short runs.
"""
import fcntl
import glob
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios

profdb, src, work = sys.argv[1:4]
WIDTH = 50
failures = []


def fail(msg):
    failures.append(msg)


def in_pty(args, width=WIDTH):
    """Run args on a terminal width columns wide; all it wrote, decoded."""
    try:
        pid, fd = pty.fork()
    except OSError as e:  # no pseudo-terminals in this container
        print(f"skipped: cannot open a pseudo-terminal: {e}")
        sys.exit(77)
    if pid == 0:
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, width, 0, 0))
        os.execv(args[0], args)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def screen(text, width):
    """The lines a terminal shows after text: \\r, \\n, ESC[K and
    characters (wrapping at width); any other control fails."""
    lines, row, col = [[]], 0, 0
    i = 0
    while i < len(text):
        c = text[i]
        if text.startswith("\x1b[K", i):
            del lines[row][col:]
            i += 3
            continue
        if c == "\r":
            col = 0
        elif c == "\n":
            row += 1
            col = 0
            if row == len(lines):
                lines.append([])
        elif c < " " or c == "\x1b":
            fail(f"unexpected control {c!r} in the output")
        else:
            if col == width:  # wrapped
                row, col = row + 1, 0
                if row == len(lines):
                    lines.append([])
            line = lines[row]
            line.extend(" " * (col + 1 - len(line)))
            line[col] = c
            col += 1
        i += 1
    return ["".join(l).rstrip() for l in lines]


def progress_lines(text):
    """Each drawn progress line: the text between a \\r and its ESC[K."""
    return [m for m in re.findall(r"\r([^\r\n\x1b]*)\x1b\[K", text) if m]


phases = sorted({m for path in glob.glob(os.path.join(src, "loader", "*.c"))
                 for m in re.findall(r'progress_phase\("([^"]+)"\)', open(path).read())})
if len(phases) < 5:
    fail(f"found only {len(phases)} progress phases in loader/*.c: {phases}")

# A path longer than the terminal: a deep folder with a long name.
shutil.rmtree(work, ignore_errors=True)
deep = os.path.join(work, "a_folder_with_a_rather_long_name", "and_another_one_inside_it")
os.makedirs(deep)
data = os.path.join(src, "tests", "report", "data")
inputs = []
for name in ("train_rank0.json", "train_rank1.json", "memory_snapshot.json"):
    inputs.append(os.path.join(deep, name))
    shutil.copy(os.path.join(data, name), inputs[-1])
if len(inputs[0]) <= WIDTH:
    fail("the fixture path must be longer than the terminal")


def check_terminal_run(what, args, last_screen):
    rc, out = in_pty(args)
    if rc != 0:
        fail(f"{what}: exit {rc}: {out[-300:]!r}")
        return
    drawn = progress_lines(out)
    for phase in phases:
        if not any(l.startswith(f"profdb: {phase}, ") for l in drawn):
            fail(f"{what}: phase '{phase}' never shown")
    for k in (1, 2, 3):
        if not any(l.startswith(f"[{k}/3] ...") and " MB read, " in l for l in drawn):
            fail(f"{what}: no '[{k}/3] ...PATH: N MB read' line")
    for l in drawn:
        if len(l) > WIDTH - 1:
            fail(f"{what}: a progress line of {len(l)} columns on a {WIDTH}-column"
                 f" terminal: {l!r}")
    for l in drawn:
        m = re.match(r"\[\d/3\] \.\.\.(.+): \d+ MB read, ", l)
        if m and not any(p.endswith(m.group(1)) for p in inputs):
            fail(f"{what}: the path was not cut from its start: {l!r}")
    shown = screen(out, WIDTH)
    stale = [l for l in shown if " MB read, " in l or
             any(l.startswith(f"profdb: {p}") for p in phases)]
    if stale:
        fail(f"{what}: stale progress text on the final screen: {stale}")
    if [l for l in shown if l] != last_screen:
        fail(f"{what}: the final screen shows {shown}, not {last_screen}")
    print(f"{what}: {len(drawn)} progress lines, final screen {shown}")


db = os.path.join(work, "run.db")
summary = subprocess.run([profdb, "load", *inputs, "-o", db], capture_output=True,
                         text=True).stderr
os.unlink(db)
# The load's closing line (wrapped at WIDTH), nothing else.
check_terminal_run("load", [profdb, "load", *inputs, "-o", db],
                   screen(summary.replace("\n", "\r\n"), WIDTH)[:-1])
md = os.path.join(work, "report.md")
check_terminal_run("report", [profdb, "report", *inputs, "--md", md], [])
if not os.path.exists(md):
    fail("report: no Markdown written")

# Pipes: nothing unless forced, then as wide as $COLUMNS.
env = dict(os.environ, COLUMNS="30")
for what, args in (("load", [profdb, "load", *inputs, "-o", db]),
                   ("report", [profdb, "report", *inputs, "--md", md])):
    for force in ([], ["--progress"]):
        if os.path.exists(db):
            os.unlink(db)
        r = subprocess.run(args + force, capture_output=True, env=env)
        err = r.stderr.decode("utf-8", "replace")
        if not force and (r.returncode != 0 or "\r" in err or "MB read" in err):
            fail(f"{what} into a pipe: exit {r.returncode}, stderr {err[:200]!r}")
    drawn = progress_lines(err)
    if r.returncode != 0 or not any("MB read" in l for l in drawn) or \
            any(len(l) > 29 for l in drawn):
        fail(f"{what} --progress into a pipe with COLUMNS=30: exit {r.returncode},"
             f" lines {drawn[:3]}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
