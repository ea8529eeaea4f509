/*
** export_summary.c — a rank's summary in a dataset, for the job report
** (see export.h; export_merge.c reads them).
**
** HOW IT WORKS
**   ex_write_summary, once per exported trace: the trace's rows of the
**   profdb database, alone, as DIR/_summary/run=R/rank=N.db.zst: a new
**   database in a hidden temporary of that folder (publish.h) gets
**   profdb's own schema (ld_create_schema; the exported database was
**   checked to hold the same by ex_export, and no SQL text of it runs) and
**   the trace's rows of each table (export/dataset/_summary_copy.sql: by
**   trace_id, or by the trace's event id range; less the Python frames,
**   operators, runtime calls, flows and metadata events no report query
**   reads: export/dataset/_summary_drop.sql, _summary_nest.sql; then the
**   runtime calls' busy time under GPU work and the columns no query
**   reads: _summary_busy.sql, _summary_columns.sql), then is compressed
**   with zstd into a second hidden temporary, flushed to disk and renamed
**   into place.  It holds no index: the merge builds profdb's own once.
**   The cost is the trace's rows, not the database's: export DB of many
**   ranks copies each rank once.
**
** Requirements
**   1. The job database gives the same report as the database of all ranks
**      loaded together (tested by export.report_dir).
**   2. A reader never sees half a summary (temporary file, fsync, rename).
*/
#include "export_summary.h"

#include "export_replay.h"
#include "loader.h"
#include "oom.h"
#include "profdb/profdb.h"
#include "profdb_sql.h"
#include "publish.h"
#include "script.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* ---- zstd, streamed (a summary of a large rank need not fit in memory) -- */

/* Read up to n bytes (fewer only at the end of the file).  -1: errno. */
static ssize_t read_full(int fd, char *b, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, b + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

/* Compress the file open at fd, from its start, into out (a publish's
** stream: publish.h).  0, or -1 (errno). */
static int zstd_file(int fd, FILE *out) {
  size_t isz = ZSTD_CStreamInSize(), osz = ZSTD_CStreamOutSize();
  char *ib = malloc(isz), *ob = malloc(osz);
  ZSTD_CCtx *c = ZSTD_createCCtx();
  int rc = ib && ob && c ? 0 : -1;
  if (rc) errno = ENOMEM;
  if (rc == 0 && lseek(fd, 0, SEEK_SET)) rc = -1;
  /* Level 9: 7-9% smaller summaries than zstd's default 3 for about twice
  ** its time (0.3 s on a 13 MB summary, 3% of that task); level 19 is
  ** 20% smaller but 30 times slower. */
  if (c) ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 9);
  for (int end = 0; rc == 0 && !end;) {
    ssize_t n = read_full(fd, ib, isz);
    if (n < 0) {
      rc = -1;
      break;
    }
    end = (size_t)n < isz; /* the end of the file */
    ZSTD_inBuffer ibuf = {ib, (size_t)n, 0};
    for (int done = 0; rc == 0 && !done;) {
      ZSTD_outBuffer obuf = {ob, osz, 0};
      size_t left = ZSTD_compressStream2(c, &obuf, &ibuf, end ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(left)) {
        errno = EINVAL;
        rc = -1;
      } else if (fwrite(ob, 1, obuf.pos, out) != obuf.pos)
        rc = -1;
      done = end ? left == 0 : ibuf.pos == ibuf.size && obuf.pos < obuf.size;
    }
  }
  int e = errno;
  ZSTD_freeCCtx(c);
  free(ib);
  free(ob);
  errno = e;
  return rc;
}

/* The errno a failure of db's last call stands for (ENOSPC for a full
** disk), 0 for none; read before a later call resets it. */
static int db_errno(sqlite3 *db) {
  int code = sqlite3_errcode(db) & 0xff, sys = sqlite3_system_errno(db);
  if (code == SQLITE_FULL) return ENOSPC;
  if (code == SQLITE_NOMEM) return ENOMEM;
  if (code == SQLITE_IOERR || code == SQLITE_CANTOPEN) return sys ? sys : EIO;
  return 0;
}

/* ---- writing --------------------------------------------------------------- */

/* Bind the trace's :trace_id, :base and :last where st names them. */
static void bind_trace(sqlite3_stmt *st, const ex_summary_trace *t) {
  int k;
  if ((k = sqlite3_bind_parameter_index(st, ":trace_id"))) sqlite3_bind_int64(st, k, t->id);
  if ((k = sqlite3_bind_parameter_index(st, ":base"))) sqlite3_bind_int64(st, k, t->base);
  if ((k = sqlite3_bind_parameter_index(st, ":last"))) sqlite3_bind_int64(st, k, t->last);
}

/* The summary's schema: profdb's own (ld_create_schema), never the SQL
** text stored in the exported database (ex_export checked that its tables
** and views are profdb's before reading any). */
static int create_schema(sqlite3 *out, char *err, size_t errsize) {
  if (ld_create_schema(out, stderr) == 0) return 0;
  snprintf(err, errsize, "cannot create the summary: %s", sqlite3_errmsg(out));
  return -2;
}

