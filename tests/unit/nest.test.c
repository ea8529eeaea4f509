/* nest.test.c — what the parser gathers for the nesting pass: step numbers
** read as the SQL they replace read them (CAST(substr(name, 14) AS INTEGER)
** under GLOB 'ProfilerStep#[0-9]*'), threads told apart by value and type,
** slices handed back in thread, start, longer-first order. */
#include "nest.h"

#include "profdb/codes.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      failures++;                                          \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
    }                                                      \
  } while (0)

/* The step number SQLite gives name, -1 when the GLOB does not match. */
static long long sql_step(sqlite3 *db, const char *name) {
  sqlite3_stmt *st;
  long long v = -2;
  sqlite3_prepare_v2(db,
                     "SELECT CASE WHEN ?1 GLOB 'ProfilerStep#[0-9]*'"
                     " THEN CAST(substr(?1, 14) AS INTEGER) ELSE -1 END",
                     -1, &st, NULL);
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

int main(void) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  static const char *const names[] = {"ProfilerStep#0",
                                      "ProfilerStep#12",
                                      "ProfilerStep#7abc",
                                      "ProfilerStep#",
                                      "ProfilerStep#x1",
                                      "ProfilerStep",
                                      "profilerstep#3",
                                      "ProfilerStep#0042",
                                      "ProfilerStep#99999999999999999999999",
                                      "ProfilerStep#9223372036854775807",
                                      "ProfilerStep#9223372036854775808",
                                      "aten::mm",
                                      "ProfilerStep#5 6"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    long long want = sql_step(db, names[i]);
    long long got = (long long)nest_step_number(names[i], strlen(names[i]));
    CHECK(got == want, "'%s': step %lld, SQL says %lld", names[i], got, want);
  }
  sqlite3_close(db);

  /* pid 1 and pid "1" are different threads; so are traces. */
  ld_nest *n = nest_new();
  ld_value i1 = {'i', 1, NULL, 0}, t1 = {'t', 0, "1", 1}, none = {0, 0, NULL, 0};
  /* added out of order: (thread, ts, dur desc, kind rank, id) is the order */
  nest_add(n, 1, &i1, &i1, 10, 500, 5, 0, PROFDB_KIND_CPU_OP, NULL, 0);
  nest_add(n, 1, &t1, &i1, 11, 100, 5, 0, PROFDB_KIND_CPU_OP, NULL, 0);
  nest_add(n, 1, &i1, &i1, 12, 100, 50, 0, PROFDB_KIND_CPU_OP, "[[2]]", 5);
  nest_add(n, 2, &i1, &i1, 13, 0, 5, 0, PROFDB_KIND_CPU_OP, NULL, 0);
  nest_add(n, 1, &i1, &i1, 14, 100, 50, 0, PROFDB_KIND_RUNTIME, NULL, 0);
  nest_add(n, 1, &none, &none, 15, 1, 1, 0, PROFDB_KIND_CPU_OP, NULL, 0);
  CHECK(nest_count(n) == 6, "count %llu", (unsigned long long)nest_count(n));
  CHECK(nest_finish(n) == 0, "finish");
  static const long long want_ids[] = {12, 14, 10, 11, 13, 15};
  int k = 0;
  for (const nest_row *r; (r = nest_next(n)); k++)
    CHECK(k < 6 && r->id == want_ids[k], "row %d: id %lld, want %lld", k, (long long)r->id,
          k < 6 ? want_ids[k] : -1);
  CHECK(k == 6, "%d rows", k);
  CHECK(nest_thread_trace(n, 0) == 1 && nest_thread_pid(n, 0)->type == 'i', "thread 0");
  CHECK(nest_thread_pid(n, 1)->type == 't' && !memcmp(nest_thread_pid(n, 1)->s, "1", 1),
        "thread 1 keeps its text pid");
  CHECK(nest_thread_trace(n, 2) == 2, "thread 2 is trace 2's");
  CHECK(nest_thread_pid(n, 3)->type == 0, "thread 3 has no pid");
  nest_free(n);
  if (failures) return 1;
  puts("ok");
  return 0;
}
