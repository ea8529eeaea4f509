#!/bin/bash
# profdb.so must export exactly one symbol, its entry point
# sqlite3_profdb_init: any other exported name can be bound in place of a
# same-named symbol of another extension loaded earlier (check_decoy.py).
#
#   check_exports.sh NM PROFDB_SO
set -u
nm=$1 so=$2
# Defined dynamic symbols; sanitizer builds add their own runtime hooks
# (__asan_*, __ubsan_*, __odr_asan*, __sanitizer_*), which are not ours.
exported=$("$nm" -D --defined-only "$so" | awk '{print $NF}' |
           grep -v -E '^(__asan|__ubsan|__odr_asan|__sanitizer|_init$|_fini$)' | sort)
if [ "$exported" != sqlite3_profdb_init ]; then
  echo "profdb.so exports more than sqlite3_profdb_init:"
  echo "$exported"
  exit 1
fi
echo "exports: $exported"
