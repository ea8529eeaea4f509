/*
** load_summary.h — what a database holds, in words, for profdb load's
** closing line (loader/sql/load_summary.sql).
*/
#ifndef PROFDB_LOAD_SUMMARY_H
#define PROFDB_LOAD_SUMMARY_H

#include <sqlite3.h>

/* "8 traces: ranks 0-7 of 8, 8x Tesla V100-SXM2-32GB, step 10, 1 snapshot"
** ("nothing loaded" for an empty database).  Returns text to release with
** sqlite3_free(), or NULL when db cannot answer (not a profdb database,
** out of memory). */
char *ld_load_summary(sqlite3 *db);

#endif
