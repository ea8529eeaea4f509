#!/usr/bin/env bash
# outputs.sh PROFDB OUT [INPUT...]: every output a user reads, for each input,
# written under OUT so that two builds can be compared with `diff -r`:
# a refactor that claims "byte-identical" runs this with the build before and
# the build after and diffs the two folders.
#
#   OUT/<name>/report.md (+ charts), report.json, csv/, report.html   profdb report
#   OUT/<name>/dataset/ and report_dir.md                profdb export, report DIR
#                                 (each rank's summary as SQL text: NAME.sql)
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
mkdir -p "$out"; out=$(realpath "$out")
for input in "$@"; do
  input=$(realpath "$input")
  name=$(echo "${input#"$src"/}" | sed 's#^.*/shared/data/public/##; s#[/ ]#__#g')
  d="$out/$name"; rm -rf "$d"; mkdir -p "$d"
  # Relative paths from the case's folder: the outputs name the database as
  # ".db" whichever OUT they are written to.
  cd "$d" || exit 2
  run() { local tag=$1; shift; "$@" >"$tag.out" 2>"$tag.err"; echo "$tag $?" >>exit; }
  run load "$profdb" load --no-progress "$input" -o .db
  run report "$profdb" report .db --md report.md --json report.json --csv csv --html report.html
  run export "$profdb" export .db -o dataset -q
  run report_dir "$profdb" report dataset --md report_dir.md
  run chrome "$profdb" export .db --format chrome -o chrome.json -q
  run memviz "$profdb" export .db --format memory_viz -o memviz.json
  # A rank's summary as SQL text, without the one figure that is a timing
  # (trace.load_seconds): the bytes of a database are not comparable.
  for z in $(find dataset -name '*.db.zst' 2>/dev/null); do
    zstd -dqf "$z" -o "$z.db" && sqlite3 "$z.db" "UPDATE trace SET load_seconds = NULL" \
      && sqlite3 "$z.db" .dump >"${z%.db.zst}.sql"; rm -f "$z" "$z.db"
  done
  # stderr names the temporary paths and progress; only its exit codes count.
  rm -f ./*.err load.out .db .db-*
  cd - >/dev/null || exit 2
done
