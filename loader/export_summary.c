/*
** export_summary.c — the job report from a dataset (see export.h).
**
** HOW IT WORKS
**   Writing (ex_write_summary, once per exported trace): the trace's rows
**   of the profdb database, alone, as DIR/_summary/run=R/rank=N.db.zst:
**   a new database in a hidden temporary file of that folder gets the
**   exported database's tables (its indexes only as definitions:
**   loader/export/_summary_index.sql) and the trace's rows of each table
**   (loader/export/_summary_copy.sql: by trace_id, or by the trace's event
**   id range; less the Python frames, operators, runtime calls, flows and
**   metadata events no report query reads: loader/export/_summary_drop.sql,
**   _summary_nest.sql; then the runtime calls' busy time under GPU work and
**   the columns no query reads: _summary_busy.sql, _summary_columns.sql),
**   then is compressed with zstd into a second hidden file, flushed to disk and
**   renamed into place.  The cost is the trace's rows,
**   not the database's: export DB of many ranks copies each rank once.
**   Reading (ex_merge_summaries, profdb report DIR): the summaries of the
**   dataset, in (run, rank) order, are appended to one new database:
**   the first is copied, each next one attached as "r" and its rows
**   inserted with ids moved past the rows already there
**   (loader/export/_summary_merge.sql), strings mapped to the job's ones;
**   the indexes are built last.
**   The report then runs on that database as on one loaded from the
**   traces, without parsing any JSON again.
**
** Requirements
**   1. The job database gives the same report as the database of all ranks
**      loaded together (tested by export.report_dir).
**   2. A reader never sees half a summary (temporary file, fsync, rename).
*/
#include "export.h"

#include "loader.h"
#include "oom.h"
#include "profdb/profdb.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

extern const char profdb_export__summary_merge[], profdb_export__summary_copy[],
    profdb_export__summary_drop[], profdb_export__summary_nest[], profdb_export__summary_busy[],
    profdb_export__summary_columns[], profdb_export__summary_index[];

/* ---- zstd, streamed (a summary of a large rank need not fit in memory) -- */

/* Compress (compress=1) or decompress the file from into the file to;
** 0, or -1 (errno, or EINVAL for damaged data). */
static int zstd_file(const char *from, const char *to, int compress) {
  FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
  size_t isz = compress ? ZSTD_CStreamInSize() : ZSTD_DStreamInSize();
  size_t osz = compress ? ZSTD_CStreamOutSize() : ZSTD_DStreamOutSize();
  char *ib = malloc(isz), *ob = malloc(osz);
  ZSTD_CCtx *c = compress ? ZSTD_createCCtx() : NULL;
  ZSTD_DCtx *d = compress ? NULL : ZSTD_createDCtx();
  int rc = in && out && ib && ob && (c || d) ? 0 : -1;
  /* Level 9: 7-9% smaller summaries than zstd's default 3 for about twice
  ** its time (0.3 s on a 13 MB summary, 3% of that task); level 19 is
  ** 20% smaller but 30 times slower. */
  if (c) ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 9);
  size_t last = 0;
  while (rc == 0) {
    size_t n = fread(ib, 1, isz, in);
    int end = n < isz; /* the end of the file (or an error: ferror below) */
    ZSTD_inBuffer ibuf = {ib, n, 0};
    int done = 0;
    while (rc == 0 && !done) {
      ZSTD_outBuffer obuf = {ob, osz, 0};
      size_t before = ibuf.pos;
      size_t r = compress
                     ? ZSTD_compressStream2(c, &obuf, &ibuf, end ? ZSTD_e_end : ZSTD_e_continue)
                     : ZSTD_decompressStream(d, &obuf, &ibuf);
      /* A call that reads and writes nothing (after output that filled the
      ** buffer exactly, at the end of the frame) answers for a next frame:
      ** the frame's own answer (0: complete) stands. */
      if (compress || ZSTD_isError(r) || obuf.pos > 0 || ibuf.pos > before) last = r;
      if (ZSTD_isError(last)) {
        errno = EINVAL;
        rc = -1;
      } else if (fwrite(ob, 1, obuf.pos, out) != obuf.pos)
        rc = -1;
      done = compress && end ? last == 0 : ibuf.pos == ibuf.size && obuf.pos < obuf.size;
    }
    if (end) break;
  }
  if (rc == 0 && ferror(in)) rc = -1;
  if (rc == 0 && !compress && last != 0) { /* cut short */
    errno = EINVAL;
    rc = -1;
  }
  if (out && (fflush(out) || (compress && fsync(fileno(out))))) rc = -1;
  if (out && fclose(out)) rc = -1;
  if (in) fclose(in);
  ZSTD_freeCCtx(c);
  ZSTD_freeDCtx(d);
  free(ib);
  free(ob);
  return rc;
}

