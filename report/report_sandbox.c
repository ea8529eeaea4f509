/*
** report_sandbox.c — what the SQL of a query pack may do.
**
** Report and diff SQL (the queries/ folder, or any folder given with
** --queries or PROFDB_QUERIES) only reads the loaded databases and builds
** TEMP tables.  A pack is not trusted further than that: before any of it
** runs, each connection gets SQLite's defensive settings and an authorizer,
** so that a pack cannot write a file (ATTACH, VACUUM INTO), change a
** database, load code (load_extension) or hand SQLite a pointer
** (two-argument fts3_tokenizer), nor run for ever (a runaway WITH
** RECURSIVE): a progress handler ends its statements once the report has
** run PROFDB_QUERY_TIMEOUT seconds (default 3600; 0 for no limit).
** README.md, "Query packs", says the same for users.
*/
#include "report.h"
#include "progress.h"

#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions a pack may not call, whatever the SQLite build enables. */
static const char *const denied_functions[] = {"load_extension", "fts3_tokenizer", "readfile",
                                               "writefile",      "edit",           NULL};

/* PRAGMAs a pack may run with an argument: schema queries and the
** report's own memory settings.  Without an argument a PRAGMA only reads,
** except the ones listed in mutating_pragmas. */
static const char *const pragmas_with_argument[] = {
    "table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list",
    "temp_store", "mmap_size",   "cache_size", "threads",    NULL};
static const char *const mutating_pragmas[] = {
    "wal_checkpoint", "optimize", "incremental_vacuum", "integrity_check", "quick_check", NULL};

static int listed(const char *name, const char *const *list) {
  for (; name && *list; list++)
    if (!sqlite3_stricmp(name, *list)) return 1;
  return 0;
}

static int is_temp(const char *db) {
  return db && !strcmp(db, "temp");
}

/* A read to record (rp_sandbox_watch): the table, once. */
static void record_read(rp_reads *w, const char *table) {
  for (int i = 0; i < w->n; i++)
    if (!strcmp(w->names[i], table)) return;
  char **grown = realloc(w->names, (size_t)(w->n + 1) * sizeof *w->names);
  char *copy = strdup(table);
  if (!grown || !copy) {
    free(copy);
    if (grown) w->names = grown;
    return; /* out of memory: the check sees less, the report still runs */
  }
  w->names = grown;
  w->names[w->n++] = copy;
}

static int authorize(void *watch, int action, const char *a, const char *b, const char *db,
                     const char *trigger) {
  switch (action) {
    case SQLITE_READ:
      /* through a view, the view is what the statement reads */
      if (watch && (trigger || a)) record_read(watch, trigger ? trigger : a);
      return SQLITE_OK;
    case SQLITE_ATTACH:
    case SQLITE_DETACH: return SQLITE_DENY; /* the runner attached what it needs before */
    case SQLITE_UPDATE:
      /* SQLite asks this for sqlite_schema's columns when a statement reads
    ** a table-valued PRAGMA; writing the schema needs writable_schema,
    ** which SQLITE_DBCONFIG_DEFENSIVE forbids. */
      if (a && (!sqlite3_stricmp(a, "sqlite_master") || !sqlite3_stricmp(a, "sqlite_schema")))
        return SQLITE_OK;
      return is_temp(db) ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_INSERT:
    case SQLITE_DELETE:
    case SQLITE_CREATE_TABLE:
    case SQLITE_CREATE_INDEX:
    case SQLITE_CREATE_VIEW:
    case SQLITE_CREATE_TRIGGER:
    case SQLITE_CREATE_VTABLE:
    case SQLITE_DROP_TABLE:
    case SQLITE_DROP_INDEX:
    case SQLITE_DROP_VIEW:
    case SQLITE_DROP_TRIGGER:
    case SQLITE_DROP_VTABLE:
    case SQLITE_ALTER_TABLE:
    case SQLITE_REINDEX:
    case SQLITE_ANALYZE: return is_temp(db) ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_CREATE_TEMP_TABLE:
    case SQLITE_CREATE_TEMP_INDEX:
    case SQLITE_CREATE_TEMP_VIEW:
    case SQLITE_CREATE_TEMP_TRIGGER:
    case SQLITE_DROP_TEMP_TABLE:
    case SQLITE_DROP_TEMP_INDEX:
    case SQLITE_DROP_TEMP_VIEW:
    case SQLITE_DROP_TEMP_TRIGGER: return SQLITE_OK;
    case SQLITE_FUNCTION: return listed(b, denied_functions) ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_PRAGMA:
      if (listed(a, mutating_pragmas)) return SQLITE_DENY;
      return !b || listed(a, pragmas_with_argument) ? SQLITE_OK : SQLITE_DENY;
    default: return SQLITE_OK; /* reads, SELECT, transactions, savepoints */
  }
}

/* The wall-clock limit of a report's SQL: seconds from the first
** rp_sandbox() of the process, or of the call after
** rp_sandbox_reset_deadline() (both connections share it). */
static double deadline = -1;
static int deadline_told;

static int past_deadline(void *unused) {
  (void)unused;
  progress_tick(); /* a long statement: the progress line's seconds, or a log line */
  if (deadline <= 0 || ld_seconds() < deadline) return 0;
  if (!deadline_told) {
    deadline_told = 1;
    fprintf(stderr,
            "profdb: the report's SQL ran past its time limit (PROFDB_QUERY_TIMEOUT=%s s);"
            " stopped\n",
            getenv("PROFDB_QUERY_TIMEOUT") ? getenv("PROFDB_QUERY_TIMEOUT") : "3600");
  }
  return 1; /* SQLITE_INTERRUPT */
}

static void start_deadline(void) {
  if (deadline >= 0) return;
  deadline = ld_query_deadline();
}

void rp_sandbox_reset_deadline(void) {
  deadline = -1;
  deadline_told = 0;
}

int rp_sandbox(sqlite3 *db) {
  start_deadline();
  sqlite3_progress_handler(db, 100000, past_deadline, NULL);
  int on = 0;
  if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) != SQLITE_OK || !on) return -1;
  if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, &on) != SQLITE_OK || on)
    return -1;
  if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &on) != SQLITE_OK || on)
    return -1;
  /* VACUUM INTO attaches its target internally, past the authorizer: no
  ** room for one more database than the runner attached. */
  int attached = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT count(*) FROM pragma_database_list"
                         " WHERE name NOT IN ('main', 'temp')",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_step(st) == SQLITE_ROW) attached = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, attached);
  /* Values bounded (SQLite's default is 1e9 bytes): a database holds names
  ** of at most 32 MiB (the loader's token limit), and nothing the report
  ** builds in SQL comes near 256 MiB. */
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 256 << 20);
  return sqlite3_set_authorizer(db, authorize, NULL) == SQLITE_OK ? 0 : -1;
}

void rp_sandbox_watch(sqlite3 *db, rp_reads *w) {
  sqlite3_set_authorizer(db, authorize, w);
}

void rp_reads_free(rp_reads *w) {
  for (int i = 0; i < w->n; i++) free(w->names[i]);
  free(w->names);
  memset(w, 0, sizeof *w);
}
