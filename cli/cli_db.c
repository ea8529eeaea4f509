/*
** cli_db.c — opening a profdb database for the subcommands that read one,
** the pair of databases a diff reads (cli_diff.c, cli_trend.c), and
** finding the query files the report runs.
*/
#include "cli.h"
#include "export.h"

#include "profdb/ext.h"
#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A load killed inside its append's transaction leaves a hot journal,
** which a read-only connection cannot roll back (it fails with "attempt
** to write a readonly database").  When there is a journal and the file is
** writable, a read through a read-write connection first rolls it back, as
** any SQLite client does on open: the database is then as it was before
** that load.  (A live writer's journal is not hot: the read changes
** nothing.) */
static void roll_back(const char *path) {
  char journal[4096];
  snprintf(journal, sizeof journal, "%s-journal", path);
  if (access(journal, F_OK) != 0 || access(path, W_OK) != 0) return;
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 10000);
    sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
  }
  sqlite3_close(db);
}

sqlite3 *cli_open_db(const char *path, int readonly) {
  sqlite3 *db;
  if (access(path, F_OK) != 0) {
    fprintf(stderr, "profdb: %s: no such database\n", path);
    return NULL;
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && ex_is_dataset(path)) {
    fprintf(stderr,
            "profdb: %s: a Parquet dataset of profdb export, not a database: profdb report"
            " and diff read it (profdb report %s); SQL over it needs DuckDB: duckdb -c"
            " \"SELECT rank, sum(dur) FROM '%s/kernel/*/*/*.parquet' GROUP BY rank\"\n",
            path, path, path);
    return NULL;
  }
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr,
            "profdb: %s: a folder, not a database; load its traces first"
            " (profdb load %s -o run.db), then name run.db\n",
            path, path);
    return NULL;
  }
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
    /* What SIGKILL during a first load into a new path leaves. */
    fprintf(stderr,
            "profdb: %s: empty file, not a profdb database (an interrupted first"
            " load leaves one; load again)\n",
            path);
    return NULL;
  }
  if (readonly) roll_back(path);
  int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: cannot open: %s\n", path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 10000);
  /* A database may be anyone's: SQLite's defensive mode (no writable
  ** schema, no shadow-table writes) on every connection that reads one. */
  int on = 0;
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on);
  char *err = NULL;
  if (profdb_ext_register(db, &err) != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: cannot register SQL functions: %s\n", path, err ? err : "?");
    sqlite3_free(err);
    sqlite3_close(db);
    return NULL;
  }
  /* A file that is not SQLite fails on the first read; say so now. */
  if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: %s\n", path, err ? err : sqlite3_errmsg(db));
    sqlite3_free(err);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

int cli_check_schema(sqlite3 *db, const char *path) {
  sqlite3_stmt *st;
  long long version = -1;
  if (sqlite3_prepare_v2(db, "SELECT value FROM _profdb WHERE key = 'schema_version'", -1, &st,
                         NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) version = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  if (version < 0) {
    fprintf(stderr, "profdb: %s: not a profdb database (no _profdb table)\n", path);
    return -1;
  }
  if (version != PROFDB_SCHEMA_VERSION) {
    fprintf(stderr,
            "profdb: %s: written with database schema %lld; this profdb reads schema"
            " %d: load the traces and snapshots again into a new database\n",
            path, version, PROFDB_SCHEMA_VERSION);
    return -1;
  }
  return 0;
}

int cli_attach_base(sqlite3 *db, const char *path) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, "ATTACH ?1 AS base", -1, &st, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_finalize(st);
  }
  if (rc != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: cannot attach: %s\n", path, sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

sqlite3 *cli_open_pair(const char *before, const char *after, int *rc) {
  *rc = PROFDB_EXIT_USAGE;
  /* Both must be databases of this schema version. */
  sqlite3 *check = cli_open_db(before, 1), *db = NULL;
  if (!check) return NULL;
  if (cli_check_schema(check, before))
    *rc = PROFDB_EXIT_DATA;
  else if ((db = cli_open_db(after, 1)) && cli_check_schema(db, after))
    *rc = PROFDB_EXIT_DATA;
  else if (db && cli_attach_base(db, before) == 0)
    *rc = PROFDB_EXIT_OK;
  sqlite3_close(check);
  if (*rc != PROFDB_EXIT_OK && db) {
    sqlite3_close(db);
    db = NULL;
  }
  return db;
}

char *cli_find_queries(const char *given, const char *who) {
  char *looked = NULL, *dir = rp_find_queries(given, &looked);
  if (!dir)
    fprintf(stderr, "profdb: %s: cannot find the query files; looked in:\n%s", who,
            looked ? looked : "");
  free(looked);
  return dir;
}
