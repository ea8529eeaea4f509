#!/usr/bin/env python3
"""The OFFSET of `profdb: FILE:OFFSET: invalid JSON: ...` is 0-based: the
first byte of the token that is wrong, the same number as Python's
json.JSONDecodeError.pos (docs/reliability.md).  Issue 29: it was one
past it.

    check_error_offset.py PROFDB WORK_DIR

Each malformed text is loaded plain and gzip-compressed, alone and after a
1.5 MiB valid prefix (the error then lies in a later read chunk), and at
read-chunk sizes 1, 7 and the default: every load must exit 1 and name
Python's offset.  Left out: NaN / Infinity (Python accepts them) and a
leading zero such as 01 (yajl refuses the token 01 where Python reads 0
and then refuses 1).
"""
import gzip
import json
import os
import re
import subprocess
import sys

BAD = [
    b'{"traceEvents": [1, 2,, 3]}',
    b'{"traceEvents": [1, 2, 3]} x',
    b'{"traceEvents": [1, 2, 3]}   xyz',
    b'{"traceEvents": [1, tru]}',
    b'{"traceEvents": [1, 2 3]}',
    b'{"traceEvents" 123}',
    b'{"traceEvents": [1, "a\x01b"]}',
    b'{"traceEvents": [1, "a\\qb"]}',
    b'{"traceEvents": [1, -]}',
    b'{"traceEvents": [1, "ab" "cd"]}',
    b'{"traceEvents": [1 }',
    b'{"traceEvents": [1, {"a": 1,}]}',
    b'{"traceEvents": [1, {1: 2}]}',
    b'{"traceEvents": [1, "x"]]}',
    b'{"traceEvents": [1, @]}',
    b'{"traceEvents": [1, true false]}',
    b'{"traceEvents": [], "a": 1 2}',
    b'{"traceEvents": [], "a": 1 "b"}',
    b'{"traceEvents": [], "a": 1 "bcd"}',
    b'{"traceEvents": [], "x": 1 ]}',
    b'{"traceEvents": [], "b" 2}',
    b'{"traceEvents": [1, 2}',
    b'[1, 2, 3]]',
    b'{"traceEvents": [{"b": 1]}',
    b'{"traceEvents": []}}',
    b'{"traceEvents": [\n  {"ph": "X", "name": "a" "cat": "b"}\n]}',
]
PREFIX_EVENT = b'{"ph": "i", "name": "n", "pid": 1, "tid": 1, "ts": 1, "s": "t"}, '


def with_prefix(text):
    """The same error after 1.5 MiB of valid events."""
    head = b'{"traceEvents": ['
    if not text.startswith(head) or text.startswith(head + b']'):
        return None
    n = (3 << 19) // len(PREFIX_EVENT) + 1
    return head + PREFIX_EVENT * n + text[len(head):]


def main():
    profdb, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    problems, loads = [], 0
    texts = [t for t in BAD] + [p for p in map(with_prefix, BAD) if p]
    for i, text in enumerate(texts):
        try:
            json.loads(text)
            problems.append(f"case {i}: Python accepts it")
            continue
        except json.JSONDecodeError as e:
            want = e.pos
        except UnicodeDecodeError:
            continue
        for gz in (False, True):
            path = os.path.join(work, f"case{i}.json" + (".gz" if gz else ""))
            with open(path, "wb") as f:
                f.write(gzip.compress(text, mtime=0) if gz else text)
            for chunk in ([], ["--chunk-size", "1"], ["--chunk-size", "7"]):
                if chunk and len(text) > 4096:
                    continue  # 1-byte reads of 1.5 MiB: slow, and the prefix cases test chunks
                db = os.path.join(work, "out.db")
                r = subprocess.run([profdb, "load", "-q", *chunk, path, "-o", db],
                                   capture_output=True, text=True)
                loads += 1
                m = re.search(re.escape(os.path.basename(path)) + r":(\d+): invalid JSON", r.stderr)
                if r.returncode != 1 or not m or int(m.group(1)) != want:
                    problems.append(f"case {i} {text[:40]!r}{' gz' if gz else ''} {chunk}: exit "
                                    f"{r.returncode}, {r.stderr.strip()[:120]!r}; want offset {want}")
    for p in problems:
        print("FAIL", p)
    print(f"{len(texts)} texts, {loads} loads, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
