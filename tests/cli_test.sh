#!/usr/bin/env bash
# cli_test.sh — end-to-end checks of the profdb CLI.
#
#   cli_test.sh PROFDB CASES_DIR WORK_DIR CHECK
#
# CHECK is one of the functions below; each asserts exit codes, messages
# and database content, and fails (exit 1) with a message on the first
# difference.
set -u
profdb=$1 cases=$2 work=$3 check=$4
export LC_ALL=C
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

fail() { echo "FAIL: $*"; exit 1; }
q() { "$profdb" query --csv "$1" "$2" | tr -d '\r'; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: got [$1], want [$2]"; }

duplicates() {
  "$profdb" load -q "$cases/keys_after.json" -o d.db || fail "first load"
  cp d.db before.db
  out=$("$profdb" load "$cases/keys_after.json" -o d.db 2>&1); rc=$?
  expect_eq "$rc" 0 "second load exit code"
  [[ "$out" == *"already loaded as trace 1 (same content); skipped"* ]] || fail "message: $out"
  cmp -s d.db before.db || fail "a skipped load changed the database"
  # Same content compressed under another name is the same trace.
  gzip -c "$cases/keys_after.json" > other_name.json.gz
  out=$("$profdb" load other_name.json.gz -o d.db 2>&1)
  [[ "$out" == *"already loaded as trace 1"* ]] || fail "gzip copy not detected: $out"
  # --replace reloads it: still one trace, with the new path.
  "$profdb" load -q --replace other_name.json.gz -o d.db || fail "--replace"
  expect_eq "$(q d.db "SELECT count(*), min(path) FROM trace")" \
    "$(printf 'count(*),min(path)\n1,other_name.json.gz')" "after --replace"
  expect_eq "$(q d.db "SELECT count(*) FROM event")" "$(printf 'count(*)\n2')" "events after --replace"
  # A different file is added as trace 2.
  "$profdb" load -q "$cases/flows.json" -o d.db || fail "second trace"
  expect_eq "$(q d.db "SELECT group_concat(label, ' ') AS labels FROM (SELECT label FROM trace ORDER BY trace_id)")" \
    "$(printf 'labels\nother_name flows')" "labels"
}

# --replace leaves no row of the replaced artifacts behind: after reloading
# a trace and a snapshot with --replace, every table holds as many rows as
# after loading them once (interned strings and stacks are shared, kept).
replace_everything() {
  local data=$cases/../../report/data
  "$profdb" load -q "$data/train_rank0.json" "$data/memory_snapshot.json" -o once.db ||
    fail "first load"
  cp once.db replaced.db
  "$profdb" load -q --replace "$data/train_rank0.json" "$data/memory_snapshot.json" \
    -o replaced.db || fail "--replace"
  local tables t
  tables=$(q once.db "SELECT name FROM sqlite_schema WHERE type = 'table'
    AND name NOT GLOB 'sqlite_*' AND name NOT IN ('_string', '_stack_frame') ORDER BY name" |
    tail -n +2)
  [ "$(echo "$tables" | wc -l)" -gt 20 ] || fail "too few tables: $tables"
  for t in $tables; do
    expect_eq "$(q replaced.db "SELECT count(*) FROM \"$t\"")" \
      "$(q once.db "SELECT count(*) FROM \"$t\"")" "rows of $t after --replace"
  done
}

