/*
** export_merge.c — a dataset's summaries as one job database, for
** `profdb report DIR` and `profdb diff DIR DIR` (see export.h).
**
** A dataset is untrusted input, like a trace (docs/reliability.md, "Trust
** model"): anyone may have written its files.  So the job database is
** built from profdb's own definitions and nothing stored in a summary runs:
**   - the schema (tables, views, code rows) is profdb's DDL
**     (ld_create_schema), the indexes profdb's own (postpass_indexes.sql,
**     cpu_busy_index.sql), built once every row is in;
**   - each summary is opened as a regular file only (no FIFO, device or
**     link), decompressed to at most the database size its SQLite header
**     gives and at most MAX_RATIO times its compressed size (a zstd bomb
**     stops there), attached read-only, and checked to hold profdb's
**     tables with profdb's columns (schema_check.sql) before a row is read:
**     one that does not is refused with its file named;
**   - only its tables' rows are read, by INSERT ... SELECT statements that
**     name profdb's columns (export/dataset/_summary_merge.sql), on a
**     connection in SQLite's defensive mode, with untrusted schema
**     functions off, an authorizer that lets only this file's own ATTACH
**     through, a length limit on values and the report's time limit
**     (PROFDB_QUERY_TIMEOUT);
**   - strings are matched through a unique index on the job's strings, so
**     the merge is linear in ranks x strings (a temporary index, dropped at
**     the end: the job database is a loaded one's).
** The summaries, in (run, rank) order, are appended one by one, with ids
** moved past the rows already there, as a load of every rank numbers them.
*/
#include "export_merge.h"

#include "clock.h"
#include "loader.h"
#include "oom.h"
#include "profdb/profdb.h"
#include "progress.h"
#include "publish.h"
#include "sql.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* A summary decompresses to at most this many times the compressed bytes
** read so far (plus MAX_SLACK): profdb's own summaries are 3-15 times
** smaller compressed (measured on the public traces and DLRM); 200 leaves
** room for tables of repeated values and still stops a bomb of a few
** hundred kB at a few hundred MB.  Counted on the bytes read, not on the
** file's size, which a sparse file makes as large as it likes. */
enum { MAX_RATIO = 200, MAX_SLACK = 1 << 20 };

/* The largest value (text or blob) a summary may hold: the loader refuses
** JSON strings past 32 MiB, so no summary profdb wrote holds a longer one. */
enum { MAX_VALUE_BYTES = 64 << 20 };

/* ---- a summary, decompressed within bounds ------------------------------- */

/* The size an SQLite database file gives in its header (page size times
** page count), once the first 100 bytes of it are known; 0 when they are
** not an SQLite header whose page count can be trusted. */
static uint64_t header_size(const unsigned char *h) {
  if (memcmp(h, "SQLite format 3", 16)) return 0;
  uint64_t page = (uint64_t)h[16] << 8 | h[17];
  if (page == 1) page = 65536;
  uint64_t pages = (uint64_t)h[28] << 24 | (uint64_t)h[29] << 16 | (uint64_t)h[30] << 8 | h[31];
  /* the count is valid only when its "version-valid-for" is the change
  ** counter (SQLite 3.7.0 and later write both); a summary is never in WAL
  ** mode (file format bytes 1, 1), which would have SQLite open -wal and
  ** -shm files beside the copy */
  if (memcmp(h + 24, h + 92, 4) || page < 512 || (page & (page - 1)) || h[18] != 1 ||
      h[19] != 1)
    return 0;
  return page * pages;
}

typedef struct bounded_out {
  FILE *out;
  uint64_t written, limit; /* limit: 0 until the header is read */
  uint64_t consumed;       /* compressed bytes read so far */
  unsigned char head[100];
} bounded_out;

/* Write n bytes of decompressed output, within the bounds; 0, or -1 with
** errno (EFBIG: past a bound, EINVAL: not a database). */
static int put_bounded(bounded_out *b, const void *p, size_t n) {
  if (b->written < sizeof b->head) {
    size_t k = n < sizeof b->head - b->written ? n : sizeof b->head - b->written;
    memcpy(b->head + b->written, p, k);
    if (b->written + k == sizeof b->head) {
      b->limit = header_size(b->head);
      if (!b->limit) return errno = EINVAL, -1;
    }
  }
  b->written += n;
  if (b->limit && b->written > b->limit) return errno = EFBIG, -1;
  if (b->written > b->consumed * MAX_RATIO + MAX_SLACK) return errno = EFBIG, -1;
  return fwrite(p, 1, n, b->out) == n ? 0 : -1;
}

