#!/usr/bin/env python3
"""Write one fixture folder per finding rule, from the fixtures of the
report's other tests where the rule fires (check_rules.py's cases,
check_advice.py's, check_idle_owner.py's and check_queued_owner.py's traces, tests/report/data):

    make_cases.py PROFDB [RULE...]

FOLDER <rule>/ holds input.json (a trace or snapshot; input_*.json for
several ranks; .json.gz when large), args (extra report arguments, one a line; may be absent)
and expected.json: the finding as `profdb report --json` gives it (rule,
title, observation, impact, subjects, savings).
Re-run it after a deliberate change of a rule's wording or numbers, and
review the diff of expected.json.
"""
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import check_advice  # noqa: E402
import check_idle_owner  # noqa: E402
import check_queued_owner  # noqa: E402
import check_rules  # noqa: E402
import check_startup_skew  # noqa: E402

KEPT = ("rule", "confidence", "title", "observation", "expected_impact", "expected_saving_pct",
        "expected_saving_ns", "expected_saving_bytes", "subjects")


DATA = os.path.join(os.path.dirname(HERE), "data")


def captured(module, case, name):
    """The document a test case of module reports as name (its report()
    replaced by one that keeps the document and finds nothing)."""
    docs = {}

    def keep(profdb, work, name, doc=None, path=None, want_rc=0):
        docs.setdefault(name, doc)
        return ({}, "") if module is check_advice else {}
    module.report = keep
    getattr(module, case)("profdb", "/nonexistent", "/nonexistent")
    return docs[name]


def other_cases():
    """rule -> {input file name: document}, for the rules check_rules.py has
    no firing case of."""
    def data(*names):
        return {f"input_{i}.json": json.load(open(os.path.join(DATA, n)))
                for i, n in enumerate(names)}
    return {
        "cold_start": {"input.json": check_advice.cold_trace()[0]},
        "gpu_records_lost": {"input.json": captured(check_advice, "case_kernels_lost", "lost")},
        "records_sampled": {"input.json": check_advice.numbered_trace(keep=20)},
        "gpu_records_partly_lost": {"input.json": check_advice.numbered_trace(lose_from=800)},
        "ran_on_cpu": {"input.json": captured(check_advice, "case_ran_on_cpu", "cpu_run")},
        "startup_calls": {"input.json": check_idle_owner.startup_trace()[0]},
        "allocator_calls": {"input.json": captured(
            check_idle_owner, "case_allocator_calls_promised_by_gpu_idle", "alloc")},
        "wait_outside_trace": {"input.json": captured(
            check_idle_owner, "case_sync_wait_claimed_twice", "outside")},
        "queued_idle": {"input.json": check_queued_owner.owner_trace("event")},
        "low_gemm_efficiency": {"input.json": json.load(
            open(os.path.join(DATA, "train_rank0.json")))},
        "straggler": data(*(f"straggler/late/rank{i}.json" for i in range(4))),
        "collective_waiting": data(*(f"straggler/late/rank{i}.json" for i in range(4))),
        "slow_collective": data(*(f"coll/dp_tp/rank{i}.json" for i in range(4))),
        "need_host_activity": {"input.json": check_startup_skew.gpu_only_trace()},
    }


# Extra report arguments of other_cases' rules.
OTHER_ARGS = {"slow_collective": ["--link-gbps", "100"]}


def all_cases():
    """rule -> ({input file name: document}, extra report arguments)."""
    out = {rule: ({"input.json": doc}, extra)
           for rule, ((kind, doc, *extra), _) in check_rules.cases().items() if kind != "both"}
    out.update({rule: (docs, OTHER_ARGS.get(rule, [])) for rule, docs in other_cases().items()})
    return out


def main():
    profdb, only = sys.argv[1], set(sys.argv[2:])
    for rule, (docs, extra) in sorted(all_cases().items()):
        if only and rule not in only:
            continue
        d = os.path.join(HERE, rule)
        os.makedirs(d, exist_ok=True)
        names = []
        for name, doc in docs.items():
            text = json.dumps(doc, separators=(",", ":")).encode()
            if len(text) > 64 << 10:  # a large fixture is kept compressed
                name += ".gz"
                text = gzip.compress(text, mtime=0)
            with open(os.path.join(d, name), "wb") as f:
                f.write(text)
            names.append(name)
        if extra:
            with open(os.path.join(d, "args"), "w") as f:
                f.write("\n".join(extra) + "\n")
        inputs = [os.path.join(d, n) for n in sorted(names)]
        out = subprocess.run([profdb, "report", *inputs, *extra,
                              "--section", "findings", "--json", "-"],
                             check=True, capture_output=True, text=True).stdout
        found = [x for x in json.loads(out)["findings"] if x["rule"] == rule]
        with open(os.path.join(d, "expected.json"), "w") as f:
            json.dump({k: found[0][k] for k in KEPT}, f, indent=1)
            f.write("\n")
        print(rule, found[0]["title"])


if __name__ == "__main__":
    main()
