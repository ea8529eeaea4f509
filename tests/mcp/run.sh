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
(cd "$src/tests/mcp" && node client.mjs "$profdb" "$work/allowed" "$src/tests/report/data/train_rank0.json")

# README's "For agents" session, as written, from the top of a checkout
top="$work/checkout"
mkdir -p "$top/docs/examples" "$top/build"
cp -r "$src/docs/examples/generated_gpu_run" "$top/docs/examples/"
ln -s "$profdb" "$top/build/profdb"
example=$(sed -n '/<!-- mcp-example:begin -->/,/<!-- mcp-example:end -->/p' "$src/README.md" |
          sed -n '/^```sh/,/^```$/p' | sed '1d;$d')
out=$(cd "$top" && bash -euo pipefail -c "$example")
echo "$out" | python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin if l.strip()]
assert [l["id"] for l in lines] == [1, 2, 3], lines
assert lines[0]["result"]["protocolVersion"] == "2025-06-18"
assert not lines[1]["result"]["isError"], lines[1]
rows = json.loads(lines[2]["result"]["content"][0]["text"])["rows"]
assert rows[0][0] == "GEMM" and rows[0][1] > 0, rows
print("README example: ok")'
