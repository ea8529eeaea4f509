/*
** codes.c — the _kind and _alloc_action rows, from the one list of each
** in include/profdb/codes.h (the schema files create the tables empty).
*/
#include "loader.h"

#include "profdb/codes.h"

/* Insert one row of (code, text[, text]) with a prepared statement. */
static int put(sqlite3_stmt *st, int code, const char *a, const char *b) {
  sqlite3_bind_int(st, 1, code);
  sqlite3_bind_text(st, 2, a, -1, SQLITE_STATIC);
  if (b) sqlite3_bind_text(st, 3, b, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

int ld_insert_codes(ld_ctx *ctx) {
  sqlite3_stmt *kind = NULL, *action = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(ctx->db,
                         "INSERT OR IGNORE INTO _kind(kind, name, storage)"
                         " VALUES(?1, ?2, ?3)",
                         -1, &kind, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(ctx->db,
                         "INSERT OR IGNORE INTO _alloc_action(code, name)"
                         " VALUES(?1, ?2)",
                         -1, &action, NULL) != SQLITE_OK)
    goto done;
#define PUT_KIND(id, code, name, storage) \
  if (put(kind, code, name, storage)) goto done;
  PROFDB_EVENT_KINDS(PUT_KIND)
#undef PUT_KIND
#define PUT_ACTION(id, code, name) \
  if (put(action, code, name, NULL)) goto done;
  PROFDB_ALLOC_ACTIONS(PUT_ACTION)
#undef PUT_ACTION
  rc = 0;
done:
  if (rc) fprintf(ctx->msg, "profdb: database error: %s\n", sqlite3_errmsg(ctx->db));
  sqlite3_finalize(kind);
  sqlite3_finalize(action);
  return rc;
}
