#!/usr/bin/env python3
"""Finding slices a viewer opens at any rank count, and an HTML report that
summarises every rank (issue 45, items 1 and 2).

    check_slices.py PROFDB WORKDIR warmup TRACE
    check_slices.py PROFDB WORKDIR scale EXAMPLE_DIR REPLICATE_PY

warmup: TRACE is the public pytorch__kineto resnet50 trace
worker0.1623143089861 (skipped, exit 77, without it), whose report excludes
its first step (5) as warm-up and whose findings name no step: each
finding's `export --finding` slice must be a step the report analysed,
never the excluded one.

scale: EXAMPLE_DIR's two ranks replicated to 256 (bench/replicate_ranks.py)
and loaded into a database; and to 64, exported as a dataset (at 256 its
export alone takes half a minute on a busy machine; its commands' length
does not grow with the ranks).  The straggler finding's
slice shows at most 8 ranks (the latest and earliest arrivals and the
median rank), names every other rank the finding names in its metadata, is
under 50 MB, and --max-mb refuses a slice past it (exit 6, nothing
written); every "Open it" of the HTML report (of the database and of the
dataset) is under 500 characters, the dataset's runs and gives the
database's slice; the HTML shows min/median/max with their ranks above
every folded per-rank table.  With chromium, the 256-rank page renders
without a console error, the summaries in its DOM.
"""
import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

