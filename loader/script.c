/*
** script.c — run a script of SQL statements with a binder (see script.h).
*/
#include "script.h"

#include "loader.h"

int ld_run_script(sqlite3 *db, const char *script, ld_binder *bind, const void *arg) {
  const char *tail = script;
  while (tail && *tail) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) return -1;
    if (!st) break; /* only comments or blanks left */
    if (bind && bind(st, arg)) {
      sqlite3_finalize(st);
      return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {}
    if (sqlite3_finalize(st) != SQLITE_OK) return -1;
  }
  return 0;
}

/* ld_exec_script()'s binder: every parameter is the artifact's id. */
static int bind_id(sqlite3_stmt *st, const void *id) {
  for (int i = 1; i <= sqlite3_bind_parameter_count(st); i++)
    sqlite3_bind_int64(st, i, *(const int64_t *)id);
  return 0;
}

int ld_exec_script(sqlite3 *db, const char *script, int64_t id) {
  return ld_run_script(db, script, bind_id, &id);
}
