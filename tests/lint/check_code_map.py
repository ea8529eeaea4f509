#!/usr/bin/env python3
"""check_code_map.py SRC: the README's code map names every product file.

A newcomer finds a file through README.md's "## Code map"; a file missing
there is a file nobody will find.  Checked:
  - every C source and header of the products (loader/, export/, report/,
    cli/, sqlext/, include/profdb/, python/profdb/) and every cmake/ file is
    named in the map, by its path or its file name (a header by its .c too);
  - every product .sql file outside queries/ is named, or matched by a glob
    the map writes in backquotes (`export/chrome/*.sql`, `loader/sql/merge_*.sql`);
    queries/ is the report's, listed by queries/report.list and its own README;
  - every path the map names exists (a map that outlives a file is stale too).
"""
import fnmatch
import os
import re
import sys

src = sys.argv[1]
readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
m = re.search(r"^## Code map\n(.*?)(?=^## )", readme, re.S | re.M)
if not m:
    sys.exit("check_code_map: README.md has no '## Code map' section")
code_map = m.group(1)
quoted = re.findall(r"`([^`]+)`", code_map)
names = set()
for q in quoted:
    for word in re.split(r"[\s,()+]+", q):
        if word:
            names.add(word.rstrip(":;."))

PRODUCT_C = ("loader", "export", "report", "cli", "sqlext", "include/profdb", "python/profdb")
failures = []


def product_files(top, exts):
    for d, dirs, fs in os.walk(os.path.join(src, top)):
        dirs[:] = [x for x in dirs if not x.startswith(("build", "__", "."))]
        for f in sorted(fs):
            if f.endswith(exts):
                yield os.path.relpath(os.path.join(d, f), src)


def named(rel):
    if rel in names or os.path.basename(rel) in names:
        return True
    # A header goes with its source file: naming buf.c names buf.h.
    return rel.endswith(".h") and (rel[:-2] + ".c" in names
                                   or os.path.basename(rel)[:-2] + ".c" in names)


def globbed(rel):
    return any("*" in n and fnmatch.fnmatch(rel, n) for n in names)


checked = 0
for top in PRODUCT_C:
    for rel in product_files(top, (".c", ".h", ".h.in", ".py")):
        checked += 1
        if not named(rel):
            failures.append("%s: not in README.md's code map" % rel)
for rel in product_files("cmake", (".cmake", ".in")):
    checked += 1
    if not named(rel):
        failures.append("%s: not in README.md's code map" % rel)
for top in ("loader", "export", "report", "cli"):
    for rel in product_files(top, (".sql",)):
        checked += 1
        if not (named(rel) or globbed(rel)):
            failures.append("%s: not in README.md's code map (by name or a `DIR/*.sql` glob)" % rel)

# Paths the map names must exist (globs must match something).
for n in sorted(names):
    if "/" not in n or n.startswith(("http", "#", "$", "-")) or n.endswith("/"):
        continue
    if not re.match(r"^[\w./*-]+\.\w+$", n):
        continue
    if "*" in n:
        top = n.split("/")[0]
        if not any(fnmatch.fnmatch(r, n) for r in product_files(top, ("",))):
            failures.append("README.md's code map: %s matches no file" % n)
    elif not os.path.exists(os.path.join(src, n)):
        failures.append("README.md's code map: %s does not exist" % n)

for f in failures:
    print("FAIL:", f)
print("checked %d product files against README.md's code map: %d failures" % (checked, len(failures)))
sys.exit(1 if failures else 0)
