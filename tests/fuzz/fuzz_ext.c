/*
** fuzz_ext.c — libFuzzer harness for the extension's functions on
** arbitrary values: the input's first byte picks how the rest is bound
** (text, blob, integer, real), and every scalar function and aggregate is
** called with it.  They must return a value, NULL or an SQL error; never
** crash, hang or leak, nor take more CPU time than a linear budget allows
** (fuzz_budget.h).
*/
#include "fuzz_budget.h"
#include "profdb/ext.h"
#include "profdb/profdb.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const queries[] = {
    "SELECT kernel_category(?1), op_family(?1), frame_rank(?1), kernel_base(?1)",
    "SELECT profdb_fmt_ns(?1), profdb_fmt_bytes(?1), profdb_version()",
    "SELECT interval_union(a, b), interval_overlap(a, b, a % 2), interval_layers(a, b, abs(a) "
    "% 3, 3),"
    " profdb_median(a), profdb_percentile(b, 95)"
    " FROM (SELECT ?1 AS a, ?2 AS b UNION ALL SELECT ?2, ?1 UNION ALL SELECT 0, ?2)",
    "SELECT * FROM mem_peak(?1, ?2)",
    "SELECT count(*) FROM mem_timeline(?1, ?2, ?3)",
    "SELECT * FROM mem_live_at(?1, ?2, ?1)",
    "SELECT * FROM mem_trace_peak(?1)",
};

static void bind(sqlite3_stmt *st, int i, int how, const uint8_t *p, size_t n) {
  int64_t v = 0;
  memcpy(&v, p, n < 8 ? n : 8);
  switch (how & 3) {
    case 0: sqlite3_bind_text(st, i, (const char *)p, (int)n, SQLITE_TRANSIENT); break;
    case 1: sqlite3_bind_blob(st, i, p, (int)n, SQLITE_TRANSIENT); break;
    case 2: sqlite3_bind_int64(st, i, v); break;
    default: {
      double d;
      memcpy(&d, &v, sizeof d);
      sqlite3_bind_double(st, i, d);
    }
  }
}

/* Databases with extreme values (issue 26): one value of the input, of any
** type, written into a size or address of the loaded rows before the
** queries run, and rolled back after them. */
static const char *const tamper[] = {
    "UPDATE _alloc_event SET size = ?1 WHERE rowid = 1 + abs(?2 % 64)",
    "UPDATE _alloc_event SET addr = ?1 WHERE rowid = 1 + abs(?2 % 64)",
    "UPDATE _segment SET total_size = ?1 WHERE rowid = 1 + abs(?2 % 8)",
    "UPDATE _block SET requested_size = ?1 WHERE rowid = 1 + abs(?2 % 16)",
    "UPDATE _instant SET bytes = ?1 WHERE rowid = 1 + abs(?2 % 64)",
    "UPDATE _instant SET total_allocated = ?1 WHERE rowid = 1 + abs(?2 % 64)",
};

static void tamper_with(sqlite3 *db, int how, const uint8_t *p, size_t n) {
  sqlite3_stmt *st;
  int which =
      ((how >> 6) + 4 * (n ? p[n - 1] : 0)) % (int)(sizeof tamper / sizeof tamper[0] + 1);
  if (which == 0) return; /* the loaded rows as they are */
  if (sqlite3_prepare_v2(db, tamper[which - 1], -1, &st, NULL) != SQLITE_OK) abort();
  bind(st, 1, how, p, n);
  sqlite3_bind_int64(st, 2, n ? p[0] : 0);
  sqlite3_step(st);
  sqlite3_finalize(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sqlite3 *db;
  if (!db) {
    /* A database with two snapshots and a trace with [memory] events, so
    ** that the mem_* functions have rows to replay for ids 1 and 2. */
    static const char *const inputs[] = {FUZZ_INPUTS "/mem_two_devices.json",
                                         FUZZ_INPUTS "/mem_address_reuse.json",
                                         FUZZ_INPUTS "/trace_memory.json"};
    profdb_load_options opt = {0};
    opt.quiet = 1;
    opt.threads = 1;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK || profdb_ext_register(db, NULL) ||
        profdb_load_db(db, inputs, 3, &opt) != PROFDB_EXIT_OK)
      abort();
  }
  if (size < 2) return 0;
  double started = fuzz_cpu_seconds();
  int how = data[0];
  const uint8_t *p = data + 1;
  size_t n = size - 1, half = n / 2;
  sqlite3_exec(db, "SAVEPOINT tamper", NULL, NULL, NULL);
  tamper_with(db, how, p, n);
  for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, queries[q], -1, &st, NULL) != SQLITE_OK) abort();
    bind(st, 1, how, p, n);
    bind(st, 2, how >> 2, p + half, n - half);
    bind(st, 3, how >> 4, p, half);
    while (sqlite3_step(st) == SQLITE_ROW) {}
    sqlite3_finalize(st);
  }
  sqlite3_exec(db, "ROLLBACK TO tamper; RELEASE tamper", NULL, NULL, NULL);
  fuzz_check_budget("extension functions", started, size);
  return 0;
}
