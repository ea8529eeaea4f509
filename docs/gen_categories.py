#!/usr/bin/env python3
"""Keep README.md's kernel category table equal to sqlext/category.c.

    gen_categories.py [--check]

Rewrites the table rows between the table header and the next blank line
of the "Kernel categories" paragraph; --check exits 1 when they differ.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = "| category | patterns (substrings of the lower-cased name) |\n|---|---|\n"


def table():
    src = open(os.path.join(ROOT, "sqlext", "category.c"), encoding="utf-8").read()
    rules = re.findall(r'\{"([^"]+)",\s*\{((?:"[^"]*",\s*)+)NULL\}\}', src)
    return "".join("| %s | %s |\n" % (c, ", ".join("`%s`" % p for p in re.findall(r'"([^"]*)"', pats)))
                   for c, pats in rules)


def main():
    path = os.path.join(ROOT, "README.md")
    readme = open(path, encoding="utf-8").read()
    start = readme.index(HEADER) + len(HEADER)
    end = readme.index("\n\n", start) + 1
    new = readme[:start] + table() + readme[end:]
    if "--check" in sys.argv:
        if new != readme:
            print("README.md's category table differs from sqlext/category.c:"
                  " run docs/gen_categories.py")
            return 1
        return 0
    open(path, "w", encoding="utf-8").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