/* ---- writing --------------------------------------------------------------- */

static int copy_db(sqlite3 *from, sqlite3 *to) {
  sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
  if (!b) return -1;
  int rc = sqlite3_backup_step(b, -1);
  sqlite3_backup_finish(b);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* Run on db the statement each row of the query list gives (its first
** column).  0 or -1. */
static int exec_each(sqlite3 *db, const char *list) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, list, -1, &st, NULL) != SQLITE_OK) return -1;
  int rc = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW)
    rc = sqlite3_exec(db, (const char *)sqlite3_column_text(st, 0), NULL, NULL, NULL) ==
                 SQLITE_OK
             ? 0
             : -1;
  sqlite3_finalize(st);
  return rc;
}

/* Bind the trace's :trace_id, :base and :last where st names them. */
static void bind_trace(sqlite3_stmt *st, const ex_summary_trace *t) {
  int k;
  if ((k = sqlite3_bind_parameter_index(st, ":trace_id"))) sqlite3_bind_int64(st, k, t->id);
  if ((k = sqlite3_bind_parameter_index(st, ":base"))) sqlite3_bind_int64(st, k, t->base);
  if ((k = sqlite3_bind_parameter_index(st, ":last"))) sqlite3_bind_int64(st, k, t->last);
}

/* The exported database's tables and views, created in out (the summary)
** with the database attached to it as "src"; its indexes only as rows of
** _summary_index (loader/export/_summary_index.sql). */
static int copy_schema(sqlite3 *out) {
  static const char list[] =
      "SELECT sql FROM src.sqlite_schema WHERE sql IS NOT NULL AND type IN ('table', 'view')"
      " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
      " ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, rowid";
  return exec_each(out, list) ||
                 sqlite3_exec(out, profdb_export__summary_index, NULL, NULL, NULL) != SQLITE_OK
             ? -1
             : 0;
}

/* The trace's rowid range in table, from db's temp.summary_rowids
** (loader/export/_summary_rowids.sql): the whole table where db has none
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

/* Run every statement of sql on out, with the trace's parameters and its
** rowid ranges in db (:lo_T, :hi_T) bound.  0 or -1. */
static int exec_bound(sqlite3 *out, sqlite3 *db, const char *sql, const ex_summary_trace *t) {
  while (sql && *sql) {
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    if (sqlite3_prepare_v2(out, sql, -1, &st, &tail) != SQLITE_OK) return -1;
    if (st) {
      bind_trace(st, t);
      bind_named_rowids(st, db, t->id);
      while (sqlite3_step(st) == SQLITE_ROW) {}
      if (sqlite3_finalize(st) != SQLITE_OK) return -1;
    }
    sql = tail;
  }
  return 0;
}

