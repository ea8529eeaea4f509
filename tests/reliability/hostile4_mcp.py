#!/usr/bin/env python3
"""Round-4 hostile-input cases of `profdb mcp` (issue 40): C2, C10, C12, L4.

Each case talks JSON-RPC over the server's stdio, as an agent's host would,
and asserts that every message gets its one answer, that the server keeps
serving after a hostile one, and what docs/reliability.md promises.
"""
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile4_common import *  # noqa: E402,F403

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def ping(i):
    return line({"jsonrpc": "2.0", "id": i, "method": "ping"})


def call(i, name, **arguments):
    return line({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                 "params": {"name": name, "arguments": arguments}})


def serve(messages, env=None, timeout=300, preexec_fn=None):
    """Runs `profdb mcp --allow WORK` on messages (bytes, or a list of bytes
    and float pauses); returns (answers as raw lines, exit code, stderr, s)."""
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.time()
    p = subprocess.Popen([ctx.profdb, "mcp", "--allow", ctx.work], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e,
                         preexec_fn=preexec_fn)
    if isinstance(messages, bytes):
        messages = [messages]
    try:
        for m in messages:
            if isinstance(m, float):
                time.sleep(m)
            else:
                p.stdin.write(m)
                p.stdin.flush()
        p.stdin.close()
    except BrokenPipeError:
        pass
    out = p.stdout.read()
    err = p.stderr.read()
    rc = p.wait(timeout=timeout)
    check(not sanitizer_report(err), "sanitizer report: " + err.decode("utf-8", "replace")[-2000:])
    return out.splitlines(), rc, err, time.time() - t0


def answers(raw):
    return [json.loads(a) for a in raw]


def tool_text(answer):
    return answer["result"]["content"][0]["text"]


def sanitized():
    with open(ctx.profdb, "rb") as f:
        return b"__asan_init" in f.read()


def load_db(name, trace):
    db = path(name)
    r = run("load", trace, "-o", db)
    check(r.returncode == 0, "load: %r" % r.stderr[-500:])
    return db


def case_c2_mcp_deep_nesting():
    """C2: one 2 MB message nesting 10^6 arrays crashed the server (stack
    overflow in yajl_tree_free); a 5 MiB line is refused as well."""
    d = 1000000
    deep = ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":' + "[" * d + "]" * d
            + "}}\n").encode()
    deep_first = ('{"params":{"x":' + "[" * 100 + "]" * 100 + '},"jsonrpc":"2.0","id":3,'
                  '"method":"ping"}\n').encode()
    objects = ('{"jsonrpc":"2.0","id":5,"method":"ping","params":' + '{"a":' * d + "1"
               + "}" * d + "}\n").encode()
    big = ('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"s":"' + "x" * (5 << 20)
           + '"}}\n').encode()
    raw, rc, err, _ = serve([deep, ping(2), deep_first, ping(4), objects, ping(6), big, ping(8)])
    check(rc == 0, "exit %d (want 0): %s" % (rc, err[-300:]))
    got = answers(raw)
    check(len(got) == 8, "8 answers, got %d: %r" % (len(got), raw[:10]))
    if len(got) != 8:
        return
    for i, a in enumerate(got):
        if i % 2:
            check(a.get("result") == {} and a["id"] == i + 1, "ping after: %r" % a)
        else:
            check(a.get("error", {}).get("code") == -32600, "refused with -32600: %r" % a)
    check(got[0]["id"] == 1 and "nested deeper than 64" in got[0]["error"]["message"],
          "the id seen before the nesting is echoed: %r" % got[0])
    check(got[2]["id"] is None, "an id after the nesting is unknown: %r" % got[2])
    check("4 MiB" in got[6]["error"]["message"], "says the line cap: %r" % got[6])
    # a review's attack: the 4 MiB cut right after a number id ("id":12|345),
    # which yajl reports only at the end of its input: the server ran out of
    # memory echoing it (exit 5); now the id is not echoed, and it serves on
    head = '{"jsonrpc":"2.0","method":"ping","params":{"s":"'
    tail = '"},"id":12'
    fill = "x" * ((4 << 20) - len(head) - len(tail))
    cut = (head + fill + tail + '345}\n').encode()
    raw, rc, err, _ = serve([cut, ping(9)])
    got = answers(raw)
    check(rc == 0 and len(got) == 2, "cut after an id: exit %d, %d answers: %s" % (rc, len(got), err[-300:]))
    if len(got) == 2:
        check(got[0]["id"] is None and got[0].get("error", {}).get("code") == -32600,
              "the cut id is not echoed: %r" % got[0])
        check(got[1].get("result") == {} and got[1]["id"] == 9, "ping after: %r" % got[1])


