#!/usr/bin/env bash
# mcp.sdk: profdb mcp against the official MCP SDK client (client.mjs).
#   run.sh PROFDB SOURCE_DIR WORK_DIR
# Skipped (77) without node or without tests/mcp/node_modules (npm ci there;
# .ci/run does it).
set -euo pipefail
profdb=$1 src=$2 work=$3
command -v node >/dev/null || { echo "skipped: no node"; exit 77; }
[ -d "$src/tests/mcp/node_modules/@modelcontextprotocol/sdk" ] ||
  { echo "skipped: run 'npm ci' in tests/mcp first"; exit 77; }
rm -rf "$work" && mkdir -p "$work/allowed"
cp -r "$src/docs/examples/generated_gpu_run" "$work/allowed/"
cd "$src/tests/mcp"
node client.mjs "$profdb" "$work/allowed" "$src/tests/report/data/train_rank0.json"