directory() {
  mkdir ranks
  cp "$cases/flows.json" ranks/rank1.json
  gzip -c "$cases/meta_last.json" > ranks/rank0.json.gz
  cp "$cases/bad_pickle.pickle" ranks/not_a_trace.pickle  # not *.json: ignored
  echo '{}' > ranks/notes.txt
  ln -s "$cases/args_typed.json" ranks/link.json
  out=$("$profdb" load ranks -o dir.db 2>&1); rc=$?
  expect_eq "$rc" 0 "directory load exit code"
  [[ "$out" == *"ranks/link.json: warning: skipping symbolic link"* ]] || fail "no symlink warning: $out"
  expect_eq "$(q dir.db "SELECT group_concat(label, ' ') AS labels FROM (SELECT label FROM trace ORDER BY trace_id)")" \
    "$(printf 'labels\nrank0 rank1')" "files loaded in name order"
  # Named explicitly, the link is loaded.
  "$profdb" load -q ranks/link.json -o dir.db || fail "explicit symlink"
  expect_eq "$(q dir.db "SELECT count(*) FROM trace")" "$(printf 'count(*)\n3')" "explicit symlink loaded"
}

atomic_failure() {
  "$profdb" load -q "$cases/flows.json" -o a.db || fail "load"
  cp a.db before.db
  # A folder with one bad file: nothing of the folder is written.
  mkdir mixed
  cp "$cases/keys_after.json" mixed/a.json
  cp "$cases/bad_invalid.json" mixed/b.json
  "$profdb" load -q mixed -o a.db 2>/dev/null; rc=$?
  expect_eq "$rc" 1 "mixed folder exit code"
  cmp -s a.db before.db || fail "failed load modified the database"
  ls -a | grep -q 'profdb-' && fail "temporary file left behind"
  # Loading into a new database that fails leaves no file.
  "$profdb" load -q "$cases/bad_invalid.json" -o new.db 2>/dev/null
  [ -e new.db ] && fail "failed load created new.db"
  true
}

kill_during_load() {
  # A large synthetic trace so the load is still running when killed.
  python3 - <<'EOF'
import json
with open("big.json", "w") as f:
    f.write('{"traceEvents": [')
    for i in range(400000):
        f.write('%s{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":1}'
                % ("," if i else "", i % 100, i * 2))
    f.write(']}')
EOF
  "$profdb" load -q "$cases/flows.json" -o k.db || fail "load"
  cp k.db before.db
  "$profdb" load -q --threads 1 --chunk-size 4096 big.json -o k.db &
  pid=$!
  sleep 0.5
  kill -9 $pid 2>/dev/null || fail "load finished before it could be killed"
  wait $pid 2>/dev/null
  cmp -s k.db before.db || fail "SIGKILL during a load modified the database"
  expect_eq "$(q k.db "SELECT count(*) FROM trace")" "$(printf 'count(*)\n1')" "database still usable"
  ls -a | grep -q '^\.k\.db\.profdb-' || fail "expected the killed load's temporary file"
  # The next load works and removes the stale temporary file.
  "$profdb" load -q "$cases/meta_last.json" -o k.db || fail "load after kill"
  ls -a | grep -q 'profdb-' && fail "stale temporary file not removed"
  true
}

concurrent() {
  python3 - <<'EOF'
import json
for name in ("c1", "c2"):
    with open(name + ".json", "w") as f:
        f.write('{"traceEvents": [')
        for i in range(150000):
            f.write('%s{"ph":"X","cat":"cpu_op","name":"%s_%d","pid":1,"tid":1,"ts":%d,"dur":1}'
                    % ("," if i else "", name, i % 50, i * 2))
        f.write(']}')
EOF
  "$profdb" load -q c1.json -o c.db 2>c1.err & p1=$!
  "$profdb" load -q c2.json -o c.db 2>c2.err & p2=$!
  # Readers during the loads see either no database yet or a complete one.
  for i in $(seq 1 20); do
    if [ -s c.db ]; then
      n=$(q c.db "SELECT count(*) FROM trace WHERE status <> 'ok'" 2>/dev/null | tail -1)
      [ -z "$n" ] || [ "$n" = 0 ] || fail "a reader saw a partial trace"
    fi
    sleep 0.05
  done
  wait $p1 || fail "first concurrent load: $(cat c1.err)"
  wait $p2 || fail "second concurrent load: $(cat c2.err)"
  expect_eq "$(q c.db "SELECT count(*), sum(events) FROM trace")" \
    "$(printf 'count(*),sum(events)\n2,300000')" "both concurrent loads kept"
}

