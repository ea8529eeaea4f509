/*
** merge.c — moving a side database's rows into the original (merge.h).
**
** HOW IT WORKS
**   Before the parse, side_mark() notes each side table's max(rowid): the
**   rows up to there are copies of the original's (_string) or written by
**   the schema (_kind, _copy_kind, ...); every row the load writes has a
**   higher rowid, since ids continue the original's counters and SQLite
**   gives other rows max(rowid) + 1.  A WITHOUT ROWID table must be empty
**   then.  The merge, on the original with the side attached, inserts for
**   every side table (taken from the schema: loader/sql/merge_tables.sql)
**   the rows above its mark, column by column: the cost is the rows
**   added, plus B-tree seeks into the original's tables and indexes.
**   Tables and indexes the original lacks are created from the side's
**   definitions first (merge_missing.sql); statistics are refreshed only
**   where the append made them stale (side_analyze).
*/
#include "merge.h"
#include "oom.h"
#include "sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int side_tables_match(sqlite3 *side, sqlite3 *original) {
  static const char columns[] =
      "SELECT group_concat(name || ' ' || type || ' ' || pk, ', ')"
      " FROM pragma_table_info(?1, 'main')";
  sqlite3_stmt *tables = NULL, *a = NULL, *b = NULL;
  int match =
      sqlite3_prepare_v2(side, profdb_sql_merge_tables, -1, &tables, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(side, columns, -1, &a, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(original, columns, -1, &b, NULL) == SQLITE_OK;
  if (match) sqlite3_bind_text(tables, 1, "main", -1, SQLITE_STATIC);
  while (match && sqlite3_step(tables) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(tables, 0);
    sqlite3_bind_text(a, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(b, 1, name, -1, SQLITE_TRANSIENT);
    match = sqlite3_step(a) == SQLITE_ROW && sqlite3_step(b) == SQLITE_ROW &&
            sqlite3_column_type(b, 0) != SQLITE_NULL &&
            !strcmp((const char *)sqlite3_column_text(a, 0),
                    (const char *)sqlite3_column_text(b, 0));
    sqlite3_reset(a);
    sqlite3_reset(b);
  }
  sqlite3_finalize(tables);
  sqlite3_finalize(a);
  sqlite3_finalize(b);
  return match;
}

int side_mark(ld_side *s, sqlite3 *side, FILE *out) {
  sqlite3_stmt *tables;
  if (sqlite3_prepare_v2(side, profdb_sql_merge_tables, -1, &tables, NULL) != SQLITE_OK) {
    fprintf(out, "profdb: database error: %s\n", sqlite3_errmsg(side));
    return -1;
  }
  sqlite3_bind_text(tables, 1, "main", -1, SQLITE_STATIC);
  int rc = 0;
  while (rc == 0 && sqlite3_step(tables) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(tables, 0);
    int without_rowid = sqlite3_column_int(tables, 2);
    char *sql = sqlite3_mprintf(
        without_rowid ? "SELECT count(*) FROM \"%w\"" : "SELECT max(rowid) FROM \"%w\"", name);
    sqlite3_stmt *st;
    int64_t mark = -1;
    if (sql && sqlite3_prepare_v2(side, sql, -1, &st, NULL) == SQLITE_OK) {
      if (sqlite3_step(st) == SQLITE_ROW) mark = sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
    sqlite3_free(sql);
    if (mark < 0 || (without_rowid && mark > 0)) {
      /* A WITHOUT ROWID table has no mark: its rows must all be new. */
      fprintf(out, "profdb: internal error: cannot mark table %s of the side database\n", name);
      rc = -1;
      break;
    }
    s->marks = realloc(s->marks, (size_t)(s->nmarks + 1) * sizeof *s->marks);
    if (!s->marks) ld_oom();
    s->marks[s->nmarks++] = (ld_side_mark){strdup(name), mark, 0};
  }
  sqlite3_finalize(tables);
  return rc;
}

void side_replace(ld_side *s, ld_kind kind, int64_t id) {
  s->replaced = realloc(s->replaced, (size_t)(s->nreplaced + 1) * sizeof *s->replaced);
  if (!s->replaced) ld_oom();
  s->replaced[s->nreplaced++] = (ld_side_replaced){kind, id};
}

int side_replacing(const ld_side *s, ld_kind kind, int64_t id) {
  for (int i = 0; i < s->nreplaced; i++)
    if (s->replaced[i].kind == kind && s->replaced[i].id == id) return 1;
  return 0;
}

static ld_side_mark *mark_of(ld_side *s, const char *table) {
  for (int i = 0; i < s->nmarks; i++)
    if (!strcmp(s->marks[i].table, table)) return &s->marks[i];
  return NULL;
}

/* Run every row of a one-column query as a statement. */
static int run_each(sqlite3 *db, const char *query) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK) return -1;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    char *sql = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
    int ok = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_free(sql);
    if (!ok) break;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* The error of moving the rows of table, kept before the next statement
** clears it; a database may hold the user's own triggers on profdb's
** tables, which fire on the move: a failing one is named. */
static void say_why_moving_failed(ld_side *s, const char *table) {
  sqlite3 *db = s->original;
  snprintf(s->why, sizeof s->why, "moving rows into table %s: %s", table, sqlite3_errmsg(db));
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT group_concat(name, ', ') FROM main.sqlite_schema"
                         " WHERE type = 'trigger' AND tbl_name = ?1",
                         -1, &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  const char *names =
      sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  if (names) {
    size_t n = strlen(s->why);
    snprintf(s->why + n, sizeof s->why - n,
             " (in a trigger of this database's own on %s: %s; fix it, or drop it with"
             " DROP TRIGGER, and load again)",
             table, names);
  }
  sqlite3_finalize(st);
}

int side_move_rows(ld_side *s) {
  sqlite3 *db = s->original;
  if (run_each(db, profdb_sql_merge_missing)) return -1;
  sqlite3_stmt *tables;
  if (sqlite3_prepare_v2(db, profdb_sql_merge_tables, -1, &tables, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(tables, 1, "side", -1, SQLITE_STATIC);
  int rc = 0;
  while (rc == 0 && sqlite3_step(tables) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(tables, 0);
    const char *columns = (const char *)sqlite3_column_text(tables, 1);
    ld_side_mark *m = mark_of(s, name);
    if (!m) { /* created after the mark (by the post-pass): all its rows are new */
      s->marks = realloc(s->marks, (size_t)(s->nmarks + 1) * sizeof *s->marks);
      if (!s->marks) ld_oom();
      s->marks[s->nmarks] = (ld_side_mark){strdup(name), 0, 0};
      m = &s->marks[s->nmarks++];
    }
    char *sql = sqlite3_column_int(tables, 2)
                    ? sqlite3_mprintf("INSERT INTO main.\"%w\"(%s) SELECT %s FROM side.\"%w\"",
                                      name, columns, columns, name)
                    : sqlite3_mprintf(
                          "INSERT INTO main.\"%w\"(%s) SELECT %s FROM side.\"%w\""
                          " WHERE rowid > %lld ORDER BY rowid",
                          name, columns, columns, name, (long long)m->mark);
    rc = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    if (rc == 0) m->moved = sqlite3_changes64(db);
    if (rc) say_why_moving_failed(s, name);
    sqlite3_free(sql);
  }
  sqlite3_finalize(tables);
  return rc;
}

int side_analyze(ld_side *s, int all_tables) {
  sqlite3 *db = s->original;
  if (sqlite3_exec(db, "PRAGMA analysis_limit=400", NULL, NULL, NULL) != SQLITE_OK) return -1;
  sqlite3_stmt *stale = NULL, *add = NULL;
  if (all_tables ||
      sqlite3_prepare_v2(db, profdb_sql_merge_stale_stats, -1, &stale, NULL) != SQLITE_OK)
    /* Never analyzed (no sqlite_stat1), or rows removed by --replace. */
    return sqlite3_exec(db, "ANALYZE main", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
  /* Without statistics in the side (no ANALYZE there) nothing is added. */
  if (sqlite3_prepare_v2(db, profdb_sql_merge_stats_add, -1, &add, NULL) != SQLITE_OK)
    add = NULL;
  int rc = 0;
  for (int i = 0; i < s->nmarks && rc == 0; i++) {
    if (!s->marks[i].moved) continue;
    sqlite3_bind_text(stale, 1, s->marks[i].table, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stale, 2, s->marks[i].moved);
    int is_stale = sqlite3_step(stale) == SQLITE_ROW && sqlite3_column_int(stale, 0);
    sqlite3_reset(stale);
    if (!is_stale) {
      if (!add) continue;
      sqlite3_bind_text(add, 1, s->marks[i].table, -1, SQLITE_STATIC);
      rc = sqlite3_step(add) == SQLITE_DONE ? 0 : -1;
      sqlite3_reset(add);
      continue;
    }
    char *sql = sqlite3_mprintf("ANALYZE main.\"%w\"", s->marks[i].table);
    rc = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    sqlite3_free(sql);
  }
  sqlite3_finalize(stale);
  sqlite3_finalize(add);
  return rc;
}

void side_free(ld_side *s) {
  for (int i = 0; i < s->nmarks; i++) free(s->marks[i].table);
  free(s->marks);
  free(s->replaced);
  s->marks = NULL;
  s->replaced = NULL;
  s->nmarks = s->nreplaced = 0;
}
