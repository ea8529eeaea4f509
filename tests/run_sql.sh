#!/usr/bin/env bash
# run_sql.sh — run one extension test through the sqlite3 shell.
#
#   run_sql.sh SQLITE3 EXTENSION PROFDB SQLFILE WORK_DIR
#
# The shell loads the extension (.load, the way users do), runs SQLFILE
# and its stdout and stderr together must equal SQLFILE with .expected in
# place of .sql.  A first line "-- load: FILE..." loads those files
# (relative to the .sql) into a fresh database with profdb first;
# otherwise the database is empty.
set -u
sqlite3=$1 ext=$2 profdb=$3 sql=$4 work=$5
export LC_ALL=C TZ=UTC
mkdir -p "$work"
dir=$(dirname "$sql")
name=$(basename "$sql" .sql)
db="$work/$name.db"
rm -f "$db"
load=$(sed -n '1s/^-- load: //p' "$sql")
if [ -n "$load" ]; then
  (cd "$dir" && "$profdb" load -q $load -o "$db") || { echo "cannot load $load"; exit 1; }
fi
{ echo ".load $ext"; cat "$sql"; } | "$sqlite3" "$db" > "$work/$name.out" 2>&1
if ! cmp -s "$work/$name.out" "$dir/$name.expected"; then
  echo "$name differs:"
  diff -u "$dir/$name.expected" "$work/$name.out"
  exit 1
fi
