/*
** export_summary.h — the job report's part of a dataset: one trace's rows,
** alone, as a compressed database (export_summary.c; read back by
** export_merge.c).
*/
#ifndef PROFDB_EXPORT_SUMMARY_H
#define PROFDB_EXPORT_SUMMARY_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ex_summary_trace {
  int64_t id;         /* trace_id in the exported database */
  int64_t base, last; /* its event ids are (base, last] */
  long long rank;     /* its rank in the dataset */
} ex_summary_trace;

/* The trace's rows of db, alone, published atomically as
** FOLDER/rank=RANK.db.zst (set_run: --run NAME recorded in it, or NULL);
** 0, or -1 with err set and errno the cause (ENOSPC: a full disk). */
int ex_write_summary(sqlite3 *db, const char *folder, const ex_summary_trace *t,
                     const char *set_run, char *err, size_t errsize);

#endif