report_while_loading() {
  # profdb report while another process loads into the same database: each
  # report sees the old state (one trace) or the new one (two), complete.
  python3 -c '
with open("slow.json", "w") as f:
    f.write("{\"traceEvents\": [")
    for i in range(300000):
        f.write("%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}"
                % ("," if i else "", i % 100, i * 2))
    f.write("]}")'
  "$profdb" load -q "$cases/flows.json" -o r.db || fail "load"
  "$profdb" load -q --threads 1 --chunk-size 4096 slow.json -o r.db 2>slow.err & pid=$!
  reports=0
  while kill -0 $pid 2>/dev/null; do
    "$profdb" report r.db --section run_summary --json rs.json >/dev/null 2>rs.err ||
      fail "report during a load: $(cat rs.err)"
    python3 -c '
import json, sys
rows = json.load(open("rs.json"))["sections"][0]["rows"]
sys.exit(0 if len(rows) in (1, 2) and all(r["status"] == "ok" for r in rows) else 1)' ||
      fail "a report saw a partial state: $(cat rs.json)"
    reports=$((reports + 1))
  done
  wait $pid || fail "the load: $(cat slow.err)"
  [ $reports -gt 0 ] || fail "the load ended before any report ran"
  "$profdb" report r.db --section run_summary --json rs.json >/dev/null || fail "final report"
  expect_eq "$(python3 -c 'import json; print(len(json.load(open("rs.json"))["sections"][0]["rows"]))')" \
    2 "traces after the load"
}

output_paths() {
  # Outputs are written to a temporary name and renamed, except where a
  # rename would replace something that is not a plain file: a FIFO (like
  # /dev/null or <(...)) is written into, a symbolic link keeps pointing
  # at the file it names; a database path that is no regular file is refused.
  "$profdb" load -q "$cases/flows.json" -o o.db || fail "load"
  mkfifo pipe
  cat pipe > from_pipe.json & reader=$!
  "$profdb" report o.db --section run_summary --json pipe >/dev/null || fail "report into a FIFO"
  wait $reader
  [ -p pipe ] || fail "the FIFO was replaced by a file"
  python3 -c 'import json; json.load(open("from_pipe.json"))' || fail "the FIFO did not get the JSON"
  ln -s target.md link.md
  "$profdb" report o.db --section run_summary --md link.md >/dev/null || fail "report into a new link"
  [ -L link.md ] && [ -s target.md ] || fail "a link to a new file: $(ls -l link.md target.md)"
  "$profdb" report o.db --section run_summary --md link.md >/dev/null || fail "report into a link"
  [ -L link.md ] || fail "the link was replaced by a file"
  ls -a | grep -q profdb-tmp && fail "temporary files left: $(ls -a)"
  ln -s o.db link.db
  "$profdb" load -q "$cases/keys_after.json" -o link.db || fail "load through a link"
  [ -L link.db ] || fail "the database link was replaced by a file"
  expect_eq "$(q o.db "SELECT count(*) FROM trace")" "$(printf 'count(*)\n2')" "loaded through the link"
  out=$("$profdb" load -q "$cases/keys_after.json" -o pipe 2>&1); rc=$?
  expect_eq "$rc" 2 "load into a FIFO: exit code"
  [[ "$out" == *"pipe: not a regular file; the database must be a file"* ]] || fail "message: $out"
  [ -p pipe ] || fail "load replaced the FIFO"
}

