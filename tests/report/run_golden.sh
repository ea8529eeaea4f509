#!/bin/bash
# Golden test of `profdb report` and `profdb diff`: Markdown, JSON, HTML and SVG
# charts of a case must match tests/report/golden/<case>.* byte for byte,
# and a second run must give identical files (the output is deterministic).
#
#   run_golden.sh PROFDB TESTS_DIR WORK_DIR CASE
#
# This only compares.  To rewrite the golden files after an intended
# change, run tests/report/update_golden.sh and review the diff.
set -u
profdb=$1 tests=$2 work=$3 case=$4
golden=$tests/report/golden
. "$tests/report/golden_cases.sh"

render_case "$profdb" "$tests" "$work" "$case"
status=$?
[ $status -eq 2 ] && exit 1

for f in "$work"/a/* "$golden/$case".*; do
  name=$(basename "$f")
  if [ ! -e "$golden/$name" ]; then
    echo "new output file $name (no golden file; tests/report/update_golden.sh adds it)"
    status=1
  elif [ ! -e "$work/a/$name" ]; then
    echo "missing output file $name"
    status=1
  elif ! cmp -s "$work/a/$name" "$golden/$name"; then
    echo "differs from golden: $name"
    diff -u "$golden/$name" "$work/a/$name" | head -40
    status=1
  fi
done
exit $status
