#!/usr/bin/env bash
# run.sh SCRIPT ARGS... — run a node test of tests/node/, or skip it (exit
# 77) where node or its npm modules (npm ci in tests/node) are missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null 2>&1 || { echo "SKIPPED: node is not installed"; exit 77; }
[ -d "$here/node_modules/@duckdb/node-api" ] ||
  { echo "SKIPPED: @duckdb/node-api is not installed (run: npm ci in tests/node)"; exit 77; }
script=$1
shift
exec node "$here/$script" "$@"
