/*
** merge.h — appending through a side database (merge.c; used by load.c).
**
** A load into a database that already holds artifacts does not copy it:
** the inputs are parsed and post-passed into an empty side database that
** continues the original's ids (and holds a copy of its _string table),
** and the side's new rows are then moved into the original in one
** transaction of the original's own journal or WAL.
*/
#ifndef PROFDB_MERGE_H
#define PROFDB_MERGE_H

#include "loader.h"

#include <sqlite3.h>
#include <stdint.h>

/* Rows a side table held before the parse (copies of the original's, or
** written by the schema): only rowids above the mark are new. */
typedef struct ld_side_mark {
  char *table;
  int64_t mark;  /* max(rowid) then; 0 when the table was empty */
  int64_t moved; /* rows moved into the original */
} ld_side_mark;

/* An artifact of the original that --replace removes in the merge. */
typedef struct ld_side_replaced {
  ld_kind kind;
  int64_t id;
} ld_side_replaced;

typedef struct ld_side {
  sqlite3 *original;   /* the database appended to (main) */
  int64_t version;     /* its data_version when its ids and strings were read */
  int64_t first_trace; /* this load's first trace and snapshot ids */
  int64_t first_snapshot;
  ld_side_mark *marks; /* one per table of the side database */
  int nmarks;
  ld_side_replaced *replaced; /* artifacts of the original to delete */
  int nreplaced;
  char why[640]; /* why moving rows failed, when SQLite's own message would
                 ** be gone (a user's trigger on the table, named) */
} ld_side;

/* 1 when every table of the side database (schema just created) exists in
** the original with the same columns, so rows can move as they are. */
int side_tables_match(sqlite3 *side, sqlite3 *original);

/* Record each side table's rowid mark, once the seeding is done and before
** the first row is parsed.  Returns 0, or -1 (message on out). */
int side_mark(ld_side *s, sqlite3 *side, FILE *out);

/* Queue the removal of the original's artifact id (--replace). */
void side_replace(ld_side *s, ld_kind kind, int64_t id);

/* 1 when id of kind is queued for removal. */
int side_replacing(const ld_side *s, ld_kind kind, int64_t id);

/* On the original, inside the merge transaction, with the side database
** attached as "side": create the tables and indexes the side has and the
** original lacks, then insert every new side row.  Returns 0, or -1
** (sqlite3_errmsg(original) says why). */
int side_move_rows(ld_side *s);

/* Refresh the original's statistics after the move: ANALYZE each table
** that grew by more than a tenth (all tables when all_tables); in the
** others' statistics, count the rows added.  Returns 0 or -1. */
int side_analyze(ld_side *s, int all_tables);

void side_free(ld_side *s);

#endif
