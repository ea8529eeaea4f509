#!/usr/bin/env python3
"""fuzz_mcp.py — fuzz `profdb mcp` with mutated JSON-RPC messages (issue 40).

  fuzz_mcp.py PROFDB [--seconds N] [--seed S] [--work DIR] [--failures DIR]

Starts `profdb mcp --allow WORK/allowed` (a database of the example trace in
it), then sends messages mutated from a seed set of valid ones (every method
and tool): byte flips, inserted and cut bytes, truncated lines, deep nesting,
huge strings, invalid UTF-8, wrong types for every tool argument, bad ids,
random method and tool names, spliced messages.  After each message it sends
a ping and reads up to that ping's answer, which checks that

  - every line got exactly one well-formed answer (JSON-RPC 2.0, the id it
    was sent with), or none for a notification or a client's response;
  - the server is alive and answers within a time limit;
  - nothing of ASan/UBSan/LSan appeared on its stderr.

A finding (its kind, the input, the messages before it) is written to the
failures folder and the server restarted.  Python 3 only, no packages.
Deterministic for a given --seed (the server's timing aside).  Exit 1 when
anything was found.  The bounds it knows are the server's (cli/mcp_server.c,
Requirement 6): 4 MiB a line, 64 levels, 100,000 values.
"""
import argparse
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import threading
import time

LINE_MAX = 4 << 20
DEPTH_MAX = 64
VALUES_MAX = 100000
ANSWER_WAIT = 120  # s: the longest a call may take (timeout_ms is at most 60 s)
SANITIZER = re.compile(rb"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|"
                       rb"runtime error:")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACE = os.path.join(ROOT, "docs", "examples", "generated_gpu_run", "rank0.pt.trace.json")

# ---- what the server should answer ------------------------------------------


def reject_constant(name):
    raise ValueError("not JSON: " + name)


def first_key_wins(pairs):
    d = {}
    for k, v in pairs:
        d.setdefault(k, v)
    return d


def strict_loads(text, **kw):
    return json.loads(text, parse_constant=reject_constant, object_pairs_hook=first_key_wins,
                      **kw)


STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
BRACKETS = re.compile(r"[^\[\]{}]")


def depth_of(text):
    depth = top = 0
    for c in BRACKETS.sub("", STRING.sub('""', text)):
        depth += 1 if c in "[{" else -1
        top = max(top, depth)
    return top


def count_values(v):
    if isinstance(v, dict):
        return 1 + sum(count_values(x) for x in v.values())
    if isinstance(v, list):
        return 1 + sum(count_values(x) for x in v)
    return 1


def has_nul(v):
    if isinstance(v, str):
        return "\0" in v
    if isinstance(v, dict):
        return any("\0" in k or has_nul(x) for k, x in v.items())
    if isinstance(v, list):
        return any(has_nul(x) for x in v)
    return False


def expect(piece):
    """(allowed answer counts, the id the answer must carry or None to skip
    the check, 'null' for a null id) for one line."""
    if len(piece) > LINE_MAX:
        return {1}, None
    if not piece.strip(b" \t\r"):
        return {0}, None
    try:
        text = piece.decode("utf-8")
    except UnicodeDecodeError:
        return {1}, "null"
    if "\0" in text or depth_of(text) > DEPTH_MAX:
        return {1}, None
    try:
        msg = strict_loads(text)
        raw_id = strict_loads(text, parse_int=str, parse_float=str).get("id", None) \
            if isinstance(msg, dict) else None
    except (ValueError, RecursionError):
        return {1}, "null"
    if count_values(msg) > VALUES_MAX:
        return {1}, None
    if not isinstance(msg, dict):
        return {1}, "null"
    if "id" in msg and (isinstance(msg["id"], (dict, list, bool))):
        return {1}, "null"
    want_id = ("null" if msg.get("id") is None else raw_id) if "id" in msg else "null"
    params = msg.get("params")
    args = params.get("arguments") if isinstance(params, dict) else None
    rest = dict(msg)
    rest.pop("id", None)
    if isinstance(params, dict):
        rest["params"] = {k: v for k, v in params.items() if k != "arguments"}
        if "arguments" in params:
            rest["params"]["arguments"] = None
            rest["args_key"] = "arguments"
    if has_nul(rest):
        return {1}, want_id
    method = msg.get("method")
    if not isinstance(method, str):
        if "method" not in msg and ("result" in msg or "error" in msg):
            return {0}, None
        return {1}, want_id
    if "id" not in msg:
        return {0}, None
    del args
    return {1}, want_id


