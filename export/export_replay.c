/*
** export_replay.c — the critical path's replays of each trace, for a
** dataset's findings (see export_replay.h).
**
** A dataset's summaries keep only the CPU operators the other sections
** read, and the critical path's graph needs every one; so the export
** replays each span on the full database (the same SQL as the report:
** queries/lib/10_trace_scope.sql, 11_hta, 13_cold_launch and 60 through
** 63_critical_path_replay.sql, embedded as profdb_report_replay_sql) and each summary carries its
** trace's rows in trace_metadata (position -2, 'profdb.cp_replay';
** export_summary.c).  Every step is analysed (:include_warmup 1), so a
** report DIR finds the spans it analyses whatever its --include-warmup;
** the default scope, which alone bounds a finding by a replay.
*/
#include "export_replay.h"

#include "profdb_sql.h"
#include "script.h"

#include <string.h>

static int bind_all_steps(sqlite3_stmt *st, const void *arg) {
  (void)arg;
  int k = sqlite3_bind_parameter_index(st, ":include_warmup");
  if (k) sqlite3_bind_int(st, k, 1);
  return 0; /* :trace_id, :scope_trace, :scope_hta: NULL (every trace, the default scope) */
}

int ex_replay_build(sqlite3 *db) {
  return ld_run_script(db, profdb_report_replay_sql, bind_all_steps, NULL);
}

char *ex_replay_json(sqlite3 *db, int64_t trace_id) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          db,
          "SELECT json_object("
          " 'spans', (SELECT json_group_array(json_array(step, open_ops, threads)) FROM"
          "  (SELECT * FROM temp.report_cp_replay_span WHERE trace_id = ?1"
          "   ORDER BY step)),"
          " 'rows', (SELECT json_group_array(json_array(step, kind, keep, sooner_ns))"
          "  FROM (SELECT * FROM temp.report_cp_replay WHERE trace_id = ?1"
          "   ORDER BY step, kind, keep)))",
          -1, &st, NULL) != SQLITE_OK)
    return NULL;
  sqlite3_bind_int64(st, 1, trace_id);
  char *json = NULL;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *text = (const char *)sqlite3_column_text(st, 0);
    json = sqlite3_mprintf("%s", text ? text : "{}");
  }
  sqlite3_finalize(st);
  return json;
}

void ex_replay_drop(sqlite3 *db) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT type, name FROM temp.sqlite_schema"
                         " WHERE type IN ('table', 'view') AND name GLOB 'report_*'",
                         -1, &st, NULL) != SQLITE_OK)
    return;
  /* collected first: dropping while the schema is read is not allowed */
  char *drops = sqlite3_mprintf("");
  while (drops && sqlite3_step(st) == SQLITE_ROW) {
    char *more = sqlite3_mprintf(
        "%sDROP %s IF EXISTS temp.\"%w\";", drops,
        strcmp((const char *)sqlite3_column_text(st, 0), "view") ? "TABLE" : "VIEW",
        (const char *)sqlite3_column_text(st, 1));
    sqlite3_free(drops);
    drops = more;
  }
  sqlite3_finalize(st);
  if (drops) sqlite3_exec(db, drops, NULL, NULL, NULL);
  sqlite3_free(drops);
}
