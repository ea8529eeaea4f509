/* writer.test.c — the writer builds each INSERT from the table's DDL and
** refuses a row whose value count differs from the table's columns. */
#include "writer.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expect(int ok, const char *what) {
  if (!ok) {
    printf("FAIL %s\n", what);
    failures++;
  }
}

/* Write one _string row of ncols values through a fresh writer; returns
** writer_sync()'s result, the error in err. */
static int write_string_row(int ncols, int threads, char *err, size_t errn) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE TABLE _string(id INTEGER PRIMARY KEY, value TEXT NOT NULL)", NULL,
               NULL, NULL);
  char *e = NULL;
  ld_writer *w = writer_start(db, threads, &e);
  if (!w) {
    snprintf(err, errn, "%s", e ? e : "?");
    sqlite3_free(e);
    sqlite3_close(db);
    return -2;
  }
  ld_buf *b = writer_batch(w);
  row_begin(b, TB_STRING, ncols);
  row_int(b, 7);
  for (int c = 1; c < ncols; c++) row_text(b, "seven", 5);
  int rc = writer_sync(w);
  snprintf(err, errn, "%s", writer_error(w) ? writer_error(w) : "");
  writer_stop(w);
  if (rc == 0) {
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "SELECT value FROM _string WHERE id = 7", -1, &st, NULL);
    if (sqlite3_step(st) != SQLITE_ROW ||
        strcmp((const char *)sqlite3_column_text(st, 0), "seven"))
      rc = -3;
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return rc;
}

int main(void) {
  char err[512];
  for (int threads = 1; threads <= 2; threads++) {
    expect(write_string_row(2, threads, err, sizeof err) == 0, "a 2-value row into _string");
    expect(write_string_row(3, threads, err, sizeof err) == -1, "a 3-value row is refused");
    expect(strstr(err, "_string has 3 values, the table 2 columns") != NULL,
           "the error names the table and both counts");
    expect(write_string_row(1, threads, err, sizeof err) == -1, "a 1-value row is refused");
  }
  return failures ? 1 : 0;
}