PROFDB, WORK, MODE = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, ok=(0,), **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode not in ok:
        fail("%s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr[-2000:]))
    return r


def commands(page):
    """The "Open it" command of each finding, in order."""
    return [html.unescape(c) for c in
            re.findall(r"<dt>Open it</dt><dd><code>(.*?)</code>", page)]


def export_meta(path):
    with open(path) as f:
        doc = json.load(f)
    return doc, doc["profdb.export"]


def mode_warmup(trace):
    if not os.path.exists(trace):
        print("skipped: %s is missing" % trace)
        sys.exit(77)
    db = os.path.join(WORK, "r50.db")
    run([PROFDB, "load", trace, "-o", db, "-q"])
    rep = os.path.join(WORK, "r50.json")
    run([PROFDB, "report", db, "--json", rep])
    with open(rep) as f:
        report = json.load(f)
    m = re.search(r"step (\d+) excluded as warm-up", report["scope"])
    if not m:
        fail("the report excludes no warm-up step: %r" % report["scope"])
    warm = int(m.group(1))
    m = re.search(r"steps (\d+)-(\d+) analysed", report["scope"])
    analysed = set(range(int(m.group(1)), int(m.group(2)) + 1))
    checked = 0
    for k, f in enumerate(report["findings"]):
        if f["rule"].startswith("need_") or any("step" in s for s in f["subjects"] or []):
            continue
        out = os.path.join(WORK, "f%d.json" % (k + 1))
        run([PROFDB, "export", db, "--format", "chrome", "--finding", str(k + 1), "-o", out, "-q"])
        _, meta = export_meta(out)
        if meta["step"] == warm or meta["step"] not in analysed:
            fail("--finding %d (%s) exports step %s; the report analysed %s and excluded %d" %
                 (k + 1, f["rule"], meta["step"], sorted(analysed), warm))
        checked += 1
    if not checked:
        fail("no finding to export")
    print("ok: %d findings' slices are analysed steps, none the warm-up step %d" % (checked, warm))


def check_straggler(db):
    out = os.path.join(WORK, "straggler.json")
    run([PROFDB, "export", db, "--format", "chrome", "--finding", "straggler", "-o", out, "-q"])
    size = os.path.getsize(out)
    _, meta = export_meta(out)
    shown = [r["rank"] for r in meta["ranks"]]
    fmeta = meta.get("finding")
    if not fmeta:
        fail("straggler slice: %d ranks, no profdb.export.finding naming the others" % len(shown))
    roles = {r["role"] for r in fmeta["shown"]}
    if size >= 50e6 or len(shown) > 8 or sorted(shown) != sorted(r["rank"] for r in fmeta["shown"]):
        fail("straggler slice: %d bytes, ranks %r, metadata %r" % (size, shown, fmeta["shown"]))
    if not {"latest", "earliest", "median"} <= roles:
        fail("straggler slice: roles %r, not the latest, median and earliest arrivals" % roles)
    rep = os.path.join(WORK, "j256.json")
    run([PROFDB, "report", db, "--section", "findings", "--json", rep])
    with open(rep) as f:
        found = [g for g in json.load(f)["findings"] if g["rule"] == "straggler"]
    named = {s["rank"] for s in found[0]["subjects"]}
    if named - set(shown) != set(fmeta["not_shown"]):
        fail("straggler slice: the metadata names %d ranks not shown, the finding %d" %
             (len(fmeta["not_shown"]), len(named - set(shown))))
    # the size guard: refused, exit 6, nothing written
    big = os.path.join(WORK, "big.json")
    r = run([PROFDB, "export", db, "--format", "chrome", "--finding", "straggler",
             "--max-ranks", "256", "--max-mb", "1", "-o", big], ok=(6,))
    if os.path.exists(big) or "--max-mb" not in r.stderr or "--max-ranks" not in r.stderr:
        fail("--max-mb 1: a file was left, or the message names no way to narrow: %r" % r.stderr)
    print("ok: straggler slice of 256 ranks: %d ranks (%s), %d named only, %.2f MB" %
          (len(shown), ", ".join(sorted(roles)), len(fmeta["not_shown"]), size / 1e6))


def check_summaries(page, tag):
    """Every folded per-rank table has the min/median/max summary above it."""
    sections = page.split("<section ")
    folded = 0
    for sec in sections:
        for m in re.finditer(r"<details><summary>All (\d+) rows, over (\d+) ranks", sec):
            folded += 1
            before = sec[:m.start()]
            if 'class="ranks sortable"' not in before or not all(
                    w in before for w in (">min<", ">median<", ">max<")):
                fail("%s: a folded table (%s rows) has no min/median/max above it" %
                     (tag, m.group(1)))
    if folded < 5:
        fail("%s: only %d folded per-rank tables" % (tag, folded))
    return folded


def mode_scale(example, replicate):
    src = [os.path.join(example, n) for n in sorted(os.listdir(example)) if ".pt.trace." in n]
    dbs = {}
    for n in (256, 64):  # the dataset of 64 (its export writes a file per table and rank)
        traces = os.path.join(WORK, "j%d" % n)
        run([sys.executable, replicate, *src, "--ranks", str(n), "-o", traces])
        dbs[n] = os.path.join(WORK, "j%d.db" % n)
        run([PROFDB, "load", traces, "-o", dbs[n], "-q"])
    db, ds = dbs[256], os.path.join(WORK, "ds64")
    run([PROFDB, "export", dbs[64], "-o", ds, "-q"], ok=(0, 3))
    check_straggler(db)
    for tag, what in (("database", db), ("dataset", ds)):
        page_path = os.path.join(WORK, tag + ".html")
        run([PROFDB, "report", what, "--html", page_path])
        with open(page_path) as f:
            page = f.read()
        cmds = [c for c in commands(page) if c]
        long = [c for c in cmds if len(c) >= 500]
        if not cmds or long:
            fail("%s: Open it commands of %s characters" % (tag, [len(c) for c in long or cmds]))
        folded = check_summaries(page, tag)
        print("ok: %s: %d Open it commands, the longest %d characters; %d folded tables "
              "summarised" % (tag, len(cmds), max(map(len, cmds)), folded))
    # the dataset's straggler command runs and gives its database's slice
    cmd = [c for c in cmds if "--finding straggler" in c][0]
    argv = shlex.split(cmd)
    run([PROFDB] + argv[1:] + ["-q"], cwd=WORK)
    got, _ = export_meta(os.path.join(WORK, argv[argv.index("-o") + 1]))
    want = os.path.join(WORK, "want.json")
    run([PROFDB, "export", dbs[64], "--format", "chrome", "--finding", "straggler", "-o", want,
         "-q"])
    want, _ = export_meta(want)
    key = lambda d: sorted(json.dumps(e, sort_keys=True) for e in d["traceEvents"])
    if key(got) != key(want):
        fail("dataset: %r gives another slice than --finding straggler on the database" % cmd)
    render(os.path.join(WORK, "database.html"))


def render(page):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("chromium is not installed: the page is not rendered")
        return
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--enable-logging=stderr", "--v=0"]
    r = subprocess.run([browser, *flags, "--dump-dom", "file://" + page], capture_output=True,
                       text=True, timeout=120)
    errors = [l for l in r.stderr.splitlines() if re.search("CONSOLE|Uncaught|net::ERR", l)]
    if r.returncode or errors or r.stdout.count('class="ranks sortable"') < 5:
        fail("chromium: exit %d, %d console errors %r, %d summaries in the DOM" %
             (r.returncode, len(errors), errors[:2], r.stdout.count('class="ranks sortable"')))
    print("ok: chromium renders the page, %d summaries in its DOM" %
          r.stdout.count('class="ranks sortable"'))


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
if MODE == "warmup":
    mode_warmup(sys.argv[4])
else:
    mode_scale(sys.argv[4], sys.argv[5])
