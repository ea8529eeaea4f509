#!/usr/bin/env python3
"""Generate the table and column list of docs/export.md from the export
queries' headers.

    gen_export.py [--check]

Each export/dataset/<table>.sql (names without a leading '_') opens with
what the table holds and an "-- Output:" block, one line per column:
"--   name  TYPE  description"; profdb export types the Parquet columns from
it.  This script writes those blocks between the export-columns markers of
docs/export.md.  With --check it exits 1 when the page is out of date (the
test suite runs it that way).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "export.md")
BEGIN, END = "<!-- export-columns:begin -->", "<!-- export-columns:end -->"
PARQUET = {"INT64": "INT64", "DOUBLE": "DOUBLE", "STRING": "BYTE_ARRAY (STRING, dictionary)"}
ORDER = ["trace", "step", "cpu_op", "user_annotation", "python_function", "runtime", "kernel",
         "memcpy", "memset", "gpu_sync", "gpu_annotation", "memory_event", "flow", "device",
         "snapshot", "segment", "block", "alloc_event", "stack_frame"]


def table_doc(name):
    text = open(os.path.join(ROOT, "export", "dataset", name + ".sql")).read()
    lines = text.splitlines()
    purpose = []
    for line in lines:
        if not line.startswith("--") or line.startswith("-- Parameters") or \
                line.startswith("-- Output"):
            break
        purpose.append(line[2:].strip())
    purpose = " ".join(purpose).replace("Export table %s: " % name, "")
    cols = re.findall(r"^--   (\w+)\s+(INT64|DOUBLE|STRING)\s+(.*)$",
                      text.split("\n-- Output:\n", 1)[1], re.M)
    out = ["### `%s`" % name, "", purpose[0].upper() + purpose[1:], "",
           "| column | type | what |", "|---|---|---|"]
    for c, t, d in cols:
        out.append("| `%s` | %s | %s |" % (c, PARQUET[t], d.replace("|", "\\|")))
    return "\n".join(out) + "\n"


def main():
    names = sorted(f[:-4] for f in os.listdir(os.path.join(ROOT, "export", "dataset"))
                   if f.endswith(".sql") and not f.startswith("_"))
    if sorted(ORDER) != names:
        sys.exit("gen_export.py: ORDER does not list the tables of export/dataset/: %s" % names)
    body = "\n".join(table_doc(n) for n in ORDER)
    doc = open(DOC).read()
    i, j = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    new = doc[:i] + "\n" + body + doc[j:]
    if "--check" in sys.argv:
        if new != doc:
            print("docs/export.md is out of date: run docs/gen_export.py")
            return 1
        return 0
    open(DOC, "w").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