/* Decompress the zstd file open as fd into the new file plain.  0, or -1
** with errno (EINVAL: damaged or not a summary, EFBIG: it would decompress
** past its bounds). */
static int unzstd_bounded(int fd, const char *plain) {
  FILE *in = fdopen(fd, "rb");
  int ofd = open(plain, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  bounded_out b = {.out = ofd >= 0 ? fdopen(ofd, "wb") : NULL};
  if (!b.out && ofd >= 0) close(ofd);
  size_t isz = ZSTD_DStreamInSize(), osz = ZSTD_DStreamOutSize();
  char *ib = malloc(isz), *ob = malloc(osz);
  ZSTD_DCtx *d = ZSTD_createDCtx();
  int rc = in && b.out && ib && ob && d ? 0 : -1;
  size_t last = 1; /* a file with no frame at all is cut short */
  for (size_t n; rc == 0 && (n = fread(ib, 1, isz, in)) > 0;) {
    b.consumed += n;
    ZSTD_inBuffer ibuf = {ib, n, 0};
    while (rc == 0 && ibuf.pos < ibuf.size) {
      ZSTD_outBuffer obuf = {ob, osz, 0};
      last = ZSTD_decompressStream(d, &obuf, &ibuf);
      if (ZSTD_isError(last)) {
        errno = EINVAL;
        rc = -1;
      } else
        rc = put_bounded(&b, ob, obuf.pos);
    }
    /* output still held inside zstd once the input is consumed */
    while (rc == 0 && last != 0 && ibuf.pos == ibuf.size) {
      ZSTD_outBuffer obuf = {ob, osz, 0};
      last = ZSTD_decompressStream(d, &obuf, &ibuf);
      if (ZSTD_isError(last))
        errno = EINVAL, rc = -1;
      else if (obuf.pos == 0)
        break;
      else
        rc = put_bounded(&b, ob, obuf.pos);
    }
  }
  if (rc == 0 && in && ferror(in)) rc = -1;
  if (rc == 0 && (last != 0 || b.written < sizeof b.head || b.written != b.limit)) {
    errno = EINVAL; /* cut short, or not the database its header says */
    rc = -1;
  }
  if (b.out && fclose(b.out) && rc == 0) rc = -1;
  if (in)
    fclose(in);
  else
    close(fd);
  ZSTD_freeDCtx(d);
  free(ib);
  free(ob);
  return rc;
}

/* ---- the connection: nothing but this file's own SQL -------------------- */

/* A merge's connection state: its own, as profdb diff merges its two
** datasets at once, one on each thread. */
typedef struct merge_guard {
  int attaching;          /* set around this file's own ATTACH */
  double deadline;        /* the report's time limit (ld_query_deadline) */
  const atomic_int *stop; /* set by another thread: end before the next summary */
} merge_guard;

static int authorize(void *arg, int action, const char *a, const char *b, const char *db,
                     const char *trigger) {
  const merge_guard *g = arg;
  (void)a, (void)db;
  if (trigger) return SQLITE_DENY; /* no trigger is profdb's */
  switch (action) {
    case SQLITE_ATTACH:
    case SQLITE_DETACH: return g->attaching ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_CREATE_TRIGGER:
    case SQLITE_CREATE_TEMP_TRIGGER:
    case SQLITE_CREATE_VTABLE: return SQLITE_DENY;
    case SQLITE_FUNCTION:
      return !sqlite3_stricmp(b, "load_extension") || !sqlite3_stricmp(b, "fts3_tokenizer")
                 ? SQLITE_DENY
                 : SQLITE_OK;
    default: return SQLITE_OK;
  }
}

static int past_deadline(void *arg) {
  const merge_guard *g = arg;
  progress_tick();
  return g->deadline > 0 && ld_seconds() > g->deadline;
}

/* Defensive mode, no schema functions with side effects, values bounded,
** the report's time limit, and the authorizer; 0 or -1. */
static int harden(sqlite3 *db, merge_guard *g) {
  int on = 1;
  if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) != SQLITE_OK || !on ||
      sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &on) != SQLITE_OK || on ||
      sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &on) != SQLITE_OK || on ||
      sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &on) != SQLITE_OK || on)
    return -1;
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 1);
  g->deadline = ld_query_deadline();
  sqlite3_progress_handler(db, 10000, past_deadline, g);
  return sqlite3_set_authorizer(db, authorize, g) == SQLITE_OK ? 0 : -1;
}

