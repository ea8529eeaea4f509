#!/bin/bash
# The job model's cost curve (issue 23, item 6): a real job's ranks
# replicated (bench/replicate_ranks.py) to 8, 64, 256 and 1024 ranks, each
# loaded and reported; one line per rank count with the load and report
# wall time, the report's CPU time (both connections) and peak memory, and
# the Markdown's length.  Not part of ctest (1024 ranks of DLRM are ~1 GB of
# JSON); tests/report/check_job.py checks the invariants up to 256 ranks.
#
#   bench/job_bench.sh [PROFDB] [SOURCE_DIR] [WORK_DIR] [RANKS...]
#
# Defaults: build/profdb, ../shared/data/public/facebookresearch__param/
# dlrm_kineto, /tmp/profdb-job-bench, ranks 8 64 256 1024.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
profdb=${1:-$here/../build/profdb}
src=${2:-$here/../../shared/data/public/facebookresearch__param/dlrm_kineto}
work=${3:-/tmp/profdb-job-bench}
shift $(($# < 3 ? $# : 3))
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(8 64 256 1024)
mkdir -p "$work"
printf '| ranks | JSON (MB) | load (s) | report (s) | report CPU (s) | report peak RSS (MiB) | Markdown lines | x ranks | x report CPU |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
base_ranks=
base_report=
for n in "${ranks[@]}"; do
  dir=$work/r$n db=$work/r$n.db
  rm -rf "$dir" "$db"
  python3 "$here/replicate_ranks.py" "$src" --ranks "$n" -o "$dir" >/dev/null
  mb=$(du -sm "$dir" | cut -f1)
  t0=$(date +%s.%N)
  "$profdb" load -q "$dir" -o "$db"
  t1=$(date +%s.%N)
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$profdb" report "$db" --md "$work/r$n.md" >/dev/null
  read -r wall user sys rss < "$work/time"
  lines=$(wc -l < "$work/r$n.md")
  rm -rf "$dir"
  cpu=$(echo "$user + $sys" | bc)
  : "${base_ranks:=$n}" "${base_report:=$cpu}"
  awk -v n="$n" -v mb="$mb" -v l="$(echo "$t1 - $t0" | bc)" -v w="$wall" -v c="$cpu" \
      -v r="$rss" -v lines="$lines" -v bn="$base_ranks" -v bw="$base_report" \
      'BEGIN { printf "| %d | %d | %.1f | %.2f | %.2f | %.0f | %d | %.0fx | %.1fx |\n", n, mb, l, w, c, r / 1024, lines, n / bn, c / bw }'
done
