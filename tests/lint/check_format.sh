#!/usr/bin/env bash
# lint.format: every tracked C file is as clang-format (the repository's
# .clang-format) would write it.  Skipped (77) where clang-format is absent;
# .ci/run installs it.  To fix: clang-format -i FILE (or every file:
# git ls-files '*.c' '*.h' '*.h.in' | xargs clang-format -i).
set -euo pipefail
src=${1:?usage: check_format.sh SOURCE_DIR}
cd "$src"
command -v clang-format >/dev/null || { echo "clang-format not installed: skipped"; exit 77; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.h' '*.h.in')
else
  mapfile -t files < <(find . -path ./build -prune -o \( -name '*.c' -o -name '*.h' -o -name '*.h.in' \) -print)
fi
[ ${#files[@]} -gt 0 ] || { echo "no C files found under $src"; exit 1; }
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  clang-format --style=file --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted (run clang-format -i on them):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "${#files[@]} C files formatted"