/* ATTACH the file plain read-only as "r" (a URI: its bytes percent-encoded). */
static int attach_ro(sqlite3 *db, merge_guard *g, const char *plain) {
  size_t n = strlen(plain);
  char *uri = malloc(n * 3 + 32), *p = uri;
  if (!uri) ld_oom();
  p += sprintf(p, "file:");
  for (const unsigned char *s = (const unsigned char *)plain; *s; s++)
    if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
        strchr("/-._~", *s))
      *p++ = (char)*s;
    else
      p += sprintf(p, "%%%02X", *s);
  strcpy(p, "?mode=ro");
  g->attaching = 1;
  int rc = ld_attach(db, uri, "r");
  g->attaching = 0;
  free(uri);
  return rc;
}

static void detach(sqlite3 *db, merge_guard *g) {
  g->attaching = 1;
  sqlite3_exec(db, "DETACH r", NULL, NULL, NULL);
  g->attaching = 0;
}

/* ---- listing --------------------------------------------------------------- */

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

/* opendir(path) without following a link (then NULL with errno ELOOP). */
static DIR *opendir_nofollow(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d && fd >= 0) close(fd);
  struct stat st;
  if (!d && !lstat(path, &st) && S_ISLNK(st.st_mode)) errno = ELOOP; /* O_DIRECTORY: ENOTDIR */
  return d;
}

/* The run=R folders of DIR/_summary (malloc'd names, "run=R"), by name,
** into *runs; their number, -1: no _summary folder, -2: a link there (said
** on stderr). */
static int list_runs(const char *dir, char ***runs) {
  size_t len = strlen(dir) + 16;
  char *top = malloc(len);
  if (!top) ld_oom();
  snprintf(top, len, "%s/_summary", dir);
  DIR *d = opendir_nofollow(top);
  *runs = NULL;
  if (!d) {
    int link = errno == ELOOP;
    if (link) fprintf(stderr, "profdb: %s: a symbolic link: not followed\n", top);
    free(top);
    return link ? -2 : -1;
  }
  int nruns = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, "run=", 4)) {
      *runs = realloc(*runs, sizeof **runs * (size_t)(nruns + 1));
      if (!*runs || !((*runs)[nruns++] = strdup(e->d_name))) ld_oom();
    }
  closedir(d);
  free(top);
  if (nruns) qsort(*runs, (size_t)nruns, sizeof **runs, by_name);
  return nruns;
}

int ex_dataset_runs(const char *dir, char ***runs) {
  int n = list_runs(dir, runs);
  for (int i = 0; i < n; i++) memmove((*runs)[i], (*runs)[i] + 4, strlen((*runs)[i]) - 3);
  return n;
}

void ex_free_runs(char **runs, int n) {
  for (int i = 0; i < n; i++) free(runs[i]);
  free(runs);
}

