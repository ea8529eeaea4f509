/*
** dbswap.h — the atomic update of a database file (dbswap.c; used by
** load.c).
**
** A load writes to a connection dbswap_begin() gives it, never to the
** database itself; dbswap_commit() then changes the original in one step,
** and dbswap_abort() (or a failed commit, a signal, SIGKILL) leaves it
** byte for byte as it was:
**
**   ld_swap s;
**   if (dbswap_begin(&s, path, ctx)) fail;        // ctx->db: where to write
**   rc = load(ctx, dbswap_side(&s));
**   if (rc ok) rc = dbswap_commit(&s, ctx); else dbswap_abort(&s);
**
** Three ways to commit, chosen by begin from what the original holds:
**   - new or empty: the temporary database is renamed over it (or copied
**     into the live file when it is in WAL mode, another user's, or has
**     other hard links);
**   - an older schema: copied into the temporary database first, then as
**     above;
**   - an append (a profdb database of this version): the temporary
**     database is a side database that continues the original's ids; its
**     new rows move into the original in one transaction of the original's
**     own journal or WAL.
*/
#ifndef PROFDB_DBSWAP_H
#define PROFDB_DBSWAP_H

#include "loader.h"
#include "publish.h"

#include <limits.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

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

/* An append's side database: what the merge needs to know. */
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

/* The original database as SQLite sees it, open for the whole update: a
** copy is read through it, and its PRAGMA data_version tells whether
** another program committed to the database meanwhile. */
typedef struct ld_original {
  sqlite3 *db;
  int64_t version; /* data_version after the begin */
} ld_original;

/* One atomic update, from dbswap_begin() to dbswap_commit() or
** dbswap_abort(). */
typedef struct ld_swap {
  char path[PATH_MAX];      /* the database (a symbolic link's target) */
  char temp[PATH_MAX + 32]; /* temporary or side database; "" once gone */
  pub_file file;            /* temp, published by the rename (publish.h) */
  int lock_fd;              /* path, flock()ed for the whole update; -1 */
  int created;              /* path was created (empty) by the begin */
  int in_place;             /* commit copies into the live file */
  sqlite3 *db;              /* the temporary database: the load writes here */
  ld_original orig;         /* path as SQLite sees it, open throughout */
  int appending;            /* the temporary database is a side database */
  ld_side side;             /* then: the merge's state */
  /* The empty path the begin created, registered: a signal removes it
  ** while it is still empty (publish.h). */
  struct pub_reg *placeholder;
} ld_swap;

/* Lock path (created empty if missing; a second loader waits), remove the
** temporary files of killed loads, create the temporary database next to
** path, register both in the signal cleanup (publish.h), and choose how
** the commit will go (see above).  Sets ctx->db to the connection the load writes to (schema not
** yet prepared unless appending).  Returns 0, or -1 with the message
** printed on ctx->msg and everything undone. */
int dbswap_begin(ld_swap *s, const char *path, ld_ctx *ctx);

/* The side database's state when appending, else NULL. */
ld_side *dbswap_side(ld_swap *s);

/* Put the load's result in place: rename, copy-in or merge (see above),
** unless another program changed the database since the begin.  Closes
** ctx->db (sets it to NULL) and releases everything.  Returns 0, or -1
** with the message printed and the original left as it was. */
int dbswap_commit(ld_swap *s, ld_ctx *ctx);

/* Leave the original as it was: close ctx->db, remove the temporary
** database (and path, when the begin created it and it is still empty),
** take them out of the signal cleanup, unlock. */
void dbswap_abort(ld_swap *s, ld_ctx *ctx);

/* ---- the side database (used by load.c while it loads) ---------------- */

/* Record each side table's rowid mark, once the seeding is done and before
** the first row is parsed.  Returns 0, or -1 (message on out). */
int side_mark(ld_side *s, sqlite3 *side, FILE *out);

/* Queue the removal of the original's artifact id (--replace). */
void side_replace(ld_side *s, ld_kind kind, int64_t id);

/* 1 when id of kind is queued for removal. */
int side_replacing(const ld_side *s, ld_kind kind, int64_t id);

#endif
