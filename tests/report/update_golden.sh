#!/bin/bash
# Rewrite the report/diff golden files (tests/report/golden) from the
# current build, after a change meant to alter the output.  Review
# `git diff tests/report/golden` before committing: every changed line
# must be one you meant.
#
#   tests/report/update_golden.sh [PROFDB] [CASE...]
#
# PROFDB defaults to build/profdb; no CASE rewrites every case.  A case
# whose output is not deterministic (two runs differ) is not written.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tests=$(dirname "$here")
profdb=${1:-$tests/../build/profdb}
[ $# -gt 0 ] && shift
profdb=$(cd "$(dirname "$profdb")" && pwd)/$(basename "$profdb")
[ -x "$profdb" ] || { echo "update_golden.sh: no executable $profdb (build first)"; exit 2; }
. "$here/golden_cases.sh"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || read -r -a cases <<< "$golden_cases"

golden=$here/golden
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for case in "${cases[@]}"; do
  if render_case "$profdb" "$tests" "$work/$case" "$case"; then
    rm -f "$golden/$case".*
    cp "$work/$case"/a/* "$golden/"
    echo "updated $golden/$case.*"
  else
    echo "not updated: $case"
    status=1
  fi
done
exit $status
