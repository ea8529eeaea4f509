/*
** floor.c — profdb-floor: how fast SQLite alone can write what a load wrote.
**
**   profdb-floor [-v] LOADED.db OUT.db
**
** Reads every row of every table of LOADED.db (a database `profdb load`
** made) into memory, untimed; then, timed, writes exactly those rows into
** a new OUT.db created from LOADED.db's own table definitions, the way the
** loader writes (loader/sql/writer_settings.sql: no journal, no sync,
** exclusive lock, the same page cache; one transaction; one prepared INSERT
** per table, bound, stepped and reset per row like writer.c's batch loop),
** then builds every index LOADED.db has and commits, closes and fsyncs.
** No JSON, no parser, nothing derived: the floor under `profdb load` on
** this machine for this content.  Tables, columns and indexes come from
** LOADED.db itself, so the floor follows the schema wherever it moves.
**
** Prints one line of key=value figures on stdout (bench/bench.py reads it):
**   tables rows      what was written
**   insert_s         the rows (tables in schema order, rows in rowid order)
**   index_s          CREATE INDEX of every index of LOADED.db
**   commit_s         COMMIT, close, fsync
**   floor_s          insert_s + index_s + commit_s
**   floor_rows_s     insert_s + commit_s: the floor without the indexes
** With -v, one line per table on stderr: its rows and insert seconds.
*/
#include "buf.h"
#include "clock.h"
#include "sql.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

/* Value tags of the in-memory rows (as in writer.h, plus BLOB). */
enum { V_NULL, V_INT, V_REAL, V_TEXT, V_BLOB };

typedef struct table_rows {
  char *name;     /* table name */
  char *insert;   /* INSERT INTO "name" VALUES(?,...) */
  int ncols;      /* columns per row */
  uint64_t nrows; /* rows */
  ld_buf rows;    /* ncols tagged values per row, back to back */
} table_rows;

static void die(sqlite3 *db, const char *what) {
  fprintf(stderr, "profdb-floor: %s: %s\n", what, db ? sqlite3_errmsg(db) : "failed");
  exit(2);
}

/* Every row of one table, encoded into t->rows. */
static void read_table(sqlite3 *src, table_rows *t) {
  char *sql = sqlite3_mprintf("SELECT * FROM \"%w\"", t->name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(src, sql, -1, &st, NULL) != SQLITE_OK) die(src, t->name);
  sqlite3_free(sql);
  t->ncols = sqlite3_column_count(st);
  while (sqlite3_step(st) == SQLITE_ROW) {
    for (int c = 0; c < t->ncols; c++) {
      int type = sqlite3_column_type(st, c);
      if (type == SQLITE_INTEGER) {
        int64_t v = sqlite3_column_int64(st, c);
        ld_buf_putc(&t->rows, V_INT);
        ld_buf_put(&t->rows, &v, 8);
      } else if (type == SQLITE_FLOAT) {
        double v = sqlite3_column_double(st, c);
        ld_buf_putc(&t->rows, V_REAL);
        ld_buf_put(&t->rows, &v, 8);
      } else if (type == SQLITE_NULL) {
        ld_buf_putc(&t->rows, V_NULL);
      } else {
        const void *p = type == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, c)
                                            : sqlite3_column_blob(st, c);
        uint32_t len = (uint32_t)sqlite3_column_bytes(st, c);
        ld_buf_putc(&t->rows, type == SQLITE_TEXT ? V_TEXT : V_BLOB);
        ld_buf_put(&t->rows, &len, 4);
        ld_buf_put(&t->rows, p, len);
      }
    }
    t->nrows++;
  }
  if (sqlite3_finalize(st) != SQLITE_OK) die(src, t->name);
  ld_buf ins = {0};
  char *head = sqlite3_mprintf("INSERT INTO \"%w\" VALUES(", t->name);
  ld_buf_put(&ins, head, strlen(head));
  sqlite3_free(head);
  for (int c = 0; c < t->ncols; c++) ld_buf_put(&ins, c ? ",?" : "?", c ? 2 : 1);
  ld_buf_putc(&ins, ')');
  t->insert = strdup(ld_buf_cstr(&ins));
  ld_buf_free(&ins);
}

