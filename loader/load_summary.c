/*
** load_summary.c — profdb load's closing line in words, from the database
** the load wrote: the loader answers what it loaded, so the CLI needs no
** report queries for it.
*/
#include "load_summary.h"

#include <stddef.h>

#include "profdb_sql.h" /* profdb_sql_load_summary: loader/sql/load_summary.sql */

char *ld_load_summary(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  char *text = NULL;
  if (sqlite3_prepare_v2(db, profdb_sql_load_summary, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    text = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return text;
}