def case_c10_mcp_resources():
    """C10: the sql tool's timeout_ms held only between VM steps (one
    randomblob(1e9) is one step), values of 1 GB, an out-of-memory ended
    the server (exit 5), a 20 MB line took 881 MB."""
    # first (the children's max RSS): a 20 MB line, refused without taking its size
    n = 10000000
    big = ('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":[' + "1," * (n - 1)
           + "1]}}\n").encode()
    raw, rc, err, _ = serve([big, ping(2)])
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    got = answers(raw)
    check(rc == 0 and len(got) == 2, "exit %d, answers %r" % (rc, raw))
    if len(got) == 2:
        check(got[0]["id"] == 1 and got[0].get("error", {}).get("code") == -32600,
              "refused: %r" % got[0])
        check(got[1]["result"] == {}, "ping after: %r" % got[1])
    cap = 400000 if sanitized() else 100000  # KiB
    check(rss <= cap, "max RSS %d KiB for a 20 MB line (cap %d)" % (rss, cap))

    db = load_db("run.db", TRACE_A)
    blobs = "SELECT length(randomblob(1e9)) + length(randomblob(1e9)) + length(randomblob(1e9))"
    heap = "SELECT " + ", ".join("hex(zeroblob(8000000)) AS c%d" % i for i in range(72))
    rows = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) "
            "SELECT x, hex(zeroblob(4000000)) FROM c")
    # one VM step of minutes: instr() is quadratic
    one_step = "SELECT instr(hex(zeroblob(1000000)), hex(zeroblob(500000)) || '1')"
    endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c"
    msgs = [line(INIT),
            call(1, "sql", db=db, timeout_ms=500, query=blobs),
            # the longest time limit: the heap limit, not the clock, must end it
            # (ASan on a busy machine took over the default 10 s)
            call(2, "sql", db=db, timeout_ms=60000, query=heap),
            call(3, "sql", db=db, query=rows),
            call(4, "sql", db=db, timeout_ms=300, query=endless),
            call(6, "sql", db=db, timeout_ms=300, query=one_step),
            ping(5)]
    limit = None
    if not sanitized():  # an address-space limit: what made the server exit 5
        limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # noqa: E731
    raw, rc, err, secs = serve(msgs, preexec_fn=limit)
    check(rc == 0, "exit %d (want 0; 5 was out of memory): %s" % (rc, err[-300:]))
    got = {a["id"]: a for a in answers(raw)}
    check(sorted(got) == [0, 1, 2, 3, 4, 5, 6], "one answer each: %r" % sorted(got))
    if sorted(got) != [0, 1, 2, 3, 4, 5, 6]:
        return
    t1 = tool_text(got[1])
    check(got[1]["result"]["isError"] and "too big" in t1 and "16 MiB" in t1,
          "a 1 GB value is refused: %s" % t1[:200])
    t2 = tool_text(got[2])
    check(got[2]["result"]["isError"] and "out of memory" in t2,
          "over 1 GiB of SQLite memory fails the call: %s" % t2[:200])
    r3 = json.loads(tool_text(got[3])) if not got[3]["result"]["isError"] else {}
    check(r3.get("truncated") is True and r3.get("row_count") == 2,
          "the answer is cut at 16 MiB: %s" % tool_text(got[3])[:200])
    check(got[4]["result"]["isError"] and "timeout_ms" in tool_text(got[4]),
          "timeout_ms interrupts: %s" % tool_text(got[4])[:200])
    check(got[6]["result"]["isError"] and "timeout_ms (300 ms) in one step" in tool_text(got[6]),
          "timeout_ms holds inside one VM step: %s" % tool_text(got[6])[:200])
    check(got[5].get("result") == {}, "ping answered after them: %r" % got[5])
    check(secs < (60 if sanitized() else 20), "took %.1f s" % secs)


