#!/usr/bin/env python3
"""Write one fixture folder per finding rule, from check_rules.py's fixtures
where the rule fires:

    make_cases.py PROFDB [RULE...]

FOLDER <rule>/ holds input.json (a trace or snapshot), args (extra report
arguments, one a line; may be absent) and expected.json: the finding as
`profdb report --json` gives it today (rule, title, observation, savings).
Re-run it after a deliberate change of a rule's wording or numbers, and
review the diff of expected.json.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import check_rules  # noqa: E402

KEPT = ("rule", "confidence", "title", "observation", "expected_impact", "expected_saving_pct",
        "expected_saving_ns", "expected_saving_bytes", "subjects")


def main():
    profdb, only = sys.argv[1], set(sys.argv[2:])
    for rule, ((kind, doc, *extra), _) in check_rules.cases().items():
        if kind == "both" or (only and rule not in only):
            continue
        d = os.path.join(HERE, rule)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "input.json"), "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        if extra:
            with open(os.path.join(d, "args"), "w") as f:
                f.write("\n".join(extra) + "\n")
        out = subprocess.run([profdb, "report", os.path.join(d, "input.json"), *extra,
                              "--section", "findings", "--json", "-"],
                             check=True, capture_output=True, text=True).stdout
        found = [x for x in json.loads(out)["findings"] if x["rule"] == rule]
        with open(os.path.join(d, "expected.json"), "w") as f:
            json.dump({k: found[0][k] for k in KEPT}, f, indent=1)
            f.write("\n")
        print(rule, found[0]["title"])


if __name__ == "__main__":
    main()