query_formats() {
  "$profdb" load -q "$cases/keys_after.json" -o f.db || fail "load"
  # Table: header, rule, numbers right-aligned, long cells shortened.
  expect_eq "$("$profdb" query f.db "SELECT name, dur, printf('%.100c', 'x') AS long FROM cpu_op")" \
"name       dur    long                                                                            
---------  -----  --------------------------------------------------------------------------------
aten::add  12500  $(printf '%.77s' "$(printf 'x%.0s' $(seq 1 100))")..." "table"
  expect_eq "$("$profdb" query --csv f.db "SELECT name, dur, 'a,\"b' AS q FROM cpu_op" | tr -d '\r')" \
"name,dur,q
aten::add,12500,\"a,\"\"b\"" "csv"
  expect_eq "$("$profdb" query --json f.db "SELECT name, dur, NULL AS n, 0.5 AS r FROM cpu_op")" \
'[
  {"name": "aten::add", "dur": 12500, "n": null, "r": 0.5}
]' "json"
  expect_eq "$(echo "SELECT 1 AS one;" | "$profdb" query --csv f.db | tr -d '\r')" \
"one
1" "SQL from stdin"
  "$profdb" query f.db "SELECT nope FROM cpu_op" 2>err.txt; rc=$?
  expect_eq "$rc" 2 "bad SQL exit code"
  grep -q "no such column: nope" err.txt || fail "bad SQL message: $(cat err.txt)"
  "$profdb" query missing.db "SELECT 1" 2>err.txt; rc=$?
  expect_eq "$rc" 2 "missing database exit code"
  grep -q "missing.db: no such database" err.txt || fail "missing db message"
  # The database is opened read-only: queries cannot change it.
  "$profdb" query f.db "DELETE FROM trace" 2>err.txt; rc=$?
  expect_eq "$rc" 2 "write through query"
  grep -q "readonly" err.txt || fail "read-only message: $(cat err.txt)"
}

usage_errors() {
  "$profdb" load "$cases/flows.json" 2>err.txt; expect_eq "$?" 2 "load without -o"
  grep -q "missing -o DB" err.txt || fail "message for missing -o"
  "$profdb" load -o x.db 2>err.txt; expect_eq "$?" 2 "load without input"
  "$profdb" load nosuch.json -o x.db 2>err.txt; expect_eq "$?" 2 "missing input"
  grep -q "profdb: nosuch.json: no such file" err.txt || fail "message: $(cat err.txt)"
  [ -e x.db ] && fail "x.db created by a failed load"
  "$profdb" load --bogus a -o x.db 2>err.txt; expect_eq "$?" 2 "unknown option"
  "$profdb" frobnicate 2>err.txt; expect_eq "$?" 2 "unknown command"
  "$profdb" --help >out.txt; expect_eq "$?" 0 "--help"
  grep -q "^usage: profdb" out.txt || fail "--help text"
  echo "not a database" > notdb.db
  "$profdb" load -q "$cases/flows.json" -o notdb.db 2>err.txt; expect_eq "$?" 2 "load into a non-database"
  expect_eq "$(cat notdb.db)" "not a database" "non-database file untouched"
  mkdir dir.db
  "$profdb" load -q "$cases/flows.json" -o dir.db 2>err.txt; expect_eq "$?" 2 "load into a directory"
}

# expect_refusal WANT_RC WANT_MESSAGE COMMAND...: the command fails with
# exit code WANT_RC, and the first line of stderr is WANT_MESSAGE (the
# usage text, if any, comes after it).
expect_refusal() {
  local want_rc=$1 want=$2; shift 2
  "$@" >out.txt 2>err.txt; local rc=$?
  expect_eq "$rc" "$want_rc" "exit code of: $*"
  expect_eq "$(head -1 err.txt)" "$want" "first line of stderr of: $*"
}