/* The trace's rowid range in table, from db's temp.summary_rowids
** (export/dataset/_summary_rowids.sql): the whole table where db has none
** (a slower read, never a shorter one), an empty range where the table has
** no row of the trace. */
static void rowid_range(sqlite3 *db, const char *table, int64_t trace_id, sqlite3_int64 *from,
                        sqlite3_int64 *to) {
  *from = INT64_MIN;
  *to = INT64_MAX;
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(
          db, "SELECT lo, hi FROM temp.summary_rowids WHERE tbl = ?1 AND trace_id = ?2", -1, &q,
          NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, trace_id);
    int found = sqlite3_step(q);
    if (found == SQLITE_ROW) {
      *from = sqlite3_column_int64(q, 0);
      *to = sqlite3_column_int64(q, 1);
    } else if (found == SQLITE_DONE) {
      *from = 1;
      *to = 0;
    }
  }
  sqlite3_finalize(q);
}

/* Bind the trace's rowid range in table to :lo and :hi (_summary_copy.sql). */
static void bind_rowids(sqlite3_stmt *st, sqlite3 *db, const char *table, int64_t trace_id) {
  int lo = sqlite3_bind_parameter_index(st, ":lo"),
      hi = sqlite3_bind_parameter_index(st, ":hi");
  if (!lo && !hi) return;
  sqlite3_int64 from, to;
  rowid_range(db, table, trace_id, &from, &to);
  if (lo) sqlite3_bind_int64(st, lo, from);
  if (hi) sqlite3_bind_int64(st, hi, to);
}

/* Bind the trace's rowid range in table T to :lo_T and :hi_T, for every T
** that st names so (_summary_drop.sql). */
static void bind_named_rowids(sqlite3_stmt *st, sqlite3 *db, int64_t trace_id) {
  for (int k = 1; k <= sqlite3_bind_parameter_count(st); k++) {
    const char *name = sqlite3_bind_parameter_name(st, k);
    if (!name || (strncmp(name, ":lo_", 4) && strncmp(name, ":hi_", 4))) continue;
    sqlite3_int64 from, to;
    rowid_range(db, name + 4, trace_id, &from, &to);
    sqlite3_bind_int64(st, k, name[1] == 'l' ? from : to);
  }
}

/* What exec_bound() binds: the trace, and db for its rowid ranges. */
typedef struct bound_trace {
  sqlite3 *db;
  const ex_summary_trace *t;
} bound_trace;

static int bind_bound(sqlite3_stmt *st, const void *arg) {
  const bound_trace *b = arg;
  bind_trace(st, b->t);
  bind_named_rowids(st, b->db, b->t->id);
  return 0;
}

/* Run every statement of sql on out, with the trace's parameters and its
** rowid ranges in db (:lo_T, :hi_T) bound.  0 or -1. */
static int exec_bound(sqlite3 *out, sqlite3 *db, const char *sql, const ex_summary_trace *t) {
  return ld_run_script(out, sql, bind_bound, &(bound_trace){db, t});
}

/* The trace's rows of every table (export/dataset/_summary_copy.sql); db:
** the exported database's own connection (its rowid ranges). */
static int copy_rows(sqlite3 *out, sqlite3 *db, const ex_summary_trace *t, char *err,
                     size_t errsize) {
  sqlite3_stmt *tables;
  if (sqlite3_prepare_v2(out, profdb_export__summary_copy, -1, &tables, NULL) != SQLITE_OK)
    return -1;
  int rc = 0;
  while (rc == 0 && sqlite3_step(tables) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(tables, 0);
    const char *filter = (const char *)sqlite3_column_text(tables, 1);
    if (!filter) {
      snprintf(err, errsize, "internal error: no rule copies table %s into a summary", name);
      rc = -2;
      break;
    }
    if (!strcmp(filter, "0")) continue;
    char *sql = sqlite3_mprintf("INSERT INTO main.\"%w\" SELECT * FROM src.\"%w\" WHERE %s",
                                name, name, filter);
    sqlite3_stmt *ins;
    rc = sql && sqlite3_prepare_v2(out, sql, -1, &ins, NULL) == SQLITE_OK ? 0 : -1;
    sqlite3_free(sql);
    if (rc) break;
    bind_trace(ins, t);
    bind_rowids(ins, db, name, t->id);
    rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(ins);
  }
  int e = 0;
  if (rc == -1) { /* read now: finalizing the list resets the connection's error */
    snprintf(err, errsize, "%s", sqlite3_errmsg(out));
    e = db_errno(out);
    rc = -2;
  }
  sqlite3_finalize(tables);
  errno = e;
  return rc;
}

/* --run NAME of the export, recorded as profdb load --run does: the job's
** report names the run as the dataset's folders do. */
static int record_run(sqlite3 *out, int64_t trace_id, const char *run) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(out,
                         "INSERT OR REPLACE INTO trace_metadata(trace_id, position, key, value)"
                         " VALUES (?1, -1, 'profdb.run', json_quote(?2))",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, trace_id);
  sqlite3_bind_text(st, 2, run, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  return rc;
}

