/* writer.test.c — columns by name: the writer binds each value to the
** column its id names (profdb_columns.h, generated from the DDL), whatever
** the order the values come in; refuses a row that does not give every
** column exactly one value; and refuses, once, a table whose columns are
** not the ones the ids were generated from. */
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

/* The _string row a test writes: its values in the order given by how. */
enum { IN_ORDER, REVERSED, MISSING_VALUE, VALUE_TWICE };

/* Write one _string row (id 7, 'seven') through a fresh writer into a
** _string table created by ddl; returns writer_sync()'s result (-3 when
** the row reads back wrong), the error in err. */
static int write_string_row(const char *ddl, int how, int threads, char *err, size_t errn) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, ddl, NULL, NULL, NULL);
  char *e = NULL;
  ld_writer *w = writer_start(db, threads, &e);
  if (!w) {
    snprintf(err, errn, "%s", e ? e : "?");
    sqlite3_free(e);
    sqlite3_close(db);
    return -2;
  }
  ld_buf *b = writer_batch(w);
  row_begin(b, TB_STRING);
  switch (how) {
    case IN_ORDER:
      row_int(b, COL_STRING_ID, 7);
      row_text(b, COL_STRING_VALUE, "seven", 5);
      break;
    case REVERSED:
      row_text(b, COL_STRING_VALUE, "seven", 5);
      row_int(b, COL_STRING_ID, 7);
      break;
    case MISSING_VALUE: /* two values, but id twice and value never */
      row_int(b, COL_STRING_ID, 7);
      row_int(b, COL_STRING_ID, 7);
      break;
    case VALUE_TWICE:
      row_text(b, COL_STRING_VALUE, "seven", 5);
      row_text(b, COL_STRING_VALUE, "seven", 5);
      break;
  }
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
  static const char ddl[] = "CREATE TABLE _string(id INTEGER PRIMARY KEY, value TEXT NOT NULL)";
  static const char swapped[] = "CREATE TABLE _string(value TEXT, id INTEGER PRIMARY KEY)";
  char err[512];
  expect(COL_STRING__N == 2 && COL_STRING_ID == 0 && COL_STRING_VALUE == 1 &&
             !strcmp(COLS_STRING, "id,value"),
         "profdb_columns.h has _string's columns in DDL order");
  expect(COL_GPU_DEVICE == 10 && COL_GPU_EXTRA == COL_GPU__N - 1,
         "profdb_columns.h reads several columns on one DDL line");
  for (int threads = 1; threads <= 2; threads++) {
    expect(write_string_row(ddl, IN_ORDER, threads, err, sizeof err) == 0,
           "a row in DDL order is written");
    expect(write_string_row(ddl, REVERSED, threads, err, sizeof err) == 0,
           "a row in another order is written, each value in its column");
    expect(write_string_row(ddl, MISSING_VALUE, threads, err, sizeof err) == -1,
           "a row without a value for a column is refused");
    expect(
        strstr(err, "a row for _string does not give each of its 2 columns one value") != NULL,
        "the error names the table and its column count");
    expect(write_string_row(ddl, VALUE_TWICE, threads, err, sizeof err) == -1,
           "a row with two values for one column is refused");
    expect(write_string_row(swapped, IN_ORDER, threads, err, sizeof err) == -1,
           "a table whose columns are in another order is refused");
    expect(strstr(err,
                  "table _string has the columns (value,id), this profdb writes (id,value)") !=
               NULL,
           "the error names both column lists");
  }
  return failures ? 1 : 0;
}
