#!/usr/bin/env python3
"""One way for each piece of plumbing in the product code (loader/, export/,
report/, cli/, sqlext/, python/profdb/_native.c).

    check_plumbing.py SOURCE_DIR

Fails when
  * a file is renamed into place (rename, renameat, renameat2) anywhere but
    the one atomic publish, loader/publish.c (pub_rename), or there more
    than once;
  * a temporary file or folder is made (mkstemp, mkostemp, mkdtemp)
    anywhere but loader/publish.c (pub_open, pub_tmpdir);
  * a signal handler is installed (sigaction, or signal() with anything
    but SIG_IGN) anywhere but the one signal-cleanup registry,
    loader/publish.c (pub_keep), which restores the previous handlers;
  * a source declares an embedded SQL text by hand (extern const char
    profdb_...): they are declared by the registry CMake generates,
    profdb_sql.h (cmake/embed_sql.cmake).
Comments and string literals are not code: a comment may name rename().
"""
import os
import re
import sys

src = sys.argv[1]
PUBLISH = "loader/publish.c"
ONE = "loader/publish.c (the one publish and signal registry)"
REGISTRY = "the generated registry (profdb_sql.h)"
# (what, pattern, allowed files, most call sites allowed there, where it belongs)
RULES = [
    ("rename", re.compile(r"\brename(at2?)?\s*\("), {PUBLISH}, 1, ONE),
    ("temporary file", re.compile(r"\b(mkstemp|mkostemp|mkdtemp)\s*\("), {PUBLISH}, 2, ONE),
    ("signal handler", re.compile(r"\bsigaction\s*\("), {PUBLISH}, 3, ONE),
    ("signal handler", re.compile(r"\bsignal\s*\((?![^;]*SIG_IGN\s*\))"), set(), 0, ONE),
    ("hand-written extern of embedded SQL", re.compile(r"\bextern\s+const\s+char\s+profdb_"),
     set(), 0, REGISTRY),
]


def code_only(text):
    """text with comments and string/char literals blanked (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


files = [os.path.join("python", "profdb", "_native.c")]
for top in ("loader", "export", "report", "cli", "sqlext"):
    for root, _, names in os.walk(os.path.join(src, top)):
        files += [os.path.relpath(os.path.join(root, f), src) for f in sorted(names)
                  if f.endswith((".c", ".h"))]

failures = []
counts = {}
for rel in sorted(files):
    path = os.path.join(src, rel)
    if not os.path.exists(path):
        continue
    code = code_only(open(path, encoding="utf-8", errors="replace").read())
    for k, (what, pattern, allowed, most, where) in enumerate(RULES):
        for m in pattern.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            if rel not in allowed:
                failures.append("%s:%d: %s outside %s" % (rel, line, what, where))
            else:
                counts[k] = counts.get(k, 0) + 1

for k, (what, pattern, allowed, most, where) in enumerate(RULES):
    if counts.get(k, 0) > most:
        failures.append("%s: %d %s call sites, at most %d (one publish, one registry)" %
                        (", ".join(sorted(allowed)), counts[k], what, most))
    if allowed and counts.get(k, 0) == 0:
        failures.append("%s: no %s call site found: is the check still looking at the right"
                        " code?" % (", ".join(sorted(allowed)), what))

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print("%d files: one rename, one temporary-file maker and one signal registry (%s);"
      " no hand-written extern of embedded SQL" % (len(files), PUBLISH))