/* Append the paths of DIR/_summary/run=R/rank=N.db.zst to *list (only run
** R=run when run is not NULL): runs by name, ranks by number.  0; -1: no
** _summary folder; -2: a link where a folder of it should be (not
** followed, said on stderr). */
static int list_summaries(const char *dir, const char *run, char ***list, int *n) {
  char **runs = NULL;
  int nruns = list_runs(dir, &runs);
  if (nruns < 0) return nruns;
  size_t len = strlen(dir) + 16;
  char *top = malloc(len);
  if (!top) ld_oom();
  snprintf(top, len, "%s/_summary", dir);
  DIR *d;
  struct dirent *e;
  int rc = 0;
  for (int r = 0; r < nruns; r++) {
    if (run && strcmp(runs[r] + 4, run)) {
      free(runs[r]);
      continue;
    }
    size_t rl = strlen(top) + strlen(runs[r]) + 2;
    char *rd = malloc(rl);
    if (!rd) ld_oom();
    snprintf(rd, rl, "%s/%s", top, runs[r]);
    int first = *n;
    if (!(d = opendir_nofollow(rd)) && errno == ELOOP && rc == 0) {
      fprintf(stderr, "profdb: %s: a symbolic link: not followed\n", rd);
      rc = -2;
    }
    if (d && rc == 0) {
      while ((e = readdir(d)))
        if (summary_rank(e->d_name) >= 0) {
          size_t fl = rl + strlen(e->d_name) + 2;
          *list = realloc(*list, sizeof **list * (size_t)(*n + 1));
          if (!*list || !((*list)[*n] = malloc(fl))) ld_oom();
          snprintf((*list)[(*n)++], fl, "%s/%s", rd, e->d_name);
        }
    }
    if (d) closedir(d);
    if (*n > first) qsort(*list + first, (size_t)(*n - first), sizeof **list, by_rank);
    free(rd);
    free(runs[r]);
  }
  free(runs);
  free(top);
  return rc;
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

/* ---- appending ------------------------------------------------------------- */

/* SQLite's error of the call that failed, read at once: a later call
** (finalizing another statement, a ROLLBACK) resets it to "not an error". */
typedef struct merge_error {
  int code;
  char text[512];
} merge_error;

static int failed(sqlite3 *db, merge_error *e) {
  e->code = sqlite3_errcode(db);
  snprintf(e->text, sizeof e->text, "%s", sqlite3_errmsg(db));
  return -1;
}

/* The job's strings, with the summary's strings mapped to them in
** temp.summary_string (old id -> job id); first: the first summary's
** strings are the job's, ids kept, as its own load numbered them. */
static int map_strings(sqlite3 *db, int first, merge_error *e) {
  static const char *const steps[] = {
      "DROP TABLE IF EXISTS temp.summary_string",
      "CREATE TEMP TABLE summary_string(old INTEGER PRIMARY KEY, new INTEGER NOT NULL)",
      /* new strings in value order, as the EXCEPT of earlier releases gave them */
      "INSERT INTO main._string(value) SELECT value FROM r._string s WHERE NOT EXISTS"
      " (SELECT 1 FROM main._string m WHERE m.value = s.value) ORDER BY value",
      "INSERT INTO temp.summary_string SELECT s.id, m.id FROM r._string s"
      " JOIN main._string m ON m.value = s.value",
      NULL};
  if (first &&
      sqlite3_exec(db, "INSERT INTO main._string(id, value) SELECT id, value FROM r._string",
                   NULL, NULL, NULL) != SQLITE_OK)
    return failed(db, e);
  for (int i = 0; steps[i]; i++)
    if (sqlite3_exec(db, steps[i], NULL, NULL, NULL) != SQLITE_OK) return failed(db, e);
  return 0;
}

/* The INSERT ... SELECT of each table (export/dataset/_summary_merge.sql):
** made once from main's schema, which every summary shares (checked), not
** once a summary (3.5 ms each of a job's merge on a busy machine). */
typedef struct merge_plan {
  char **sql;
  int n;
} merge_plan;

static void free_plan(merge_plan *p) {
  for (int i = 0; i < p->n; i++) sqlite3_free(p->sql[i]);
  free(p->sql);
  p->sql = NULL;
  p->n = 0;
}

static int plan_inserts(sqlite3 *db, merge_plan *p) {
  sqlite3_stmt *tables;
  if (sqlite3_prepare_v2(db, profdb_export__summary_merge, -1, &tables, NULL) != SQLITE_OK)
    return -1;
  int rc;
  while ((rc = sqlite3_step(tables)) == SQLITE_ROW) {
    char *sql = sqlite3_mprintf("INSERT INTO main.\"%w\"(%s) SELECT %s FROM r.\"%w\"",
                                (const char *)sqlite3_column_text(tables, 0),
                                (const char *)sqlite3_column_text(tables, 1),
                                (const char *)sqlite3_column_text(tables, 2),
                                (const char *)sqlite3_column_text(tables, 0));
    char **grown = realloc(p->sql, (size_t)(p->n + 1) * sizeof *grown);
    if (!sql || !grown) ld_oom();
    p->sql = grown;
    p->sql[p->n++] = sql;
  }
  sqlite3_finalize(tables);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* Append the rows of the summary attached as "r" to main. */
static int append_one(sqlite3 *db, const merge_plan *plan, int first, merge_error *e) {
  if (map_strings(db, first, e)) return -1;
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
  int rc = 0;
  for (int i = 0; rc == 0 && i < plan->n; i++) {
    sqlite3_stmt *ins;
    rc = sqlite3_prepare_v2(db, plan->sql[i], -1, &ins, NULL) == SQLITE_OK ? 0 : failed(db, e);
    if (rc) break;
    int k;
    if ((k = sqlite3_bind_parameter_index(ins, ":event_base")))
      sqlite3_bind_int64(ins, k, event_base);
    if ((k = sqlite3_bind_parameter_index(ins, ":trace_base")))
      sqlite3_bind_int64(ins, k, trace_base);
    rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : failed(db, e);
    sqlite3_finalize(ins);
  }
  return rc;
}

/* The summary path, decompressed into the file plain, attached as "r" and
** checked; 0, or -1 (an I/O error) or -2 (the summary is refused), with
** err set. */
static int attach(sqlite3 *db, merge_guard *g, const char *path, const char *plain, char *err,
                  size_t errsize) {
  int fd = ld_open_regular(path, O_RDONLY | O_NOFOLLOW);
  const char *why = NULL;
  if (fd < 0)
    why = fd == -2         ? "not a regular file (a FIFO, device or folder)"
          : errno == ELOOP ? "a symbolic link: not followed"
                           : strerror(errno);
  else {
    int e = unzstd_bounded(fd, plain) ? errno : 0; /* closes fd */
    why = !e            ? NULL
          : e == EINVAL ? "damaged summary (not zstd data, cut short, or not the SQLite"
                          " database its header says)"
          : e == EFBIG  ? "refused: it decompresses past the size its database header"
                          " gives, or past 200 times the compressed bytes (a zstd bomb?)"
                        : strerror(e);
    if (e && e != EINVAL && e != EFBIG) { /* an I/O error here, not the summary's */
      snprintf(err, errsize, "%s: %s", path, why);
      return -1;
    }
  }
  if (why) {
    snprintf(err, errsize, "%s: %s", path, why);
    return -2;
  }
  if (attach_ro(db, g, plain)) {
    snprintf(err, errsize, "%s: damaged summary: %s", path, sqlite3_errmsg(db));
    return -2;
  }
  char bad[256];
  if (ld_check_attached_schema(db, bad, sizeof bad)) {
    snprintf(err, errsize, "%s: not a summary profdb wrote: %s", path, bad);
    detach(db, g);
    return -2;
  }
  if (ld_query_int(db, "SELECT value FROM r._profdb WHERE key = 'schema_version'", -1) !=
      PROFDB_SCHEMA_VERSION) {
    snprintf(err, errsize,
             "%s: not a summary of this profdb's schema (version %d): export the dataset"
             " again",
             path, PROFDB_SCHEMA_VERSION);
    detach(db, g);
    return -2;
  }
  return 0;
}

/* Every summary appended into db, made from profdb's own schema; then
** profdb's own indexes and the planner's statistics. */
static int merge_into(sqlite3 *db, merge_guard *g, const char *plain, char **list, int n,
                      char *err, size_t errsize) {
  int rc = ld_create_schema(db, stderr) ||
                   sqlite3_exec(db,
                                "CREATE UNIQUE INDEX main._summary_string_by_value"
                                " ON _string(value)",
                                NULL, NULL, NULL) != SQLITE_OK ||
                   harden(db, g)
               ? -1
               : 0;
  merge_plan plan = {0};
  if (rc == 0 && plan_inserts(db, &plan)) rc = -1;
  if (rc) snprintf(err, errsize, "cannot create the job database: %s", sqlite3_errmsg(db));
  double t0 = ld_seconds();
  for (int i = 0; rc == 0 && i < n; i++) {
    if (g->stop && atomic_load(g->stop)) {
      rc = -3; /* not wanted any more: nothing to say */
      break;
    }
    char what[96];
    snprintf(what, sizeof what, "merging the dataset's summaries: %d of %d", i + 1, n);
    progress_phase(what);
    if ((rc = attach(db, g, list[i], plain, err, errsize))) {
    } else {
      merge_error e = {0};
      if ((sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK && failed(db, &e)) ||
          append_one(db, &plan, i == 0, &e) ||
          (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK && failed(db, &e))) {
        int io =
            (e.code & 0xff) == SQLITE_IOERR || e.code == SQLITE_FULL || e.code == SQLITE_NOMEM;
        snprintf(err, errsize, "%s: %s%s", list[i], io ? "" : "damaged summary: ", e.text);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        rc = io ? -1 : -2;
      }
    }
    detach(db, g);
    unlink(plain);
  }
  free_plan(&plan);
  if (rc == 0 && ld_timing())
    fprintf(stderr, "profdb: timing: merge of %d summaries  %.3f s\n", n, ld_seconds() - t0);
  /* built_from: what the report may not answer from summaries (the
  ** critical path needs every CPU operator: queries/lib/90_unavailable.sql) */
  static const char *const finish[] = {"DROP INDEX main._summary_string_by_value",
                                       profdb_sql_postpass_indexes,
                                       profdb_sql_cpu_busy_index,
                                       "INSERT INTO main._profdb(key, value)"
                                       " VALUES ('built_from', 'dataset summaries')",
                                       "ANALYZE",
                                       NULL};
  for (int i = 0; rc == 0 && finish[i]; i++)
    if (sqlite3_exec(db, finish[i], NULL, NULL, NULL) != SQLITE_OK) {
      snprintf(err, errsize, "%s", sqlite3_errmsg(db));
      rc = -1;
    }
  return rc;
}

void ex_runs_text(const char *dir, char *text, size_t size) {
  char **runs;
  int n = ex_dataset_runs(dir, &runs);
  size_t used = 0;
  text[0] = 0;
  for (int i = 0; i < n && used + 1 < size; i++) {
    int w = snprintf(text + used, size - used, "%s%s", i ? ", " : "", i < 8 ? runs[i] : "...");
    used += w > 0 ? (size_t)w : 0;
    if (i == 8) break;
  }
  ex_free_runs(runs, n);
}

/* Whether the dataset holds several runs, said when run is NULL (the
** report then covers them all, each a job of its own). */
static void warn_runs(const char *dir, const char *run) {
  char **runs;
  int n = ex_dataset_runs(dir, &runs);
  ex_free_runs(runs, n);
  if (run || n < 2) return;
  char text[1024];
  ex_runs_text(dir, text, sizeof text);
  fprintf(stderr,
          "profdb: %s: warning: the dataset holds %d runs (%s): the report covers them all,"
          " each a job of its own; --run NAME selects one\n",
          dir, n, text);
}

int ex_merge_summaries(const char *dir, const char *run, const char *db_path, int *traces,
                       const atomic_int *stop) {
  char **list = NULL;
  int n = 0;
  char err[1024] = "";
  *traces = 0;
  int listed = list_summaries(dir, run, &list, &n);
  if (listed || n == 0) {
    char runs[1024];
    if (listed == -2) /* said why */
      ;
    else if (run && (ex_runs_text(dir, runs, sizeof runs), runs[0]))
      fprintf(stderr, "profdb: %s: --run %s: no such run in this dataset; its runs: %s\n", dir,
              run, runs);
    else if (has_folder(dir, "snapshot", 1) &&
             !has_folder(dir, "trace", 1)) /* docs/export.md */
      fprintf(stderr,
              "profdb: %s: a dataset of memory snapshots only: the report of a dataset is"
              " the report of its traces; report on the snapshot files\n",
              dir);
    else
      fprintf(stderr,
              "profdb: %s: a dataset without summaries (_summary/run=R/rank=N.db.zst; written"
              " by profdb export of every table): export it again, or report on its traces\n",
              dir);
    for (int i = 0; i < n; i++) free(list[i]);
    free(list);
    return PROFDB_EXIT_DATA;
  }
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(
      db_path, &db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW,
      NULL);
  if (rc == SQLITE_OK)
    sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", NULL, NULL, NULL);
  size_t pl = strlen(db_path) + 16;
  char *plain = malloc(pl);
  if (!plain) ld_oom();
  snprintf(plain, pl, "%s-summary", db_path); /* cli_runner.c removes it on a signal */
  if (rc != SQLITE_OK) snprintf(err, sizeof err, "%s: %s", db_path, sqlite3_errmsg(db));
  merge_guard guard = {.stop = stop};
  rc = rc == SQLITE_OK ? merge_into(db, &guard, plain, list, n, err, sizeof err) : -1;
  unlink(plain);
  free(plain);
  if (rc && rc != -3) fprintf(stderr, "profdb: %s (merging the summaries of %s)\n", err, dir);
  if (sqlite3_close(db) != SQLITE_OK && rc == 0) rc = -1;
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
  if (rc == 0) *traces = n;
  if (rc == 0) warn_runs(dir, run);
  if (rc == 0 && has_folder(dir, "snapshot", 1))
    fprintf(stderr,
            "profdb: %s: warning: its memory snapshots are not in the summaries: the memory"
            " sections are not available from a dataset (report on the snapshot files)\n",
            dir);
  return rc == 0 ? PROFDB_EXIT_OK : rc == -2 || rc == -3 ? PROFDB_EXIT_DATA : PROFDB_EXIT_USAGE;
}
