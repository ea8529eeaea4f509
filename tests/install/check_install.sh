#!/bin/bash
# An installed profdb stands alone: install into a temporary prefix, move
# the install tree elsewhere (so neither the configure-time prefix nor the
# install prefix exists), then from an unrelated folder run load, query,
# report and diff with the moved copy; their output must equal the build
# tree's.  With its queries removed, the moved copy must fail and list
# where it looked, never falling back to the source tree.  Last, a small C
# program (embed.c) compiles against the moved headers and libraries via
# pkg-config and loads a trace.
#
#   check_install.sh CMAKE BUILD_DIR TESTS_DIR WORK_DIR CC [CFLAGS...]
set -u -o pipefail
cmake=$1 build=$2 tests=$3 work=$4 cc=$5
shift 5
cflags=("$@")
fixtures=$tests/report/data
export LC_ALL=C TZ=UTC
unset PROFDB_QUERIES
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$work"
mkdir -p "$work/user"
"$cmake" --install "$build" --prefix "$work/stage" > "$work/install.log" ||
  fail "cmake --install"
mv "$work/stage" "$work/moved"
p=$work/moved
cp "$fixtures/train_rank0.json" "$fixtures/after_rank0.json" \
   "$fixtures/memory_snapshot.json" "$work/user/"

cd "$work/user"
"$p/bin/profdb" load -q train_rank0.json memory_snapshot.json -o before.db || fail "load"
"$p/bin/profdb" load -q after_rank0.json -o after.db || fail "load after"
"$p/bin/profdb" query --csv before.db "SELECT count(*) FROM kernel" | tail -n 1 | tr -d "\r" > query.out || fail "query"
[ "$(cat query.out)" -gt 0 ] 2>/dev/null || fail "query: no kernels: $(cat query.out)"

# The same report and diff as the build tree's profdb (its queries from the
# source tree): Markdown byte for byte.
mkdir installed built
"$p/bin/profdb" report before.db --md installed/report.md > /dev/null || fail "report"
"$build/profdb" report before.db --md built/report.md > /dev/null || fail "report (build tree)"
diff -r installed built > /dev/null || fail "report differs from the build tree's"
"$p/bin/profdb" diff before.db after.db > installed_diff.md || fail "diff"
"$build/profdb" diff before.db after.db > built_diff.md || fail "diff (build tree)"
cmp -s installed_diff.md built_diff.md || fail "diff differs from the build tree's"
grep -q '^# ' installed/report.md && grep -q '^# ' installed_diff.md || fail "empty report or diff"

# Without its queries the installed profdb must say where it looked, and
# not use the source tree's.
mv "$p/share/profdb/queries" "$p/share/profdb/queries.away"
"$p/bin/profdb" report before.db > none.md 2> none.err
rc=$?
mv "$p/share/profdb/queries.away" "$p/share/profdb/queries"
[ $rc -eq 2 ] || fail "report without queries: exit $rc, want 2"
grep -q "looked in:" none.err && grep -qF "$p/bin/../share/profdb/queries" none.err ||
  fail "error does not list where it looked: $(cat none.err)"
grep -qF "source tree" none.err && fail "installed profdb looked in the source tree"

# A program embedding the loader, built against the moved install only.
export PKG_CONFIG_PATH=$p/lib/pkgconfig
pkg-config --exists profdb || fail "pkg-config cannot find profdb.pc in $PKG_CONFIG_PATH"
read -r -a pc_cflags <<< "$(pkg-config --cflags profdb)"
read -r -a pc_libs <<< "$(pkg-config --libs profdb)"
"$cc" "${cflags[@]}" "${pc_cflags[@]}" -o embed "$tests/install/embed.c" "${pc_libs[@]}" ||
  fail "embed.c does not build against the installed profdb"
./embed embedded.db train_rank0.json > embed.out || fail "embed exited $?"
want=$("$p/bin/profdb" query --csv embedded.db \
  "SELECT 'kernels ' || count(*) || ' gemm_ns ' ||
          coalesce(sum(dur) FILTER (WHERE kernel_category(name) = 'GEMM'), 0) ||
          ' version ' || profdb_version() FROM kernel" | tail -n 1 | tr -d "\r")
[ "$(cat embed.out)" = "$want" ] || fail "embed printed '$(cat embed.out)', want '$want'"
echo "installed copy: load, query, report, diff and embed.c OK ($(cat embed.out))"
