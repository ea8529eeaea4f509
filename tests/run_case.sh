#!/usr/bin/env bash
# run_case.sh — run one loader golden case.
#
#   run_case.sh PROFDB CASES_DIR NAME [WORK_DIR]
#
# A case is CASES_DIR/NAME.<ext> (the input: .json, .json.gz, .pickle, ...),
# NAME.sql (queries run on the resulting database, printed as CSV),
# NAME.expected (the golden output) and optionally NAME.args (extra
# arguments for profdb load).  The input is loaded at several read-chunk
# sizes, from 1 byte up, so the parser is tested at every token boundary;
# every run must print exactly NAME.expected:
#
#   exit: <profdb load exit code>
#   <stderr of profdb load, with CASES_DIR/ removed>
#   db: unchanged                  (exit codes 1, 2 and 4 only: a database
#                                   loaded beforehand is byte-identical)
#   ---
#   <NAME.sql output>              (when the database exists)
#
# Written in bash rather than `cmake -P` because it needs pipes, exit
# codes and byte comparisons of files.
set -u
profdb=$1 cases=$2 name=$3 work=${4:-$(mktemp -d)}
export LC_ALL=C TZ=UTC
mkdir -p "$work"
input=$(ls "$cases/$name".* | grep -v -E '\.(sql|expected|args)$' | head -n 1)
[ -n "$input" ] || { echo "no input for case $name"; exit 1; }
args=()
[ -f "$cases/$name.args" ] && read -r -a args < "$cases/$name.args"
sizes=(1 2 7 64 0)

# A database holding one small trace, to check that failed loads leave a
# database untouched.
base="$work/base.db"
rm -f "$base"
"$profdb" load -q "$cases/../base_trace.json" -o "$base" >/dev/null 2>&1 ||
  { echo "cannot create the base database"; exit 1; }

status=0
for size in "${sizes[@]}"; do
  db="$work/$name.$size.db"
  rm -f "$db"
  chunk=()
  [ "$size" != 0 ] && chunk=(--chunk-size "$size")
  "$profdb" load -q "${chunk[@]}" "${args[@]}" "$input" -o "$db" \
    >"$work/stdout" 2>"$work/stderr"
  rc=$?
  {
    echo "exit: $rc"
    sed "s|$cases/||g" "$work/stderr"
    if [ $rc = 1 ] || [ $rc = 2 ] || [ $rc = 4 ]; then
      cp "$base" "$work/before.db"
      "$profdb" load -q "${chunk[@]}" "${args[@]}" "$input" -o "$work/before.db" \
        >/dev/null 2>&1
      if cmp -s "$base" "$work/before.db" && [ ! -e "$db" ]; then
        echo "db: unchanged"
      else
        echo "db: CHANGED"
      fi
    fi
    echo "---"
    if [ -e "$db" ] && [ -f "$cases/$name.sql" ]; then
      "$profdb" query --csv "$db" < "$cases/$name.sql" 2>&1 | tr -d '\r'
    fi
  } > "$work/actual.$size"
  if ! cmp -s "$work/actual.$size" "$cases/$name.expected"; then
    echo "case $name differs at chunk size $size:"
    diff -u "$cases/$name.expected" "$work/actual.$size"
    status=1
  fi
done
exit $status
