/*
** embed.c — a program that embeds the profdb loader through the installed
** headers and libraries (pkg-config profdb): it loads the inputs into a
** database, then counts what landed, with a profdb SQL function.
**
**   embed DB INPUT...    prints "kernels N gemm_ns N version V"
*/
#include <profdb/ext.h>
#include <profdb/profdb.h>

#include <sqlite3.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: embed DB INPUT...\n");
    return 2;
  }
  profdb_load_options opt = {.quiet = 1};
  int rc = profdb_load(argv[1], (const char *const *)&argv[2], argc - 2, &opt);
  if (rc != PROFDB_EXIT_OK) return rc;

  sqlite3 *db = NULL;
  char *err = NULL;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      profdb_ext_register(db, &err) != SQLITE_OK) {
    fprintf(stderr, "embed: %s\n", err ? err : sqlite3_errmsg(db));
    return 2;
  }
  sqlite3_stmt *st = NULL;
  const char *sql =
      "SELECT count(*), coalesce(sum(dur) FILTER (WHERE kernel_category(name) = 'GEMM'), 0)"
      " FROM kernel";
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW) {
    fprintf(stderr, "embed: %s\n", sqlite3_errmsg(db));
    return 2;
  }
  printf("kernels %lld gemm_ns %lld version %s\n", sqlite3_column_int64(st, 0),
         sqlite3_column_int64(st, 1), PROFDB_VERSION);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}
