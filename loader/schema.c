/*
** schema.c — the profdb schema inside a database, and the rows of one
** artifact (loader.h).
**
** Used by the load (load.c) on the database it writes, and by the atomic
** update (dbswap.c) on the original inside an append's merge transaction:
**   - ld_schema_version(), ld_prepare_schema(): is this a profdb database
**     of this version; create the tables, views and code rows
**     (ld_create_schema, also for the databases export writes and reads);
**   - ld_check_attached_schema(): does an input profdb did not write (a
**     dataset's summary, a database to export) hold profdb's own schema;
**   - ld_delete_artifact(): every row of one trace or snapshot (--replace);
**   - ld_record_runs(): --run NAME, and the warnings of loader/run_check.sql.
*/
#include "loader.h"
#include "progress.h"
#include "sql.h"

#include <stdio.h>
#include <string.h>

int64_t ld_query_int(sqlite3 *db, const char *sql, int64_t dflt) {
  sqlite3_stmt *st;
  int64_t v = dflt;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return dflt;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

int64_t ld_schema_version(sqlite3 *db) {
  return ld_query_int(db,
                      "SELECT value FROM sqlite_schema s, _profdb p WHERE s.name = '_profdb'"
                      " AND p.key = 'schema_version'",
                      -1);
}

int ld_prepare_schema(ld_ctx *ctx, const char *db_path) {
  FILE *out = ctx->msg;
  int64_t version = ld_schema_version(ctx->db);
  int64_t tables = ld_query_int(ctx->db, "SELECT count(*) FROM sqlite_schema", 0);
  if (tables > 0 && version < 0) {
    ld_say(out, "%s: not a profdb database (no _profdb table); refusing to modify it", db_path);
    return -1;
  }
  if (version >= 0 && version != PROFDB_SCHEMA_VERSION) {
    ld_say(out,
           "%s: database schema version %lld, this profdb writes version %d;"
           " load into a new database",
           db_path, (long long)version, PROFDB_SCHEMA_VERSION);
    return -1;
  }
  return ld_create_schema(ctx->db, out);
}

int ld_create_schema(sqlite3 *db, FILE *msg) {
  ld_ctx ctx = {.db = db, .msg = msg};
  if (ld_exec(&ctx, profdb_schema_sql) || ld_insert_codes(&ctx)) return -1;
  char sql[256];
  snprintf(sql, sizeof sql,
           "INSERT OR IGNORE INTO _profdb(key, value) VALUES"
           " ('schema_version', %d), ('created_by', 'profdb %s')",
           PROFDB_SCHEMA_VERSION, PROFDB_VERSION);
  return ld_exec(&ctx, sql);
}

int ld_check_attached_schema(sqlite3 *db, char *err, size_t errsize) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, profdb_sql_schema_check, -1, &st, NULL) != SQLITE_OK) {
    snprintf(err, errsize, "cannot read its schema: %s", sqlite3_errmsg(db));
    return -1;
  }
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW)
    snprintf(err, errsize, "not profdb's schema (%s: %s)", sqlite3_column_text(st, 0),
             sqlite3_column_text(st, 1));
  else if (rc != SQLITE_DONE)
    snprintf(err, errsize, "cannot read its schema: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* Run "DELETE FROM <what>" with ?1 bound to id. */
static int delete_where(ld_ctx *ctx, const char *what, int64_t id) {
  char sql[512];
  snprintf(sql, sizeof sql, "DELETE FROM %s", what);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* The tables are taken from the schema itself: every table with a trace_id
** (snapshot_id) column, so a table added to the DDL is covered without a
** list to keep.  Only the rows keyed by another table's rows are named
** here, and go first; the trace (snapshot) row goes last. */
int ld_delete_artifact(ld_ctx *ctx, ld_kind kind, int64_t id) {
  static const char *const trace_dependents[] = {
      "_slice_tree WHERE id IN (SELECT id FROM _slice WHERE trace_id = ?1)",
      "_gpu_link WHERE id IN (SELECT id FROM _gpu WHERE trace_id = ?1)",
      "_attr_ctx_op WHERE ctx_id IN (SELECT id FROM _slice WHERE trace_id = ?1)",
      "_attr_ctx_shape WHERE ctx_id IN (SELECT id FROM _slice WHERE trace_id = ?1)",
      "_attr_ctx WHERE id IN (SELECT id FROM _slice WHERE trace_id = ?1)",
      "_attr_path WHERE id IN (SELECT id FROM _slice WHERE trace_id = ?1)",
      "_attr_flop WHERE id IN (SELECT id FROM _slice WHERE trace_id = ?1)",
      "_attr_marker WHERE id IN (SELECT id FROM _slice WHERE trace_id = ?1)",
      "import_log WHERE artifact_id = ?1 AND artifact_id IN"
      " (SELECT trace_id FROM trace WHERE trace_id = ?1)",
      "import_stats WHERE artifact_id = ?1 AND artifact = 'trace'",
      NULL};
  static const char *const snapshot_dependents[] = {
      "_block_history WHERE block_id IN (SELECT id FROM _block WHERE snapshot_id = ?1)",
      "import_stats WHERE artifact_id = ?1 AND artifact = 'snapshot'", NULL};
  int trace = kind == LD_KIND_TRACE;
  const char *key = trace ? "trace_id" : "snapshot_id";
  const char *artifact = trace ? "trace" : "snapshot";
  for (const char *const *t = trace ? trace_dependents : snapshot_dependents; *t; t++)
    if (delete_where(ctx, *t, id)) return -1;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ctx->db,
                         "SELECT m.name FROM sqlite_schema m, pragma_table_info(m.name) c"
                         " WHERE m.type = 'table' AND c.name = ?1 AND m.name <> ?2"
                         " ORDER BY m.name",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, artifact, -1, SQLITE_STATIC);
  int rc = 0;
  while (!rc && sqlite3_step(st) == SQLITE_ROW) {
    char what[256];
    snprintf(what, sizeof what, "\"%s\" WHERE %s = ?1",
             (const char *)sqlite3_column_text(st, 0), key);
    rc = delete_where(ctx, what, id);
  }
  sqlite3_finalize(st);
  char last[64];
  snprintf(last, sizeof last, "%s WHERE %s = ?1", artifact, key);
  return rc ? rc : delete_where(ctx, last, id);
}

int ld_record_runs(ld_ctx *ctx, int64_t first_trace, int64_t first_snapshot) {
  sqlite3_stmt *st;
  if (ctx->opt->run) {
    static const char *const sql[] = {
        "INSERT INTO trace_metadata(trace_id, position, key, value)"
        " SELECT trace_id, -1, 'profdb.run', json_quote(?2) FROM trace WHERE trace_id >= ?1",
        "INSERT INTO snapshot_metadata(snapshot_id, position, key, value)"
        " SELECT snapshot_id, -1, 'profdb.run', json_quote(?2) FROM snapshot"
        " WHERE snapshot_id >= ?1"};
    for (int i = 0; i < 2; i++) {
      if (sqlite3_prepare_v2(ctx->db, sql[i], -1, &st, NULL) != SQLITE_OK) return -1;
      sqlite3_bind_int64(st, 1, i == 0 ? first_trace : first_snapshot);
      sqlite3_bind_text(st, 2, ctx->opt->run, -1, SQLITE_STATIC);
      int rc = sqlite3_step(st);
      sqlite3_finalize(st);
      if (rc != SQLITE_DONE) return -1;
    }
  }
  if (sqlite3_prepare_v2(ctx->db, profdb_run_check_sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, first_trace);
  while (sqlite3_step(st) == SQLITE_ROW)
    fprintf(ctx->msg, "profdb: %s: warning: %s\n", (const char *)sqlite3_column_text(st, 0),
            (const char *)sqlite3_column_text(st, 1));
  return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

int ld_attach(sqlite3 *db, const char *file, const char *as) {
  char sql[64];
  snprintf(sql, sizeof sql, "ATTACH ?1 AS %s", as);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  return rc;
}

int ld_check_schema_file(const char *path, char *err, size_t errsize) {
  sqlite3 *ref = NULL;
  int on = 0;
  /* profdb's schema in memory as main, the file beside it as "r"; the
  ** connection runs no trigger, no extension, no function with side
  ** effects from a schema */
  int rc =
      sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
              sqlite3_db_config(ref, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) == SQLITE_OK &&
              sqlite3_db_config(ref, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &on) == SQLITE_OK &&
              sqlite3_db_config(ref, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &on) == SQLITE_OK &&
              ld_create_schema(ref, stderr) == 0 && ld_attach(ref, path, "r") == 0
          ? 0
          : -1;
  if (rc) snprintf(err, errsize, "cannot read its schema: %s", sqlite3_errmsg(ref));
  if (rc == 0) rc = ld_check_attached_schema(ref, err, errsize);
  sqlite3_close(ref);
  return rc;
}