def big_trace(out, n):
    """n kernels, each launched from an op, in n / 100 ProfilerSteps."""
    ev = []
    for i in range(n):
        t = 1000 + 10 * i
        if i % 100 == 0:
            ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (i // 100),
                       "pid": 1, "tid": 1, "ts": t, "dur": 999})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm%d" % (i % 50), "pid": 1,
                   "tid": 1, "ts": t, "dur": 5, "args": {"External id": i}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": t + 1, "dur": 2, "args": {"External id": i, "correlation": i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_%d" % (i % 70), "pid": 0, "tid": 7,
                   "ts": t + 3, "dur": 4, "args": {"External id": i, "correlation": i,
                                                   "device": 0, "stream": 7}})
    with open(out, "w") as f:
        json.dump({"traceEvents": ev}, f)


def case_c12_mcp_deadline():
    """C12: the report's deadline was per process: PROFDB_QUERY_TIMEOUT
    seconds after the first report tool call, every later one failed."""
    trace = path("big.json")
    big_trace(trace, 10000)  # statements of over 100,000 VM steps: the deadline is looked at
    db = load_db("big.db", trace)
    f = lambda i: call(i, "findings", db=db)  # noqa: E731
    s = lambda i: call(i, "read_section", db=db, section="gpu_kernel_sum")  # noqa: E731
    # Longer than one call takes, on this machine as loaded as it is now
    # (a shared machine ran one call in 2.2 s against 1.4 s of CPU):
    # three times one findings call measured here, at least 2 s (6 s
    # under the sanitizers).
    t0 = time.monotonic()
    r = run("report", db, "--section", "findings", "--json", path("one_call.json"))
    check(r.returncode == 0, "report: %r" % r.stderr[-500:])
    limit = max(6 if sanitized() else 2, int(3 * (time.monotonic() - t0)) + 1)
    raw, rc, err, _ = serve([f(1), limit + 1.0, f(2), s(3)],
                            env={"PROFDB_QUERY_TIMEOUT": str(limit)})
    check(rc == 0, "exit %d" % rc)
    got = {a["id"]: a for a in answers(raw)}
    check(sorted(got) == [1, 2, 3], "one answer each: %r" % sorted(got))
    for i in sorted(got):
        check(not got[i]["result"]["isError"],
              "call %d after the first call's deadline: %s" % (i, tool_text(got[i])[:200]))


def case_l4_mcp_ids():
    """L4: object and array ids were answered with null, a NUL cut a string
    id; JSON-RPC 2.0: an id is a string, a number or null."""
    msgs = [b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n',
            b'{"jsonrpc":"2.0","id":[1],"method":"ping"}\n',
            b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n',
            b'{"jsonrpc":"2.0","id":"a\\u0000b","method":"ping"}\n',
            b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n',
            b'{"jsonrpc":"2.0", "id" : -0.50E+3 ,"method":"ping"}\n',
            b'{"jsonrpc":"2.0","id":"\\ud800\\/x","method":"ping"}\n',
            b'{"jsonrpc":"2.0","id":null,"method":"ping"}\n',
            b'{"jsonrpc":"2.0","method":"ping","params":{"s":"a\\u0000b"},"id":9}\n',
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
            call(10, "sql", db="x.db\x00/../y.db", query="SELECT 1")]
    raw, rc, err, _ = serve(msgs)
    check(rc == 0, "exit %d" % rc)
    check(len(raw) == 10, "10 answers (none to the notification), got %d: %r" % (len(raw), raw))
    if len(raw) != 10:
        return
    got = answers(raw)
    for i in range(3):
        check(got[i]["id"] is None and got[i].get("error", {}).get("code") == -32600,
              "an object, array or boolean id is an invalid request: %r" % raw[i])
    check(b'"id": "a\\u0000b"' in raw[3] and got[3]["id"] == "a\x00b" and got[3]["result"] == {},
          "a NUL in a string id kept: %r" % raw[3])
    check(b'"id": 1e400,' in raw[4] and "result" in got[4], "1e400 echoed as sent: %r" % raw[4])
    check(b'"id": -0.50E+3,' in raw[5], "a number id echoed as its text: %r" % raw[5])
    check(b'"id": "\\ud800\\/x",' in raw[6], "a string id echoed as its text: %r" % raw[6])
    check(got[7]["id"] is None and got[7]["result"] == {}, "a null id: %r" % raw[7])
    check(got[8]["id"] == 9 and got[8].get("error", {}).get("code") == -32600,
          "a NUL in another string is refused, not cut: %r" % raw[8])
    check(got[9]["id"] == 10 and got[9]["result"]["isError"] and "U+0000" in tool_text(got[9]),
          "a NUL in a tool's argument is the tool's error: %r" % raw[9])


if __name__ == "__main__":
    main(globals())
