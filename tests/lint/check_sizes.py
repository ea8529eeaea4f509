#!/usr/bin/env python3
"""Product code stays in pieces a reader can hold: no C function over 100
lines, no .c file over 1,000 lines, no .sql file over 400 lines.

    check_sizes.py SOURCE_DIR
    check_sizes.py --self-test

Product code is loader/, export/, report/, cli/, sqlext/, queries/ and
python/profdb/*.c (tests, benchmarks and fuzzers are not).  A function's
length runs from the line with its name to the line of its closing brace,
as Universal Ctags counts it (`ctags --fields=+ne`); the scanner below
finds function bodies by matching braces outside comments, strings and
preprocessor lines, so the lint needs no ctags.  Fails listing every
offender with its length; there is no list of exceptions.
"""
import os
import re
import sys
import tempfile

MAX_FUNCTION = 100
MAX_C_FILE = 1000
MAX_SQL_FILE = 400
PRODUCT_DIRS = ["loader", "export", "report", "cli", "sqlext", "queries"]


def product_files(src):
    """Product .c and .sql files, relative to src, sorted."""
    out = []
    for top in PRODUCT_DIRS:
        for root, dirs, files in os.walk(os.path.join(src, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in files:
                if name.endswith((".c", ".sql")):
                    out.append(os.path.relpath(os.path.join(root, name), src))
    py = os.path.join(src, "python", "profdb")
    if os.path.isdir(py):
        out += [os.path.join("python", "profdb", n) for n in os.listdir(py) if n.endswith(".c")]
    return sorted(out)


def blank_out(text):
    """text with comments, string and character literals and preprocessor
    lines replaced by spaces (newlines kept, so line numbers stay)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a directive, with its continuations
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def functions(text):
    """(name, first line, last line) of each function defined in C text."""
    code = blank_out(text)
    found = []
    depth = 0
    body_start = None  # (name, line) of the function whose body is open
    for m in re.finditer(r"[{}]", code):
        if m.group() == "{":
            if depth == 0:
                head = code[: m.start()].rstrip()
                # int f(...) {  /  int f(...) __attribute__((...)) {
                head = re.sub(r"(__attribute__\s*\(\(.*?\)\)\s*)+$", "", head, flags=re.S).rstrip()
                body_start = None
                if head.endswith(")"):
                    level, k = 0, len(head) - 1
                    while k >= 0:
                        level += {")": 1, "(": -1}.get(head[k], 0)
                        if level == 0:
                            break
                        k -= 1
                    name = re.search(r"([A-Za-z_]\w*)\s*$", head[:k])
                    if name and name.group(1) not in ("if", "while", "for", "switch"):
                        body_start = (name.group(1), code.count("\n", 0, name.start(1)) + 1)
            depth += 1
        else:
            depth -= 1
            if depth == 0 and body_start:
                found.append((body_start[0], body_start[1], code.count("\n", 0, m.start()) + 1))
                body_start = None
    return found


def offenders(src):
    bad = []
    for rel in product_files(src):
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        limit = MAX_SQL_FILE if rel.endswith(".sql") else MAX_C_FILE
        if lines > limit:
            bad.append("%s: %d lines (at most %d)" % (rel, lines, limit))
        if rel.endswith(".c"):
            for name, first, last in functions(text):
                if last - first + 1 > MAX_FUNCTION:
                    bad.append("%s:%d: %s() is %d lines (at most %d)"
                               % (rel, first, name, last - first + 1, MAX_FUNCTION))
    return bad


def self_test():
    """The scanner finds what it must: a test that the lint can fail."""
    body = "\n".join("  x += %d; /* } */" % i for i in range(MAX_FUNCTION - 1))
    text = ('#define OPEN {\nstatic const char *s = "{";\nstatic int t[] = {1, 2};\n'
            "static int f(int x)\n  __attribute__((unused)) {\n"
            "  if (x) {\n    x = '}';\n  }\n  return x;\n}\n"
            "int long_one(int x) {\n" + body + "\n}\n"
            "struct s { int a; };\nint ok(void) { return 0; }\n")
    got = [(n, b - a + 1) for n, a, b in functions(text)]
    want = [("f", 7), ("long_one", MAX_FUNCTION + 1), ("ok", 1)]
    if got != want:
        print("self-test: functions() found %r, expected %r" % (got, want))
        return 1
    # Files one line over the limits, in a product folder and outside one.
    with tempfile.TemporaryDirectory() as tree:
        for rel, lines in [("loader/big.c", MAX_C_FILE + 1), ("queries/diff/big.sql", MAX_SQL_FILE + 1),
                           ("export/ok.sql", MAX_SQL_FILE), ("tests/big.c", MAX_C_FILE + 1)]:
            os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
            with open(os.path.join(tree, rel), "w") as f:
                f.write("x\n" * lines)
        got = [b.split(":")[0] for b in offenders(tree)]
    if got != ["loader/big.c", "queries/diff/big.sql"]:
        print("self-test: offenders() found %r" % got)
        return 1
    print("self-test: ok")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    src = sys.argv[1]
    if self_test():
        return 1
    bad = offenders(src)
    if bad:
        print("over the size limits (split by concern):")
        for b in bad:
            print("  " + b)
        return 1
    print("%d product files within the size limits" % len(product_files(src)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
