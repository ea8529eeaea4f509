/*
** export_replay.h — the critical path's replays of each trace, computed
** when a dataset's summaries are written, for its findings (export_replay.c;
** queries/lib/63_critical_path_replay.sql reads them back in
** profdb report DIR).
*/
#ifndef PROFDB_EXPORT_REPLAY_H
#define PROFDB_EXPORT_REPLAY_H

#include <sqlite3.h>
#include <stdint.h>

/* Builds temp.report_cp_replay on db: the report's critical-path prelude
** (queries/lib/10, 11, 60, 61, 63) with every step analysed and the
** default scope.  Needs lib/05's tables (ex_export runs it).  0 or -1
** (sqlite3_errmsg). */
int ex_replay_build(sqlite3 *db);

/* The trace's spans and rows as the JSON object a summary keeps
** ({"spans": [[step, open_ops, threads], ...], "rows": [[step, kind, keep,
** sooner_ns], ...]}), sqlite3_malloc'd; NULL: out of memory or an error. */
char *ex_replay_json(sqlite3 *db, int64_t trace_id);

/* Drops the report's temp tables and views (report_*): what lib/05 and
** ex_replay_build made. */
void ex_replay_drop(sqlite3 *db);

#endif
