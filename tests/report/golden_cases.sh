# golden_cases.sh — the report/diff golden cases and how each is rendered;
# sourced by run_golden.sh (the test: compare) and update_golden.sh (the
# command that rewrites tests/report/golden).  tests/CMakeLists.txt reads
# the case list from the next line.
golden_cases="full snapshot_only one_section trace_memory cpu_only diff_full diff_files diff_one_sided diff_memory_only diff_gpus diff_trend"

# render_case PROFDB TESTS_DIR WORK_DIR CASE: writes the case's Markdown,
# JSON, HTML and SVG files twice, into WORK_DIR/a and WORK_DIR/b, and checks
# that both runs gave identical files (the output is deterministic).
# Returns 2 when the command failed, 1 when the runs differ.
render_case() {
  local profdb=$1 tests=$2 work=$3 case=$4
  local fixtures=$tests/report/data
  # Command, inputs and options of each case, as a user would type them
  # (paths relative to the folder the command runs in, so the JSON "inputs"
  # are stable).  Diff cases on databases load them into the run folder.
  local cmd=report dir args=() setup=()
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
    *) echo "unknown case $case"; return 2 ;;
  esac

  rm -rf "$work"
  mkdir -p "$work/a" "$work/b" "$work/run"
  local s db files run f name status=0
  for s in "${setup[@]}"; do
    read -r db files <<< "$s"
    (cd "$fixtures" && "$profdb" load -q $files -o "$work/run/$db") ||
      { echo "cannot load $files"; return 2; }
  done
  for run in a b; do
    (cd "$dir" && "$profdb" $cmd "${args[@]}" --md "$work/$run/$case.md" \
        --json "$work/$run/$case.json" --html "$work/$run/$case.html") ||
      { echo "profdb $cmd failed (run $run)"; return 2; }
  done
  for f in "$work"/a/*; do
    name=$(basename "$f")
    if ! cmp -s "$f" "$work/b/$name"; then
      echo "not deterministic: $name differs between two runs"
      status=1
    fi
  done
  return $status
}
