#!/usr/bin/env python3
"""gen.py — hostile but valid inputs of a chosen size (issue 18), for the
reliability tests and as fuzz seeds (tests/fuzz/run).

  gen.py shared_ids N OUT       N ops, launches and kernels sharing External id
                                1 and correlation 1 (quadratic GPU links before)
  gen.py steps_unlinked N OUT   N ProfilerSteps, N kernels with no launch call
  gen.py many_devices N OUT     a snapshot whose allocator trace has N devices
  gen.py huge_token MIB OUT     a trace with one name of MIB MiB (OUT.gz: gzip)
  gen.py big_trace N OUT        N events on N threads (something to interrupt)
"""
import gzip
import json
import sys


def write_trace(out, events):
    with open(out, "w") as f:
        f.write('{"traceEvents":[\n' + ",\n".join(json.dumps(e) for e in events) + "\n]}\n")


def shared_ids(n, out):
    ev = []
    for i in range(n):
        t = 1000 + 10 * i
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t,
                   "dur": 5, "args": {"External id": 1}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": t + 1, "dur": 2, "args": {"External id": 1, "correlation": 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t + 3,
                   "dur": 4, "args": {"External id": 1, "correlation": 1, "device": 0,
                                      "stream": 7}})
    write_trace(out, ev)


def steps_unlinked(n, out):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 1,
           "tid": 1, "ts": 1000 + 10 * i, "dur": 9} for i in range(n)]
    ev += [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1001 + 10 * i,
            "dur": 4, "args": {"device": 0, "stream": 7}} for i in range(n)]
    write_trace(out, ev)


def many_devices(n, out):
    device = [{"action": "alloc", "addr": 1, "size": 1},
              {"action": "free_completed", "addr": 1, "size": 1}]
    with open(out, "w") as f:
        json.dump({"segments": [], "device_traces": [device] * n}, f)


def huge_token(mib, out):
    head = b'{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"'
    tail = b'","ts":1,"dur":1}]}'
    opener = gzip.open if out.endswith(".gz") else open
    with opener(out, "wb") as f:
        f.write(head)
        chunk = b"A" * (1 << 20)
        for _ in range(int(mib)):
            f.write(chunk)
        f.write(b"A" * int((mib - int(mib)) * (1 << 20)))
        f.write(tail)


def big_trace(n, out):
    with open(out, "w") as f:
        f.write('{"traceEvents":[\n')
        f.write(",\n".join('{"ph":"X","cat":"cpu_op","name":"x","pid":1,"tid":%d,"ts":%d,'
                           '"dur":1}' % (i, i) for i in range(n)))
        f.write("\n]}\n")


SHAPES = {"shared_ids": shared_ids, "steps_unlinked": steps_unlinked,
          "many_devices": many_devices, "huge_token": huge_token, "big_trace": big_trace}

if __name__ == "__main__":
    shape, size, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    SHAPES[shape](size if shape == "huge_token" else int(size), out)
