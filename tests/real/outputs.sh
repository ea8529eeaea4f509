#!/usr/bin/env bash
# outputs.sh PROFDB OUT [INPUT...]: every output a user reads, for each input,
# written under OUT so that two builds can be compared with `diff -r`:
# a refactor that claims "byte-identical" runs this with the build before and
# the build after and diffs the two folders.
#
#   OUT/<name>/report.md (+ charts), report.json, csv/, report.html   profdb report
#   OUT/<name>/dataset/ and report_dir.md                profdb export, report DIR
#   OUT/<name>/chrome.json                               export --format chrome
#   OUT/<name>/memviz.json                               export --format memory_viz
#   OUT/<name>/exit                                      each command's exit code
#
# INPUT defaults to every file of ../shared/data/public and the shipped
# examples.  Nothing here is timed; the file names of the dataset's parts are
# kept, the load's own timing rows (load_summary) are not part of any output.
set -u
profdb=$(realpath "$1"); out=$2; shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -eq 0 ]; then
  set -- $(find "$src/../shared/data/public" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort) \
    "$src/docs/examples/train_cpu.pt.trace.json" "$src/docs/examples/generated_gpu_run"
fi
mkdir -p "$out"
for input in "$@"; do
  name=$(echo "${input#"$src"/}" | sed 's#^\.\./shared/data/public/##; s#[/ ]#__#g')
  d="$out/$name"; rm -rf "$d"; mkdir -p "$d"
  db="$d/.db"
  run() { local tag=$1; shift; "$@" >"$d/$tag.out" 2>"$d/$tag.err"; echo "$tag $?" >>"$d/exit"; }
  run load "$profdb" load --no-progress "$input" -o "$db"
  run report "$profdb" report "$db" --md "$d/report.md" --json "$d/report.json" --csv "$d/csv" --html "$d/report.html"
  run export "$profdb" export "$db" -o "$d/dataset" -q
  run report_dir "$profdb" report "$d/dataset" --md "$d/report_dir.md"
  run chrome "$profdb" export "$db" --format chrome -o "$d/chrome.json" -q
  run memviz "$profdb" export "$db" --format memory_viz -o "$d/memviz.json"
  # stderr names the temporary paths and progress; only its exit codes count.
  rm -f "$d"/*.err "$d/load.out" "$db" "$db"-*
done
