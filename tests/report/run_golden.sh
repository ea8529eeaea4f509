#!/bin/bash
# Golden test of `profdb report` and `profdb diff`: Markdown, JSON, HTML and SVG
# charts of a case must match tests/report/golden/<case>.* byte for byte,
# and a second run must give identical files (the output is deterministic).
#
#   run_golden.sh PROFDB TESTS_DIR WORK_DIR CASE
#
# UPDATE_GOLDEN=1 rewrites the golden files instead of comparing (review
# the diff before committing it).
set -u
profdb=$1 tests=$2 work=$3 case=$4
golden=$tests/report/golden
fixtures=$tests/report/data

# Command, inputs and options of each case, as a user would type them
# (paths relative to the folder the command runs in, so the JSON "inputs"
# are stable).  Diff cases on databases load them into the run folder.
cmd=report setup=()
case $case in
  full)          dir=$fixtures; args=(train_rank0.json train_rank1.json memory_snapshot.json) ;;
  snapshot_only) dir=$fixtures; args=(memory_snapshot.json --gpu-gb 0.04) ;;
  one_section)   dir=$fixtures; args=(train_rank0.json --section gpu_kernel_sum
                                      --section findings --top 3 --include-warmup) ;;
  trace_memory)  dir=$tests/sql/data; args=(trace_memory.json) ;;
  cpu_only)      dir=$tests/../docs/examples; args=(train_cpu.pt.trace.json) ;;
  diff_full)     dir=$work/run; cmd=diff; args=(before.db after.db)
                 setup=("before.db train_rank0.json memory_snapshot.json"
                        "after.db after_rank0.json after_memory_snapshot.json") ;;
  diff_files)    dir=$fixtures; cmd=diff
                 args=(train_rank0.json after_rank0.json --section verdict --section kernel --top 5) ;;
  diff_one_sided) dir=$fixtures; cmd=diff; args=(memory_snapshot.json after_rank0.json) ;;
  diff_memory_only) dir=$fixtures; cmd=diff; args=(memory_snapshot.json after_memory_snapshot.json) ;;
  diff_gpus)     dir=$fixtures; cmd=diff
                 args=(gpu_a100.json gpu_h100.json --fail-if 'step_time > +5% significant'
                       --fail-if 'gpu_util < -15pt' --fail-if 'peak_allocated > +10%') ;;
  diff_trend)    dir=$fixtures; cmd=diff
                 args=(train_rank0.json after_rank0.json gpu_a100.json gpu_h100.json
                       --fail-if 'step_time > +5% significant') ;;
  *) echo "unknown case $case"; exit 2 ;;
esac

rm -rf "$work"
mkdir -p "$work/a" "$work/b" "$work/run"
for s in "${setup[@]}"; do
  read -r db files <<< "$s"
  (cd "$fixtures" && "$profdb" load -q $files -o "$work/run/$db") || { echo "cannot load $files"; exit 1; }
done
for run in a b; do
  (cd "$dir" && "$profdb" $cmd "${args[@]}" --md "$work/$run/$case.md" \
      --json "$work/$run/$case.json" --html "$work/$run/$case.html") ||
      { echo "profdb $cmd failed (run $run)"; exit 1; }
done

status=0
for f in "$work"/a/*; do
  name=$(basename "$f")
  if ! cmp -s "$f" "$work/b/$name"; then
    echo "not deterministic: $name differs between two runs"
    status=1
  fi
done

if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
  rm -f "$golden/$case".*
  mkdir -p "$golden"
  cp "$work"/a/* "$golden/"
  echo "updated $golden/$case.*"
  exit $status
fi

for f in "$work"/a/* "$golden/$case".*; do
  name=$(basename "$f")
  if [ ! -e "$golden/$name" ]; then
    echo "new output file $name (no golden file; UPDATE_GOLDEN=1 to add it)"
    status=1
  elif [ ! -e "$work/a/$name" ]; then
    echo "missing output file $name"
    status=1
  elif ! cmp -s "$work/a/$name" "$golden/$name"; then
    echo "differs from golden: $name"
    diff -u "$golden/$name" "$work/a/$name" | head -40
    status=1
  fi
done
exit $status