refusals() {
  "$profdb" load -q "$cases/flows.json" -o run.db || fail "load"
  cp "$cases/flows.json" t.json
  gzip -c "$cases/flows.json" > t.json.gz
  # Arguments swapped: the database given as input, a trace after -o.
  expect_refusal 2 "profdb: t.json.gz: not an SQLite database but a gzip file (a trace?) (refusing to replace it); -o names the database to write: profdb load TRACE... -o DB" \
    "$profdb" load run.db -o t.json.gz
  cmp -s t.json.gz <(gzip -c "$cases/flows.json") || fail "the trace after -o was modified"
  # A profdb database given where a trace belongs is named as such.
  expect_refusal 2 "profdb: run.db: a SQLite database (a profdb database?), not a trace or memory snapshot; report on it with: profdb report run.db" \
    "$profdb" load run.db -o new.db
  [ -e new.db ] && fail "new.db created by a refused load"
  expect_refusal 2 "profdb: report: --top needs a whole number of rows >= 1, got '0'" "$profdb" report run.db --top 0
  grep -q "^usage: profdb report" err.txt || fail "no usage after the message"
  expect_refusal 2 "profdb: report: --top needs a whole number of rows >= 1, got 'abc'" "$profdb" report run.db --top abc
  expect_refusal 2 "profdb: diff: --top needs a whole number of rows >= 1, got '0'" "$profdb" diff run.db run.db --top 0
  expect_refusal 2 "profdb: diff: give two runs, BEFORE and AFTER (got 1)" "$profdb" diff run.db
  grep -q "^usage: profdb diff" err.txt || fail "no diff usage after the message"
  expect_refusal 2 "profdb: --md needs a value" "$profdb" report run.db --md
  expect_refusal 2 "profdb: report: give a profdb database, or trace / snapshot files" "$profdb" report
  expect_refusal 2 "profdb: report: --trace needs a trace_id >= 1, got 'x'" "$profdb" report run.db --trace x
  # the options of report_params.c: a missing value, a choice, a range
  expect_refusal 2 "profdb: --scope needs a value" "$profdb" report run.db --scope
  expect_refusal 2 "profdb: report: --scope needs steps, trace or hta, got 'all'" "$profdb" report run.db --scope all
  expect_refusal 2 "profdb: report: --gpu-gb needs a size in GB > 0, got '0'" "$profdb" report run.db --gpu-gb 0
  expect_refusal 2 "profdb: diff: --line-tolerance needs a whole number of lines >= 0, got '-1'" "$profdb" diff run.db run.db --line-tolerance -1
  "$profdb" --help | grep -q "^  report DB|INPUT\.\.\. *write the resource report (Markdown, JSON, HTML, CSV)$" ||
    fail "profdb --help: report's line"
  # A bad --section lists the valid ids.
  "$profdb" report run.db --section nope >out.txt 2>err.txt; expect_eq "$?" 2 "bad --section exit code"
  [[ "$(head -1 err.txt)" == "profdb: no section 'nope'; sections: findings, run_summary, "*", gpu_kernel_sum, "* ]] ||
    fail "bad --section message: $(head -1 err.txt)"
  "$profdb" diff run.db run.db --section nope >out.txt 2>err.txt; expect_eq "$?" 2 "bad diff --section exit code"
  [[ "$(head -1 err.txt)" == "profdb: no section 'nope'; sections: verdict, "* ]] ||
    fail "bad diff --section message: $(head -1 err.txt)"
  # --trace / --snapshot that do not exist: what exists, and a failure.
  expect_refusal 2 "profdb: run.db: no trace 99; traces: 1 (flows)" "$profdb" report run.db --trace 99
  expect_refusal 2 "profdb: run.db: no snapshot 3; snapshots: none" "$profdb" report run.db --snapshot 3
  [ -s out.txt ] && fail "a report was written for a missing snapshot"
  # A query file whose Brief or Chart names a column it does not have.
  cp -r "$(dirname "$cases")/../../queries" q
  sed -i 's/^-- Brief: label step/-- Brief: label stpe/' q/step_time.sql
  expect_refusal 2 "profdb: q/step_time.sql: Brief names 'stpe', which is not one of its Columns" \
    "$profdb" report run.db --queries q
  true
}