/* Insert t's rows through one prepared statement (writer.c's loop). */
static void write_table(sqlite3 *db, const table_rows *t) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v3(db, t->insert, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
    die(db, t->insert);
  const char *p = t->rows.p;
  for (uint64_t r = 0; r < t->nrows; r++) {
    for (int c = 1; c <= t->ncols; c++) {
      int tag = *p++;
      if (tag == V_NULL) {
        sqlite3_bind_null(st, c);
      } else if (tag == V_INT || tag == V_REAL) {
        int64_t i;
        double d;
        if (tag == V_INT)
          memcpy(&i, p, 8), sqlite3_bind_int64(st, c, i);
        else
          memcpy(&d, p, 8), sqlite3_bind_double(st, c, d);
        p += 8;
      } else {
        uint32_t len;
        memcpy(&len, p, 4);
        p += 4;
        if (tag == V_TEXT)
          sqlite3_bind_text(st, c, p, (int)len, SQLITE_STATIC);
        else
          sqlite3_bind_blob(st, c, p, (int)len, SQLITE_STATIC);
        p += len;
      }
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) die(db, t->name);
  }
  sqlite3_finalize(st);
}

int main(int argc, char **argv) {
  int verbose = argc > 1 && !strcmp(argv[1], "-v");
  if (argc != 3 + verbose) {
    fprintf(stderr, "usage: profdb-floor [-v] LOADED.db OUT.db\n");
    return 2;
  }
  const char *src_path = argv[1 + verbose], *out_path = argv[2 + verbose];
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); /* as the profdb CLI */
  sqlite3 *src, *db;
  if (sqlite3_open_v2(src_path, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
    die(src, src_path);

  /* The schema, in creation order: tables now, indexes (named ones, not
  ** the automatic indexes of UNIQUE / PRIMARY KEY) after the rows, as the
  ** loader builds them.  sqlite_stat1 (ANALYZE) and other internal tables
  ** are SQLite's own; views cost nothing to write. */
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          src,
          "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL"
          " AND type IN ('table', 'index') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
          " ORDER BY rowid",
          -1, &st, NULL) != SQLITE_OK)
    die(src, "reading the schema");
  ld_buf tables_sql = {0}, index_sql = {0};
  table_rows *tables = NULL;
  int ntables = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *type = (const char *)sqlite3_column_text(st, 0);
    const char *sql = (const char *)sqlite3_column_text(st, 2);
    ld_buf *into = !strcmp(type, "table") ? &tables_sql : &index_sql;
    ld_buf_put(into, sql, strlen(sql));
    ld_buf_put(into, ";\n", 2);
    if (into == &tables_sql) {
      tables = realloc(tables, (size_t)(ntables + 1) * sizeof *tables);
      if (!tables) die(NULL, "out of memory");
      tables[ntables++] =
          (table_rows){.name = strdup((const char *)sqlite3_column_text(st, 1))};
    }
  }
  sqlite3_finalize(st);
  uint64_t nrows = 0;
  for (int i = 0; i < ntables; i++) {
    read_table(src, &tables[i]);
    nrows += tables[i].nrows;
  }
  sqlite3_close(src);

  unlink(out_path);
  if (sqlite3_open_v2(out_path, &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      NULL) != SQLITE_OK)
    die(db, out_path);
  if (sqlite3_exec(db, profdb_sql_writer_settings, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(db, ld_buf_cstr(&tables_sql), NULL, NULL, NULL) != SQLITE_OK)
    die(db, "creating the tables");

  double t0 = ld_seconds();
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) die(db, "BEGIN");
  for (int i = 0; i < ntables; i++) {
    double ts = ld_seconds();
    write_table(db, &tables[i]);
    if (verbose)
      fprintf(stderr, "profdb-floor: %-20s %10llu rows %8.3f s\n", tables[i].name,
              (unsigned long long)tables[i].nrows, ld_seconds() - ts);
  }
  double t1 = ld_seconds();
  if (sqlite3_exec(db, ld_buf_cstr(&index_sql), NULL, NULL, NULL) != SQLITE_OK)
    die(db, "creating the indexes");
  double t2 = ld_seconds();
  if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) die(db, "COMMIT");
  if (sqlite3_close(db) != SQLITE_OK) die(db, "close");
  int fd = open(out_path, O_RDONLY | O_CLOEXEC); /* the loader fsyncs before its rename */
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
  double t3 = ld_seconds();
  printf(
      "tables=%d rows=%llu insert_s=%.3f index_s=%.3f commit_s=%.3f floor_s=%.3f"
      " floor_rows_s=%.3f\n",
      ntables, (unsigned long long)nrows, t1 - t0, t2 - t1, t3 - t2, t3 - t0,
      (t1 - t0) + (t3 - t2));
  for (int i = 0; i < ntables; i++) {
    free(tables[i].name);
    free(tables[i].insert);
    ld_buf_free(&tables[i].rows);
  }
  free(tables);
  ld_buf_free(&tables_sql);
  ld_buf_free(&index_sql);
  return 0;
}