def check_answer(line, want_id):
    """Why the answer line is not well-formed JSON-RPC, or None."""
    try:
        a = strict_loads(line.decode("utf-8"))
        raw = strict_loads(line.decode("utf-8"), parse_int=str, parse_float=str)
    except (ValueError, UnicodeDecodeError) as e:
        return "answer not JSON: %s" % e
    if not isinstance(a, dict) or a.get("jsonrpc") != "2.0" or "id" not in a:
        return "answer not JSON-RPC 2.0"
    if ("result" in a) == ("error" in a):
        return "answer has not exactly one of result and error"
    if "error" in a:
        e = a["error"]
        if not (isinstance(e, dict) and isinstance(e.get("code"), int) and
                isinstance(e.get("message"), str)):
            return "malformed error object"
    elif isinstance(a["result"], dict) and "content" in a["result"]:
        r = a["result"]
        if not (isinstance(r["content"], list) and r["content"] and
                r["content"][0].get("type") == "text" and
                isinstance(r["content"][0].get("text"), str) and
                isinstance(r.get("isError"), bool)):
            return "malformed tool result"
    if want_id == "null" and a["id"] is not None:
        return "id %r, want null" % (a["id"],)
    if want_id not in (None, "null") and raw["id"] != want_id:
        return "id %r, want %r" % (raw["id"], want_id)
    return None


# ---- seeds and mutations ------------------------------------------------------