/* The trace's critical-path replays (export_replay.c), which the report of
** a dataset cannot compute from the summary's rows: profdb's own key at
** position -2, as 'profdb.run' is at -1. */
static int record_replay(sqlite3 *out, sqlite3 *db, int64_t trace_id, char *err,
                         size_t errsize) {
  char *json = ex_replay_json(db, trace_id);
  if (!json) {
    snprintf(err, errsize, "the critical path's replays: %s", sqlite3_errmsg(db));
    return -2;
  }
  sqlite3_stmt *st;
  int rc =
      sqlite3_prepare_v2(out,
                         "INSERT OR REPLACE INTO trace_metadata(trace_id, position, key, value)"
                         " VALUES (?1, -2, 'profdb.cp_replay', ?2)",
                         -1, &st, NULL) == SQLITE_OK
          ? 0
          : -1;
  if (rc == 0) {
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_text(st, 2, json, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
  }
  sqlite3_free(json);
  return rc;
}

/* The summary database at path: the trace's rows of db. */
static int write_db(sqlite3 *db, const char *path, const ex_summary_trace *t,
                    const char *set_run, char *err, size_t errsize) {
  const char *src = sqlite3_db_filename(db, "main");
  if (!src || !*src) {
    snprintf(err, errsize, "the database has no file to read the summary from");
    return -1;
  }
  sqlite3 *out = NULL;
  /* path: publish.c's temporary, made by mkstemp: never through a link. */
  int rc = sqlite3_open_v2(path, &out,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
                           NULL) == SQLITE_OK &&
                   sqlite3_exec(out, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", NULL,
                                NULL, NULL) == SQLITE_OK &&
                   ld_attach(out, src, "src") == 0
               ? 0
               : -1;
  if (rc == 0) rc = sqlite3_exec(out, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
  if (rc == 0) rc = create_schema(out, err, errsize);
  if (rc == 0) rc = exec_bound(out, db, profdb_export__summary_drop, t);
  if (rc == 0) rc = copy_rows(out, db, t, err, errsize);
  if (rc == 0) rc = exec_bound(out, db, profdb_export__summary_nest, t);
  if (rc == 0) rc = exec_bound(out, db, profdb_export__summary_busy, t);
  if (rc == 0) rc = exec_bound(out, db, profdb_export__summary_columns, t);
  if (rc == 0 && set_run) rc = record_run(out, t->id, set_run);
  if (rc == 0) rc = record_replay(out, db, t->id, err, errsize);
  if (rc == 0) rc = sqlite3_exec(out, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
  if (rc == -1) snprintf(err, errsize, "%s", out ? sqlite3_errmsg(out) : "cannot open");
  int e = rc == 0 ? 0 : out && db_errno(out) ? db_errno(out) : rc == -2 ? errno : 0;
  sqlite3_exec(out, "DETACH src", NULL, NULL, NULL);
  if (sqlite3_close(out) != SQLITE_OK && rc == 0) {
    snprintf(err, errsize, "cannot close %s", path);
    rc = -1;
  }
  errno = e; /* ENOSPC: exit 75 (export.c) */
  return rc ? -1 : 0;
}

int ex_write_summary(sqlite3 *db, const char *folder, const ex_summary_trace *t,
                     const char *set_run, char *err, size_t errsize) {
  size_t n = strlen(folder) + 64;
  char *path = malloc(n);
  if (!path) {
    snprintf(err, errsize, "out of memory");
    errno = ENOMEM;
    return -1;
  }
  /* The database SQLite writes, then its compressed copy: both temporaries
  ** of the folder (publish.h), only the second published. */
  pub_file plain, z;
  snprintf(path, n, "%s/rank=%lld.db", folder, t->rank);
  int rc = pub_open(&plain, path, 0), e = errno;
  if (rc)
    snprintf(err, errsize, "%s", strerror(e));
  else if ((rc = write_db(db, plain.tmp, t, set_run, err, errsize)))
    e = errno;
  if (rc == 0) {
    FILE *f = NULL;
    snprintf(path, n, "%s/rank=%lld.db.zst", folder, t->rank);
    if (pub_open(&z, path, 0)) {
      rc = -1;
    } else if (!(f = pub_stream(&z)) || zstd_file(plain.fd, f)) {
      pub_abort(&z);
      rc = -1;
    } else
      rc = pub_commit(&z);
    e = errno;
    if (rc) snprintf(err, errsize, "%s", strerror(e));
  }
  if (plain.fd >= 0 || plain.tmp) pub_abort(&plain);
  if (rc && e == ENOSPC) /* SQLite says "database or disk is full" */
    snprintf(err, errsize, "%s", strerror(e));
  if (rc == 0) { /* an earlier run's, killed while writing this summary */
    char name[64];
    snprintf(name, sizeof name, "rank=%lld.db", t->rank);
    pub_remove_temps(folder, name);
    snprintf(name, sizeof name, "rank=%lld.db.zst", t->rank);
    pub_remove_temps(folder, name);
  }
  free(path);
  errno = e;
  return rc;
}