folder_skips() {
  # Non-trace JSON and pickles in a trace folder: one warning each, the
  # traces load; a broken trace still fails the whole folder.
  mkdir run
  cp "$cases/flows.json" run/rank0.json
  cp "$cases/keys_after.json" run/rank1.json
  echo '{"lr": 0.1, "batch_size": 32}' > run/config.json
  cp "$cases/bad_pickle.pickle" run/snapshot.pickle
  "$profdb" load run -o f.db 2>err.txt; rc=$?
  expect_eq "$rc" 0 "folder with config.json and a pickle: exit code"
  expect_eq "$(grep -c 'run/config.json: warning: skipping: not a trace or snapshot' err.txt)" 1 "config.json warning"
  expect_eq "$(grep -c 'run/snapshot.pickle: warning: skipping a pickle' err.txt)" 1 "pickle warning"
  expect_eq "$(q f.db "SELECT count(*) FROM trace")" "$(printf 'count(*)\n2')" "traces of the folder"
  cp f.db before.db
  cp "$cases/bad_invalid.json" run/rank2.json
  "$profdb" load -q run -o f.db 2>/dev/null; expect_eq "$?" 1 "folder with a broken trace"
  cmp -s f.db before.db || fail "a failed folder load changed the database"
  # Named explicitly, a non-trace JSON is an error, not a warning.
  "$profdb" load -q run/config.json -o g.db 2>err.txt; expect_eq "$?" 1 "config.json named explicitly"
}

load_summary() {
  # The closing line in words; the per-file key=value figures behind -v.
  mkdir ranks
  python3 - "$cases/flows.json" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))
for r in range(4):
    t = dict(src)
    t["distributedInfo"] = {"rank": r, "world_size": 4, "backend": "nccl"}
    t["deviceProperties"] = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85000000000}]
    t["traceEvents"] = src["traceEvents"] + [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7",
                                              "pid": 1, "tid": 1, "ts": 0, "dur": 1}]
    json.dump(t, open("ranks/rank%d.json" % r, "w"))
PY
  "$profdb" load ranks -o run.db 2>err.txt || fail "load: $(cat err.txt)"
  # a rank per GPU: 4 ranks that each list their own GPU ran on 4 GPUs
  expect_eq "$(cat err.txt)" "profdb: run.db: 4 traces: ranks 0-3 of 4, 4x NVIDIA H100 80GB HBM3, step 7 — next: profdb report run.db" "summary line"
  # 16 ranks whose traces list their host's 8 GPUs: 16 GPUs, 8 a host
  # (issue 45: not "8x", the device ids repeating on every host)
  mkdir hosts
  python3 - "$cases/flows.json" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))
for r in range(16):
    t = dict(src)
    t["distributedInfo"] = {"rank": r, "world_size": 16, "backend": "nccl"}
    t["deviceProperties"] = [{"id": d, "name": "Tesla V100-SXM2-32GB"} for d in range(8)]
    t["traceEvents"] = src["traceEvents"] + [{"ph": "i", "name": "mark", "pid": 1, "tid": 1,
                                              "ts": r, "s": "t"}]
    json.dump(t, open("hosts/rank%d.json" % r, "w"))
PY
  "$profdb" load hosts -o hosts.db 2>err.txt || fail "load hosts: $(cat err.txt)"
  [[ "$(cat err.txt)" == *"ranks 0-15 of 16, 16x Tesla V100-SXM2-32GB (8 a host)"* ]] ||
    fail "16 ranks of 8 a host: $(cat err.txt)"
  "$profdb" load -v --replace ranks -o run.db 2>err.txt || fail "load -v"
  expect_eq "$(grep -c 'trace_id=' err.txt)" 4 "per-file figures with -v"
  grep -q "— next: profdb report run.db" err.txt || fail "summary line with -v"
  "$profdb" load -q --replace ranks -o run.db 2>err.txt || fail "load -q"
  [ -s err.txt ] && fail "-q printed: $(cat err.txt)"
  true
}

"$check" && echo "ok: $check"