/* The trace's rows of every table (loader/export/_summary_copy.sql); db:
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
  sqlite3_finalize(tables);
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

/* The summary database at path: the trace's rows of db. */
static int write_db(sqlite3 *db, const char *path, const ex_summary_trace *t,
                    const char *set_run, char *err, size_t errsize) {
  const char *src = sqlite3_db_filename(db, "main");
  if (!src || !*src) {
    snprintf(err, errsize, "the database has no file to read the summary from");
    return -1;
  }
  sqlite3 *out = NULL;
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_open_v2(path, &out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) ==
                       SQLITE_OK &&
                   sqlite3_exec(out, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", NULL,
                                NULL, NULL) == SQLITE_OK &&
                   sqlite3_prepare_v2(out, "ATTACH ?1 AS src", -1, &st, NULL) == SQLITE_OK
               ? 0
               : -1;
  if (rc == 0) {
    sqlite3_bind_text(st, 1, src, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  }
  sqlite3_finalize(st);
  if (rc == 0) rc = sqlite3_exec(out, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
  if (rc == 0) rc = copy_schema(out);
  if (rc == 0) rc = exec_bound(out, db, profdb_export__summary_drop, t);
  if (rc == 0) rc = copy_rows(out, db, t, err, errsize);
  if (rc == 0) rc = exec_bound(out, db, profdb_export__summary_nest, t);
  if (rc == 0) rc = exec_bound(out, db, profdb_export__summary_busy, t);
  if (rc == 0) rc = exec_bound(out, db, profdb_export__summary_columns, t);
  if (rc == 0 && set_run) rc = record_run(out, t->id, set_run);
  if (rc == 0) rc = sqlite3_exec(out, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
  if (rc == -1) snprintf(err, errsize, "%s", out ? sqlite3_errmsg(out) : "cannot open");
  sqlite3_exec(out, "DETACH src", NULL, NULL, NULL);
  if (sqlite3_close(out) != SQLITE_OK && rc == 0) {
    snprintf(err, errsize, "cannot close %s", path);
    rc = -1;
  }
  return rc ? -1 : 0;
}

int ex_write_summary(sqlite3 *db, const char *folder, const ex_summary_trace *t,
                     const char *set_run, char *err, size_t errsize) {
  size_t n = strlen(folder) + 96;
  char *final = malloc(n), *tmp = malloc(n + 32), *ztmp = malloc(n + 32);
  if (!final || !tmp || !ztmp) {
    free(final);
    free(tmp);
    free(ztmp);
    snprintf(err, errsize, "out of memory");
    return -1;
  }
  snprintf(final, n, "%s/rank=%lld.db.zst", folder, t->rank);
  snprintf(tmp, n + 32, "%s/.rank=%lld.db.%ld.tmp", folder, t->rank, (long)getpid());
  snprintf(ztmp, n + 32, "%s/.rank=%lld.db.zst.%ld.tmp", folder, t->rank, (long)getpid());
  unlink(tmp);
  int rc = write_db(db, tmp, t, set_run, err, errsize);
  if (rc == 0 && (zstd_file(tmp, ztmp, 1) || rename(ztmp, final))) {
    snprintf(err, errsize, "%s", strerror(errno));
    rc = -1;
  }
  unlink(tmp);
  if (rc) unlink(ztmp);
  if (rc == 0) { /* an earlier run's, killed while writing this summary */
    char name[64];
    snprintf(name, sizeof name, "rank=%lld.db", t->rank);
    ex_remove_leftovers(folder, name);
    snprintf(name, sizeof name, "rank=%lld.db.zst", t->rank);
    ex_remove_leftovers(folder, name);
  }
  free(ztmp);
  free(final);
  free(tmp);
  return rc;
}

/* ---- reading ------------------------------------------------------------- */

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rank of "rank=N.db.zst", else -1. */
static long long summary_rank(const char *name) {
  if (strncmp(name, "rank=", 5) || name[5] < '0' || name[5] > '9') return -1;
  char *end;
  long long r = strtoll(name + 5, &end, 10);
  return strcmp(end, ".db.zst") ? -1 : r;
}

static int by_rank(const void *a, const void *b) {
  const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;
  long long p = summary_rank(x), q = summary_rank(y);
  return p < q ? -1 : p > q;
}

/* Append the paths of DIR/_summary/run=R/rank=N.db.zst to *list: runs by name,
** ranks by number. */
static int list_summaries(const char *dir, char ***list, int *n) {
  size_t len = strlen(dir) + 16;
  char *top = malloc(len);
  if (!top) ld_oom();
  snprintf(top, len, "%s/_summary", dir);
  DIR *d = opendir(top);
  if (!d) {
    free(top);
    return -1;
  }
  char **runs = NULL;
  int nruns = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, "run=", 4)) {
      runs = realloc(runs, sizeof *runs * (size_t)(nruns + 1));
      if (!runs || !(runs[nruns++] = strdup(e->d_name))) ld_oom();
    }
  closedir(d);
  if (nruns) qsort(runs, (size_t)nruns, sizeof *runs, by_name);
  for (int r = 0; r < nruns; r++) {
    size_t rl = strlen(top) + strlen(runs[r]) + 2;
    char *rd = malloc(rl);
    if (!rd) ld_oom();
    snprintf(rd, rl, "%s/%s", top, runs[r]);
    int first = *n;
    if ((d = opendir(rd))) {
      while ((e = readdir(d)))
        if (summary_rank(e->d_name) >= 0) {
          size_t fl = rl + strlen(e->d_name) + 2;
          *list = realloc(*list, sizeof **list * (size_t)(*n + 1));
          if (!*list || !((*list)[*n] = malloc(fl))) ld_oom();
          snprintf((*list)[(*n)++], fl, "%s/%s", rd, e->d_name);
        }
      closedir(d);
    }
    if (*n > first) qsort(*list + first, (size_t)(*n - first), sizeof **list, by_rank);
    free(rd);
    free(runs[r]);
  }
  free(runs);
  free(top);
  return 0;
}

/* 1 when dir/sub is a folder (with an entry "run=..." when run is set). */
static int has_folder(const char *dir, const char *sub, int run) {
  size_t len = strlen(dir) + strlen(sub) + 2;
  char *top = malloc(len);
  if (!top) ld_oom();
  snprintf(top, len, "%s/%s", dir, sub);
  DIR *d = opendir(top);
  int yes = d != NULL && !run;
  struct dirent *e;
  while (d && !yes && (e = readdir(d))) yes = !strncmp(e->d_name, "run=", 4);
  if (d) closedir(d);
  free(top);
  return yes;
}

/* A dataset: a _summary folder, or a folder of run=R folders (a table's). */
int ex_is_dataset(const char *path) {
  if (has_folder(path, "_summary", 0)) return 1;
  DIR *d = opendir(path);
  struct dirent *e;
  int yes = 0;
  while (d && !yes && (e = readdir(d)))
    yes = e->d_name[0] != '.' && has_folder(path, e->d_name, 1);
  if (d) closedir(d);
  return yes;
}

/* Append the rows of the summary attached as "r" to main; first: main is
** the first summary's copy, whose rows are deleted table by table before
** the summary's own go in (its ids then start at 1). */
static int append_one(sqlite3 *db, int first) {
  static const char *const strings[] = {
      "DROP TABLE IF EXISTS temp.summary_string",
      "CREATE TEMP TABLE summary_string(old INTEGER PRIMARY KEY, new INTEGER NOT NULL)",
      "INSERT INTO main._string(value) SELECT value FROM r._string"
      " EXCEPT SELECT value FROM main._string",
      "INSERT INTO temp.summary_string SELECT s.id, m.id FROM r._string s"
      " JOIN main._string m ON m.value = s.value",
      NULL};
  for (int i = 0; strings[i]; i++)
    if (sqlite3_exec(db, strings[i], NULL, NULL, NULL) != SQLITE_OK) return -1;
  /* Ids continue after the job's, as a load of every rank numbers them. */
  static const char max_event[] =
      "SELECT max(m) FROM (SELECT max(id) AS m FROM main._slice UNION ALL SELECT max(id) FROM"
      " main._gpu UNION ALL SELECT max(id) FROM main._instant UNION ALL SELECT max(id) FROM"
      " main._flow UNION ALL SELECT max(id) FROM main._meta)";
  static const char min_event[] =
      "SELECT min(m) FROM (SELECT min(id) AS m FROM r._slice UNION ALL SELECT min(id) FROM"
      " r._gpu UNION ALL SELECT min(id) FROM r._instant UNION ALL SELECT min(id) FROM"
      " r._flow UNION ALL SELECT min(id) FROM r._meta)";
  int64_t event_base =
      (first ? 0 : ld_query_int(db, max_event, 0)) - ld_query_int(db, min_event, 1) + 1;
  int64_t trace_base =
      (first ? 0 : ld_query_int(db, "SELECT max(trace_id) FROM main.trace", 0)) -
      ld_query_int(db, "SELECT min(trace_id) FROM r.trace", 1) + 1;
  sqlite3_stmt *tables;
  if (sqlite3_prepare_v2(db, profdb_export__summary_merge, -1, &tables, NULL) != SQLITE_OK)
    return -1;
  int rc = 0;
  while (rc == 0 && sqlite3_step(tables) == SQLITE_ROW) {
    if (first) {
      char *del = sqlite3_mprintf("DELETE FROM main.\"%w\"",
                                  (const char *)sqlite3_column_text(tables, 0));
      rc = del && sqlite3_exec(db, del, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
      sqlite3_free(del);
      if (rc) break;
    }
    char *sql = sqlite3_mprintf("INSERT INTO main.\"%w\"(%s) SELECT %s FROM r.\"%w\"",
                                (const char *)sqlite3_column_text(tables, 0),
                                (const char *)sqlite3_column_text(tables, 1),
                                (const char *)sqlite3_column_text(tables, 2),
                                (const char *)sqlite3_column_text(tables, 0));
    sqlite3_stmt *ins;
    rc = sql && sqlite3_prepare_v2(db, sql, -1, &ins, NULL) == SQLITE_OK ? 0 : -1;
    sqlite3_free(sql);
    if (rc) break;
    int k;
    if ((k = sqlite3_bind_parameter_index(ins, ":event_base")))
      sqlite3_bind_int64(ins, k, event_base);
    if ((k = sqlite3_bind_parameter_index(ins, ":trace_base")))
      sqlite3_bind_int64(ins, k, trace_base);
    rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(ins);
  }
  sqlite3_finalize(tables);
  return rc;
}

/* Decompress the summary path into the file plain and attach it as "r";
** 0, or -1 with err set. */
static int attach(sqlite3 *db, const char *path, const char *plain, char *err, size_t errsize) {
  if (zstd_file(path, plain, 0)) {
    int damaged = errno == EINVAL;
    snprintf(err, errsize, "%s: %s", path,
             damaged ? "damaged summary (not zstd data, or cut short)" : strerror(errno));
    return damaged ? -2 : -1;
  }
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, "ATTACH ?1 AS r", -1, &st, NULL) == SQLITE_OK ? 0 : -1;
  if (rc == 0) {
    sqlite3_bind_text(st, 1, plain, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
  }
  if (rc == 0 && ld_query_int(db, "SELECT value FROM r._profdb WHERE key = 'schema_version'",
                              -1) != PROFDB_SCHEMA_VERSION) {
    snprintf(err, errsize,
             "%s: not a summary of this profdb's schema (version %d): export the dataset"
             " again",
             path, PROFDB_SCHEMA_VERSION);
    sqlite3_exec(db, "DETACH r", NULL, NULL, NULL);
    return -2;
  }
  if (rc) snprintf(err, errsize, "%s: %s", path, sqlite3_errmsg(db));
  return rc;
}

/* The indexes the summaries list (_summary_index, from the first summary),
** built once every row is in; summaries written before there was such a
** table carry their indexes themselves.  0 or -1. */
static int build_indexes(sqlite3 *db) {
  if (ld_query_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = '_summary_index'", 0) ==
      0)
    return 0;
  return exec_each(db, "SELECT sql FROM _summary_index ORDER BY name") ||
                 sqlite3_exec(db, "DROP TABLE _summary_index", NULL, NULL, NULL) != SQLITE_OK
             ? -1
             : 0;
}

/* The first summary's schema and strings, without its rows; then every
** summary appended, the first too, so that ids start at 1 as in a load. */
static int merge_into(sqlite3 *db, const char *plain, char **list, int n, char *err,
                      size_t errsize) {
  int rc = attach(db, list[0], plain, err, errsize);
  sqlite3_exec(db, "DETACH r", NULL, NULL, NULL);
  if (rc == 0) {
    sqlite3 *first = NULL;
    rc = sqlite3_open_v2(plain, &first, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
                 copy_db(first, db) == 0
             ? 0
             : -1;
    if (rc) snprintf(err, errsize, "%s: %s", list[0], sqlite3_errmsg(first));
    sqlite3_close(first);
  }
  for (int i = 0; rc == 0 && i < n; i++) {
    if ((rc = attach(db, list[i], plain, err, errsize))) {
    } else if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
               append_one(db, i == 0) ||
               sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
      int e = sqlite3_errcode(db);
      snprintf(err, errsize, "%s: %s", list[i], sqlite3_errmsg(db));
      sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
      rc = e == SQLITE_NOTADB || e == SQLITE_CORRUPT || e == SQLITE_ERROR ? -2 : -1;
    }
    sqlite3_exec(db, "DETACH r", NULL, NULL, NULL);
    unlink(plain);
  }
  if (rc == 0 && build_indexes(db)) {
    snprintf(err, errsize, "%s", sqlite3_errmsg(db));
    rc = -1;
  }
  if (rc == 0 && sqlite3_exec(db, "ANALYZE", NULL, NULL, NULL) != SQLITE_OK) {
    snprintf(err, errsize, "%s", sqlite3_errmsg(db));
    rc = -1;
  }
  return rc;
}

int ex_merge_summaries(const char *dir, const char *db_path, int *traces) {
  char **list = NULL;
  int n = 0;
  char err[512] = "";
  *traces = 0;
  if (list_summaries(dir, &list, &n) || n == 0) {
    if (has_folder(dir, "snapshot", 1) && !has_folder(dir, "trace", 1)) /* docs/export.md */
      fprintf(stderr,
              "profdb: %s: a dataset of memory snapshots only: the report of a dataset is"
              " the report of its traces; report on the snapshot files\n",
              dir);
    else
      fprintf(stderr,
              "profdb: %s: a dataset without summaries (_summary/run=R/rank=N.db.zst; written"
              " by profdb export of every table): export it again, or report on its traces\n",
              dir);
    free(list);
    return PROFDB_EXIT_DATA;
  }
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc == SQLITE_OK)
    sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", NULL, NULL, NULL);
  size_t pl = strlen(db_path) + 16;
  char *plain = malloc(pl);
  if (!plain) ld_oom();
  snprintf(plain, pl, "%s-summary", db_path); /* cli_runner.c removes it on a signal */
  if (rc != SQLITE_OK) snprintf(err, sizeof err, "%s: %s", db_path, sqlite3_errmsg(db));
  rc = rc == SQLITE_OK ? merge_into(db, plain, list, n, err, sizeof err) : -1;
  unlink(plain);
  free(plain);
  if (rc) fprintf(stderr, "profdb: %s (merging the summaries of %s)\n", err, dir);
  if (sqlite3_close(db) != SQLITE_OK && rc == 0) rc = -1;
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
  if (rc == 0) *traces = n;
  if (rc == 0 && has_folder(dir, "snapshot", 1))
    fprintf(stderr,
            "profdb: %s: warning: its memory snapshots are not in the summaries: the memory"
            " sections are not available from a dataset (report on the snapshot files)\n",
            dir);
  return rc == 0 ? PROFDB_EXIT_OK : rc == -2 ? PROFDB_EXIT_DATA : PROFDB_EXIT_USAGE;
}
