#!/usr/bin/env python3
"""check_layers.py SRC: the product's files depend one way, with no circle.

A module is a source file and its header (buf.c + buf.h).  Module A depends
on B when A's source or header includes B's header ("B.h"), or when A's
source calls a function B's source defines (a header shared by several
files hides such a dependency from the include lines).  A circle
(A -> B -> ... -> A) means neither can be read, built or tested without the
other: the piece both need belongs a floor below them.  The test prints
each circle found and fails; it also prints the floors (each module's
longest path down), so a reader sees the layering.
"""
import os
import re
import sys

src = sys.argv[1]
PRODUCT = ("loader", "export", "report", "cli", "sqlext", "python/profdb")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

modules = {}  # name -> set of included header names (module names)
for top in PRODUCT:
    for d, dirs, fs in os.walk(os.path.join(src, top)):
        dirs[:] = [x for x in dirs if not x.startswith(("build", "__", "."))]
        for f in fs:
            if not f.endswith((".c", ".h")):
                continue
            name = f[:-2]
            deps = modules.setdefault(name, set())
            for inc in INCLUDE.findall(open(os.path.join(d, f), encoding="utf-8").read()):
                base = os.path.basename(inc)
                if base.endswith(".h") and base[:-2] != name:
                    deps.add(base[:-2])
# Calls: a function defined (not static) in one source, called in another.
DEFINITION = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?[\s\*](\w+)\s*\([^;{]*\)\s*\{", re.M)
CALL = re.compile(r"\b(\w+)\s*\(")
bodies, defined_in = {}, {}
for top in PRODUCT:
    for d, dirs, fs in os.walk(os.path.join(src, top)):
        dirs[:] = [x for x in dirs if not x.startswith(("build", "__", "."))]
        for f in fs:
            if f.endswith(".c"):
                text = open(os.path.join(d, f), encoding="utf-8").read()
                text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
                text = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)
                bodies[f[:-2]] = text
                for m in DEFINITION.finditer(text):
                    defined_in.setdefault(m.group(1), f[:-2])
for name, text in bodies.items():
    for fn in set(CALL.findall(text)):
        owner = defined_in.get(fn)
        if owner and owner != name:
            modules[name].add(owner)
for deps in modules.values():
    deps.intersection_update(modules)

# Tarjan's strongly connected components: a component of two or more
# modules is a circle.
index, low, stack, on_stack, circles = {}, {}, [], set(), []


def visit(v, counter=[0]):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on_stack.add(v)
    for w in sorted(modules[v]):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on_stack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on_stack.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            circles.append(sorted(comp))


sys.setrecursionlimit(10000)
for v in sorted(modules):
    if v not in index:
        visit(v)

for c in circles:
    edges = ["%s -> %s" % (a, b) for a in c for b in sorted(modules[a]) if b in c]
    print("FAIL: circle between %s (%s)" % (", ".join(c), "; ".join(edges)))
if not circles:
    floor = {}

    def depth(v):
        if v not in floor:
            floor[v] = 1 + max((depth(w) for w in modules[v]), default=-1)
        return floor[v]

    top = max((depth(v) for v in modules), default=0)
    for level in range(top + 1):
        print("floor %d: %s" % (level, " ".join(sorted(v for v in modules if floor[v] == level))))
print("%d modules, %d circles" % (len(modules), len(circles)))
sys.exit(1 if circles else 0)
