#!/usr/bin/env bash
# check_regressions.sh — load every input the fuzzers found a bug with.
#
#   check_regressions.sh PROFDB REGRESSIONS_DIR WORK_DIR
#
# Each file in REGRESSIONS_DIR made profdb crash or report undefined
# behaviour before its fix.  Now each load must end with an exit code
# (0 loaded, 1 invalid input, 3 truncated) and print no sanitizer report;
# in the sanitizer build this is the check that matters.
set -u
profdb=$1 dir=$2 work=$3
mkdir -p "$work"
status=0 n=0
for f in "$dir"/*; do
  n=$((n + 1))
  rm -f "$work/r.db"
  "$profdb" load -q "$f" -o "$work/r.db" 2>"$work/stderr"; rc=$?
  if grep -q -E "runtime error|Sanitizer" "$work/stderr" || ! [[ $rc =~ ^[013]$ ]]; then
    echo "FAIL $(basename "$f"): exit $rc"
    cat "$work/stderr"
    status=1
  fi
done
echo "$n regression inputs"
exit $status