def seeds(allowed):
    db, db2 = os.path.join(allowed, "run.db"), os.path.join(allowed, "run2.db")
    init = {"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "1"}}

    def call(name, **args):
        return ("tools/call", {"name": name, "arguments": args})
    return [
        ("initialize", init), ("ping", None), ("tools/list", {}),
        ("notifications/initialized", None), ("notifications/cancelled", {"requestId": 1}),
        call("sql", db=db, query="SELECT name, dur FROM kernel ORDER BY dur DESC",
             max_rows=5, timeout_ms=2000),
        call("sql", db=db, query="SELECT kernel_category(name), count(*) FROM kernel GROUP BY 1"),
        call("sql", db=db, query="SELECT sql FROM sqlite_schema WHERE name = 'kernel'"),
        call("findings", db=db), call("findings", db=db, scope="trace"),
        call("read_section", db=db, section="gpu_kernel_sum", top=3),
        call("list_sections", kind="report"), call("list_sections", kind="diff"),
        call("diff", before=db, after=db2, gate=["step_time > +5%"], sections=[]),
        call("load", inputs=[os.path.join(allowed, "rank0.pt.trace.json")],
             db=os.path.join(allowed, "new.db"), replace=True),
        ("resources/list", {}), (None, None),
    ]


WEIRD_VALUES = [0, -1, 1, 2 ** 63, -2 ** 63 - 1, 10 ** 30, 1.5, -0.0, 1e308, "", "x", "\0",
                "../../etc/passwd", "/", "\u202e", "\ud800", [], {}, [1, "a"], {"a": None},
                None, True, False, "a" * 300]
RAW_NUMBERS = ["1e400", "-1e400", "1E-400", "123456789012345678901234567890", "-0", "0.0e0"]
BAD_UTF8 = [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80", b"\x80",
            b"\xf0\x9f\x98"]


def message(rng, seed, with_id=True):
    method, params = seed
    m = {"jsonrpc": "2.0"}
    if with_id and method and not method.startswith("notifications/"):
        m["id"] = rng.randrange(1, 10 ** 6)
    if method is not None:
        m["method"] = method
    else:  # a client's response
        m["id"] = rng.randrange(1, 100)
        m["result"] = {}
    if params is not None:
        m["params"] = json.loads(json.dumps(params))
    return m


def some_container(rng, v, path=()):
    """A random (parent, key) inside v, or None."""
    spots = []

    def walk(x):
        if isinstance(x, dict):
            for k in x:
                spots.append((x, k))
                walk(x[k])
        elif isinstance(x, list):
            for i in range(len(x)):
                spots.append((x, i))
                walk(x[i])
    walk(v)
    return rng.choice(spots) if spots else None


def mutate_tree(rng, m):
    """Mutations of the message as a value; returns bytes."""
    kind = rng.randrange(9)
    args = m.get("params", {}).get("arguments") if isinstance(m.get("params"), dict) else None
    if kind == 0 and isinstance(args, dict) and args:  # a wrong type for an argument
        args[rng.choice(list(args))] = rng.choice(WEIRD_VALUES)
    elif kind == 1:  # bad ids
        m["id"] = rng.choice([{"a": 1}, [1], True, None, "a\0b", "\ud800", "", 1.5, -7,
                              "x" * 1000])
        if rng.random() < 0.2:
            m.pop("id")
    elif kind == 2 and isinstance(m.get("params"), dict):  # random tool / method names
        if "name" in m["params"]:
            m["params"]["name"] = rng.choice(["", "SQL", "sql ", "nope", "sql\0", "load/x",
                                              "é" * 50])
        else:
            m["method"] = rng.choice(["", "tools/call ", "PING", "initialize\0", "x" * 999,
                                      "rpc.discover", "notifications/x"])
    elif kind == 3:  # deep nesting somewhere
        d = rng.choice([2, 30, 63, 64, 65, 100, 1000, 100000])
        spot = some_container(rng, m)
        inner = "[" * d + "1" + "]" * d if rng.random() < 0.5 else '{"a":' * d + "1" + "}" * d
        text = json.dumps(m)
        if spot:
            marker = "__DEEP__"
            spot[0][spot[1]] = marker
            text = json.dumps(m).replace('"%s"' % marker, inner, 1)
        return text.encode("utf-8", "surrogatepass")
    elif kind == 4:  # a huge string
        n = rng.choice([1000, 70000, 1 << 20, (4 << 20) - 100, 5 << 20])
        spot = some_container(rng, m)
        if spot:
            spot[0][spot[1]] = rng.choice(["x", "\u00e9", "\\", "\n", "\0"]) * n
    elif kind == 5:  # many values
        spot = some_container(rng, m)
        if spot:
            spot[0][spot[1]] = [0] * rng.choice([10, 99999, 100001, 300000])
    elif kind == 6:  # a raw number where JSON allows one
        text = json.dumps(m)
        return re.sub(r"(?<=: )-?\d+(\.\d+)?", rng.choice(RAW_NUMBERS), text, count=1).encode("utf-8", "surrogatepass")
    elif kind == 7:  # drop or add keys
        if rng.random() < 0.5 and len(m) > 1:
            m.pop(rng.choice(list(m)))
        else:
            m[rng.choice(["result", "error", "params", "method", "jsonrpc", "_meta"])] = \
                rng.choice(WEIRD_VALUES)
    else:  # duplicate keys (the first counts)
        text = json.dumps(m)
        extra = rng.choice(['"id": {"x": 1}', '"id": 3', '"method": 5', '"method": "ping"',
                            '"params": []'])
        return (text[:-1] + ", " + extra + "}" if rng.random() < 0.5
                else "{" + extra + ", " + text[1:]).encode("utf-8", "surrogatepass")
    return json.dumps(m, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")


def mutate_bytes(rng, b):
    b = bytearray(b)
    for _ in range(rng.choice([1, 1, 2, 4, 16])):
        op = rng.randrange(7)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:  # flip
            b[min(i, len(b) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1 and b:  # a random byte
            b[min(i, len(b) - 1)] = rng.randrange(256)
        elif op == 2:  # invalid UTF-8
            b[i:i] = rng.choice(BAD_UTF8)
        elif op == 3:  # cut
            del b[i:i + rng.randrange(1, 20)]
        elif op == 4:  # truncate the line
            del b[i:]
        elif op == 5:  # JSON syntax
            b[i:i] = rng.choice([b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\\u00",
                                 b"\\ud800", b"\r", b"\n", b"\t", b"\x0c", b"\x00", b"null"])
        else:  # duplicate a range
            j = rng.randrange(len(b) + 1)
            b[i:i] = b[min(i, j):max(i, j)][:4096]
    return bytes(b)


def fuzz_input(rng, seed_list):
    m = message(rng, rng.choice(seed_list), with_id=rng.random() < 0.95)
    r = rng.random()
    if r < 0.10:
        data = json.dumps(m).encode()  # valid: the server must keep working
    elif r < 0.55:
        data = mutate_tree(rng, m)
    elif r < 0.90:
        data = mutate_bytes(rng, json.dumps(m).encode())
    else:  # spliced messages
        other = json.dumps(message(rng, rng.choice(seed_list))).encode()
        data = json.dumps(m).encode()
        cut = rng.randrange(len(data))
        data = data[:cut] + rng.choice([b"", b"\n", b" "]) + other[rng.randrange(len(other)):]
    return data


# ---- the server ---------------------------------------------------------------

class Server:
    def __init__(self, profdb, allowed, stderr_path):
        self.stderr_path = stderr_path
        self.err = open(stderr_path, "ab")
        self.p = subprocess.Popen([profdb, "mcp", "--allow", allowed], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err)
        self.lines = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip(b"\n"))
        self.lines.put(None)

    def send(self, data):
        try:
            self.p.stdin.write(data)
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def stop(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            rc = self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        self.err.close()
        return rc


def setup(profdb, work):
    shutil.rmtree(work, ignore_errors=True)
    allowed = os.path.join(work, "allowed")
    os.makedirs(allowed)
    shutil.copy(TRACE, os.path.join(allowed, "rank0.pt.trace.json"))
    for name in ("run.db", "run2.db"):
        subprocess.run([profdb, "load", "-q", TRACE, "-o", os.path.join(allowed, name)],
                       check=True)
    return allowed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profdb")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--work", default=None)
    ap.add_argument("--failures", default=None)
    o = ap.parse_args()
    seed = o.seed if o.seed is not None else int(time.time())
    work = os.path.abspath(o.work or os.path.join(os.getcwd(), "fuzz_mcp_work"))
    failures = os.path.abspath(o.failures or os.path.join(work, "failures"))
    allowed = setup(os.path.abspath(o.profdb), work)
    os.makedirs(failures, exist_ok=True)
    rng = random.Random(seed)
    seed_list = seeds(allowed)
    print("fuzz_mcp: seed %d, %g s, failing inputs go to %s" % (seed, o.seconds, failures))
    sys.stdout.flush()
    stderr_path = os.path.join(work, "server.stderr")
    server = Server(o.profdb, allowed, stderr_path)
    recent, findings, execs, restarts, answered = [], 0, 0, 0, {}
    end = time.time() + o.seconds

    def finding(kind, detail, data):
        nonlocal findings
        findings += 1
        base = os.path.join(failures, "%03d-%s" % (findings, kind))
        with open(base + ".jsonl", "wb") as f:
            f.write(data)
        with open(base + ".context.jsonl", "wb") as f:
            f.write(b"".join(recent[-20:]))
        with open(base + ".txt", "w") as f:
            f.write("%s: %s\nseed %d, execution %d\n" % (kind, detail, seed, execs))
        print("FINDING %s: %s (%s.jsonl)" % (kind, str(detail)[:300], base))
        sys.stdout.flush()

    def sanitizer_seen():
        with open(stderr_path, "rb") as f:
            return SANITIZER.search(f.read())

    while time.time() < end:
        data = fuzz_input(rng, seed_list)
        if not data.endswith(b"\n"):
            data += b"\n"
        pieces = data.split(b"\n")[:-1]
        wants = [expect(p) for p in pieces]
        execs += 1
        sync = ("sync-%d" % execs)
        ok = server.send(data + json.dumps({"jsonrpc": "2.0", "id": sync,
                                            "method": "ping"}).encode() + b"\n")
        recent.append(data)
        got, problem = [], None
        deadline = time.time() + ANSWER_WAIT
        while ok and problem is None:
            try:
                line = server.lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                problem = ("hang", "no answer to the ping after it in %d s" % ANSWER_WAIT)
                break
            if line is None:
                problem = ("exit", "the server ended (exit %s)" % server.p.poll())
                break
            if b'"id": "%s"' % sync.encode() in line:
                if line != b'{"jsonrpc": "2.0", "id": "%s", "result": {}}' % sync.encode():
                    problem = ("answer", "ping answered %r" % line[:200])
                break
            got.append(line)
        if ok and problem is None:
            lo = sum(min(w[0]) for w in wants)
            hi = sum(max(w[0]) for w in wants)
            if not lo <= len(got) <= hi:
                problem = ("count", "%d answers to %d lines, want %d..%d: %r" % (
                    len(got), len(pieces), lo, hi, [g[:120] for g in got]))
            elif len(pieces) == 1 and got:
                why = check_answer(got[0], wants[0][1])
                if why:
                    problem = ("answer", "%s: %r" % (why, got[0][:300]))
            for g in got:
                why = problem is None and check_answer(g, None)
                if why:
                    problem = ("answer", "%s: %r" % (why, g[:300]))
                try:
                    a = json.loads(g)
                    key = a["error"]["code"] if "error" in a else "result"
                    answered[key] = answered.get(key, 0) + 1
                except (ValueError, KeyError, TypeError):
                    pass
        if not ok and problem is None:
            problem = ("exit", "the server closed its input (exit %s)" % server.p.poll())
        if problem is None and execs % 50 == 0 and sanitizer_seen():
            problem = ("sanitizer", "report on stderr (%s)" % stderr_path)
        if problem:
            finding(problem[0], problem[1], data)
            rc = server.stop()
            if sanitizer_seen():
                finding("sanitizer", "report on stderr, kept as %s.%d" % (stderr_path, findings),
                        data)
            os.replace(stderr_path, "%s.%d" % (stderr_path, findings))
            server = Server(o.profdb, allowed, stderr_path)
            restarts += 1
            del rc
            recent = recent[-1:]
        recent = recent[-20:]
    rc = server.stop()
    if rc != 0:
        finding("exit", "exit %d at the end of input" % rc, b"")
    if sanitizer_seen():
        finding("sanitizer", "report on stderr (%s)" % stderr_path, b"")
    print("fuzz_mcp: %d executions in %g s, %d restarts, %d findings; answers %s" % (
        execs, o.seconds, restarts, findings, json.dumps({str(k): v for k, v in sorted(answered.items(), key=str)})))
    if findings:
        print("failing inputs: %s" % failures)
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
