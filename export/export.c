/*
** export.c — a loaded database as a Parquet dataset (see export.h).
**
** HOW IT WORKS
**   export/dataset/_traces.sql lists the traces with their run, their
**   rank (trace.rank, decided at load) and the base that makes their event
**   ids local;
**   _snapshots.sql does the same for memory snapshots.  For each artifact
**   and each table of ex_tables, the table's query (export/dataset/<t>.sql)
**   runs with the artifact's parameters bound by name (:trace_id, :base,
**   :run, :rank, ...), and its rows go to part-0000.parquet, typed by the
**   query's "-- Output:" header; past --file-bytes (1 GiB) the file is
**   closed at the next row group and part-0001 begun, and so on.  A part
**   is written under a hidden name in its final folder, flushed to disk,
**   then renamed: a reader sees the old file or the new one, never half
**   of one.  Then the parts an earlier export wrote past this one's last
**   are removed (all of them when the table has no rows for the
**   artifact), and the hidden files an earlier run of the task left
**   there, killed while writing, too.
**
** Requirements
**   1. The same artifact gives the same bytes, whether its database holds
**      it alone (a job-array task) or with every other rank (export DB):
**      no database ids (event ids are made local to the trace, stack ids
**      to the snapshot), no path as given, no load time, no clock.
**   2. Times and sizes are INT64; an integer written as a string ("tid":
**      "25738") is that integer; a value that does not fit its column's
**      type is written as NULL, counted as a warning and named.
**   3. Memory: one row group (PQ_GROUP_BYTES) and SQLite's page cache.
*/
#include "export.h"
#include "export_replay.h"
#include "export_summary.h"

#include "hash.h"
#include "loader.h"
#include "parquet.h"
#include "profdb/profdb.h"
#include "profdb_sql.h"
#include "progress.h"
#include "publish.h"
#include "script.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_version.h>
#include <zlib.h>
#include <zstd.h>

typedef struct ex_table {
  const char *name;
  const char *sql;
  int snapshot; /* 1: per snapshot, 0: per trace */
} ex_table;

static const ex_table ex_tables[] = {
    {"trace", profdb_export_trace, 0},
    {"step", profdb_export_step, 0},
    {"cpu_op", profdb_export_cpu_op, 0},
    {"user_annotation", profdb_export_user_annotation, 0},
    {"python_function", profdb_export_python_function, 0},
    {"runtime", profdb_export_runtime, 0},
    {"kernel", profdb_export_kernel, 0},
    {"memcpy", profdb_export_memcpy, 0},
    {"memset", profdb_export_memset, 0},
    {"gpu_sync", profdb_export_gpu_sync, 0},
    {"gpu_annotation", profdb_export_gpu_annotation, 0},
    {"memory_event", profdb_export_memory_event, 0},
    {"flow", profdb_export_flow, 0},
    {"device", profdb_export_device, 0},
    {"snapshot", profdb_export_snapshot, 1},
    {"segment", profdb_export_segment, 1},
    {"block", profdb_export_block, 1},
    {"alloc_event", profdb_export_alloc_event, 1},
    {"stack_frame", profdb_export_stack_frame, 1},
};
#define EX_NTABLES ((int)(sizeof ex_tables / sizeof ex_tables[0]))

/* ---- the "-- Output:" header: column names and types ------------------- */

#define EX_MAXCOL 64

typedef struct ex_cols {
  char name[EX_MAXCOL][48];
  pq_type type[EX_MAXCOL];
  int n;
} ex_cols;

/* Parse the lines "--   NAME  TYPE  description" after "-- Output:".
** 0 ok, -1 malformed. */
static int parse_output(const char *sql, ex_cols *c) {
  c->n = 0;
  const char *p = strstr(sql, "\n-- Output:\n");
  if (!p) return -1;
  p += strlen("\n-- Output:\n");
  while (!strncmp(p, "--   ", 5)) {
    char name[48], type[16];
    if (c->n == EX_MAXCOL || sscanf(p + 5, "%47s %15s", name, type) != 2) return -1;
    if (!strcmp(type, "INT64"))
      c->type[c->n] = PQ_INT64;
    else if (!strcmp(type, "DOUBLE"))
      c->type[c->n] = PQ_DOUBLE;
    else if (!strcmp(type, "STRING"))
      c->type[c->n] = PQ_STRING;
    else
      return -1;
    memcpy(c->name[c->n++], name, sizeof name);
    p = strchr(p, '\n');
    if (!p) return -1;
    p++;
  }
  return c->n ? 0 : -1;
}

/* ---- parameters ----------------------------------------------------------- */

typedef struct ex_params {
  int snapshot;            /* 1: :snapshot_id is id, 0: :trace_id */
  int64_t id, base, base2; /* :trace_id / :snapshot_id, :base / :seg_base, :block_base */
  int64_t last;            /* :last, the trace's largest event id */
  const char *run;
  int64_t rank;
  const char *rank_source;
  const char *label;
  const char *hash;
} ex_params;

/* The binder of every query of the dataset (script.h). */
static int bind_params(sqlite3_stmt *st, const void *arg) {
  const ex_params *p = arg;
  int i;
  if ((i = sqlite3_bind_parameter_index(st, p->snapshot ? ":snapshot_id" : ":trace_id")))
    sqlite3_bind_int64(st, i, p->id);
  if ((i = sqlite3_bind_parameter_index(st, ":base"))) sqlite3_bind_int64(st, i, p->base);
  if ((i = sqlite3_bind_parameter_index(st, ":last"))) sqlite3_bind_int64(st, i, p->last);
  if ((i = sqlite3_bind_parameter_index(st, ":seg_base"))) sqlite3_bind_int64(st, i, p->base);
  if ((i = sqlite3_bind_parameter_index(st, ":block_base")))
    sqlite3_bind_int64(st, i, p->base2);
  if ((i = sqlite3_bind_parameter_index(st, ":run")))
    sqlite3_bind_text(st, i, p->run, -1, SQLITE_STATIC);
  if ((i = sqlite3_bind_parameter_index(st, ":rank"))) sqlite3_bind_int64(st, i, p->rank);
  if ((i = sqlite3_bind_parameter_index(st, ":rank_source")))
    sqlite3_bind_text(st, i, p->rank_source, -1, SQLITE_STATIC);
  return 0;
}

/* Run every statement of sql with the parameters bound.  0 or -1 (printed). */
static int exec_script(sqlite3 *db, const char *sql, const ex_params *p) {
  if (ld_run_script(db, sql, bind_params, p) == 0) return 0;
  fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
  return -1;
}

/* ---- files ------------------------------------------------------------------ */

/* Unlink dir/name; 0 when done or already gone. */
static int remove_in(const char *dir, const char *name) {
  size_t len = strlen(dir) + strlen(name) + 2;
  char *path = malloc(len);
  if (!path) {
    errno = ENOMEM;
    return -1;
  }
  snprintf(path, len, "%s/%s", dir, name);
  int rc = unlink(path) && errno != ENOENT ? -1 : 0;
  free(path);
  return rc;
}

/* A run name becomes a folder name: letters, digits and ". _ - +" only. */
static int path_safe(const char *s) {
  if (!*s || !strcmp(s, ".") || !strcmp(s, "..")) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          strchr("._-+", *s)))
      return 0;
  return 1;
}

typedef struct ex_ctx {
  sqlite3 *db;
  const ex_options *o;
  ex_result *res;
  FILE *msg;
  ex_files files; /* the current artifact's files, for its record */
} ex_ctx;

/* 1 when s is exactly a decimal integer that fits INT64 ("25738", "-3";
** not "", "+1", " 7", "07x" or "1e3"), with its value in *v. */
static int decimal_text(const char *s, long long *v) {
  if (!s) return 0;
  const char *d = s + (*s == '-');
  if (*d < '0' || *d > '9') return 0;
  char *end;
  errno = 0;
  *v = strtoll(s, &end, 10);
  return !*end && !errno;
}

/* Convert the statement's column i into the writer's column i: 0, or 1
** when its value does not fit the column's type (left NULL, counted as a
** warning: Requirement 2). */
static int put_value(ex_ctx *x, pq_writer *w, sqlite3_stmt *st, int i, pq_type type) {
  int t = sqlite3_column_type(st, i);
  long long v;
  if (t == SQLITE_NULL) return 0;
  if (type == PQ_STRING) {
    const char *s = t == SQLITE_BLOB ? sqlite3_column_blob(st, i)
                                     : (const char *)sqlite3_column_text(st, i);
    pq_text(w, i, s ? s : "", (size_t)sqlite3_column_bytes(st, i));
  } else if (type == PQ_DOUBLE) {
    if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
      x->res->warnings++;
      return 1;
    }
    pq_double(w, i, sqlite3_column_double(st, i));
  } else if (t == SQLITE_INTEGER)
    pq_int64(w, i, sqlite3_column_int64(st, i));
  else if (t == SQLITE_FLOAT &&
           sqlite3_column_double(st, i) == (double)(int64_t)sqlite3_column_double(st, i))
    pq_int64(w, i, (int64_t)sqlite3_column_double(st, i));
  else if (t == SQLITE_TEXT && decimal_text((const char *)sqlite3_column_text(st, i), &v))
    pq_int64(w, i, v); /* an integer written as a string: "tid": "25738" */
  else {
    x->res->warnings++; /* other text in an integer column */
    return 1;
  }
  return 0;
}

/* Say which column's values did not fit its type (put_value): one line a
** column, with their count and the first of them. */
static void say_unfit(ex_ctx *x, const ex_table *t, const ex_params *p, const ex_cols *cols,
                      const int64_t *unfit, char (*first)[64]) {
  for (int i = 0; i < cols->n; i++)
    if (unfit[i])
      fprintf(x->msg,
              "profdb: export: %s: %s.%s: %lld values are not %s (the first: '%s'):"
              " written as NULL\n",
              p->label, t->name, cols->name[i], (long long)unfit[i],
              cols->type[i] == PQ_DOUBLE ? "numbers" : "integers", first[i]);
}

static void add_kv(pq_writer *w, const char *table, const ex_params *p) {
  char buf[64];
  pq_kv(w, "profdb.version", PROFDB_VERSION);
  snprintf(buf, sizeof buf, "%d", PROFDB_SCHEMA_VERSION);
  pq_kv(w, "profdb.schema_version", buf);
  snprintf(buf, sizeof buf, "%d", EX_EXPORT_VERSION);
  pq_kv(w, "profdb.export_version", buf);
  pq_kv(w, "profdb.table", table);
  pq_kv(w, "profdb.run", p->run);
  snprintf(buf, sizeof buf, "%lld", (long long)p->rank);
  pq_kv(w, "profdb.rank", buf);
  pq_kv(w, "profdb.rank_source", p->rank_source);
  pq_kv(w, "profdb.source", p->label);
  if (p->hash) pq_kv(w, "profdb.content_hash", p->hash);
}

/* DIR/part-NNNN.parquet.  A part is written under a temporary name of its
** folder (publish.h: mkstemp's, so that nothing planted there is
** followed), and published by a rename. */
static void part_path(char *out, size_t n, const char *dir, int part) {
  snprintf(out, n, "%s/part-%04d.parquet", dir, part);
}

/* The part number of a part's file name, published ("part-NNNN.parquet",
** *published = 1) or temporary (".part-NNNN.parquet.*"), or -1. */
static long part_number(const char *name, int *published) {
  *published = name[0] != '.';
  if (!*published) name++;
  const char *d = name + 5, *end = d;
  if (strncmp(name, "part-", 5)) return -1;
  while (*end >= '0' && *end <= '9') end++;
  /* The names part_path writes: 4 digits, more only without a leading 0. */
  if (end - d < 4 || (end - d > 4 && *d == '0') || strncmp(end, ".parquet", 8) ||
      (*published && end[8]))
    return -1;
  return strtol(d, NULL, 10);
}

/* After publishing parts 0..parts-1 in dir: remove the parts from parts on
** that an earlier export of more rows wrote, and the temporary files of
** any part that killed runs left (pub_remove_temps).  0, or -1 when a
** stale part cannot be removed (engines would read it as data). */
static int remove_stale_parts(const char *dir, int parts) {
  DIR *d = opendir(dir);
  if (!d) return errno == ENOENT ? 0 : -1;
  int rc = 0, fail = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    int published;
    long k = part_number(e->d_name, &published);
    char name[64];
    if (k < 0) continue;
    if (published && k >= parts && remove_in(dir, e->d_name) && !rc) {
      rc = -1;
      fail = errno;
    }
    snprintf(name, sizeof name, "part-%04ld.parquet", k);
    if (!published && pub_is_temp(e->d_name, name)) pub_remove_temps(dir, name);
  }
  closedir(d);
  errno = fail;
  return rc;
}

/* The parts of one table begun so far: part k's temporary is f[k]. */
typedef struct ex_parts {
  pub_file *f;
  int n, cap;
} ex_parts;

/* Begin the next part at final (its temporary).  The writer, or NULL with
** the reason in why. */
static pq_writer *open_part(ex_ctx *x, ex_parts *ps, const char *final, char *why,
                            size_t nwhy) {
  if (ps->n == ps->cap) {
    int cap = ps->cap ? ps->cap * 2 : 4;
    pub_file *f = realloc(ps->f, (size_t)cap * sizeof *f);
    if (!f) {
      snprintf(why, nwhy, "out of memory");
      errno = ENOMEM;
      return NULL;
    }
    ps->f = f;
    ps->cap = cap;
  }
  pub_file *p = &ps->f[ps->n];
  if (pub_open(p, final, 0)) {
    snprintf(why, nwhy, "%s", strerror(errno));
    return NULL;
  }
  ps->n++;
  FILE *f = pub_stream(p);
  pq_writer *w =
      f ? pq_open_file(f, x->o->uncompressed ? PQ_UNCOMPRESSED : PQ_ZSTD, why, nwhy) : NULL;
  if (!f) snprintf(why, nwhy, "%s", strerror(errno));
  return w;
}

/* Finish the part *w (its rows added to *rows), the last of ps, on disk
** and closed; *w is NULL after.  0, or -1 with the reason in why (the
** writer's err buffer). */
static int close_part(ex_ctx *x, ex_parts *ps, pq_writer **w, int64_t *rows, char *why,
                      size_t nwhy) {
  pq_writer *done = *w;
  *w = NULL;
  *rows += pq_rows(done);
  if (pq_close(done) == 0 && pub_finish(&ps->f[ps->n - 1]) == 0) return 0;
  if (!*why) snprintf(why, nwhy, "write: %s", strerror(errno));
  x->res->retryable = ex_retryable(errno);
  return -1;
}

/* Publish the parts part by part, then remove what an earlier export
** left: parts past this one's last (all when the table has no rows for
** the artifact) and the temporary files of a killed run.  A rename
** failing at part k removes the earlier export's parts from k on, so that
** the folder holds this export's first k parts, not a mix of two exports.
** rc: the export's so far (when not 0, only the clean-up).  0 or -1 with
** err set. */
static int publish_parts(ex_ctx *x, const char *dir, ex_parts *ps, int rc, char *err,
                         size_t nerr) {
  int published = 0;
  while (rc == 0 && published < ps->n) {
    pub_file *p = &ps->f[published];
    char *final = strdup(p->path);
    if (!final || pub_rename(p)) {
      snprintf(err, nerr, "%s: %s", final ? final : p->path, strerror(errno));
      x->res->retryable = ex_retryable(errno);
      free(final);
      rc = -1;
      break;
    }
    struct stat sb;
    int sized = stat(final, &sb) == 0;
    if (sized) x->res->bytes += sb.st_size;
    ex_files_add(&x->files, final + strlen(x->o->dir) + 1, sized ? sb.st_size : -1);
    free(final);
    published++;
  }
  x->res->files += published;
  if (dir && (rc == 0 || published) && remove_stale_parts(dir, published) && rc == 0) {
    snprintf(err, nerr, "%s: %s", dir, strerror(errno));
    x->res->retryable = ex_retryable(errno);
    rc = -1;
  }
  for (int k = published; k < ps->n; k++) pub_abort(&ps->f[k]);
  return rc;
}

/* Check the table's query against its "-- Output:" header; prepared into
** *st.  0 or -1 (printed). */
static int prepare_table(ex_ctx *x, const ex_table *t, ex_cols *cols, sqlite3_stmt **st) {
  if (parse_output(t->sql, cols)) {
    fprintf(stderr, "profdb: export: export/dataset/%s.sql: malformed -- Output: header\n",
            t->name);
    return -1;
  }
  if (sqlite3_prepare_v2(x->db, t->sql, -1, st, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: export: %s: %s\n", t->name, sqlite3_errmsg(x->db));
    return -1;
  }
  if (sqlite3_column_count(*st) != cols->n) {
    fprintf(stderr, "profdb: export: %s: the query has %d columns, its header %d\n", t->name,
            sqlite3_column_count(*st), cols->n);
    sqlite3_finalize(*st);
    return -1;
  }
  for (int i = 0; i < cols->n; i++)
    if (strcmp(sqlite3_column_name(*st, i), cols->name[i])) {
      fprintf(stderr, "profdb: export: %s: column %d is %s, its header says %s\n", t->name,
              i + 1, sqlite3_column_name(*st, i), cols->name[i]);
      sqlite3_finalize(*st);
      return -1;
    }
  return 0;
}

/* Export one table of one artifact.  0 or -1 (printed). */
static int export_table(ex_ctx *x, const ex_table *t, const ex_params *p) {
  ex_cols cols;
  sqlite3_stmt *st;
  if (prepare_table(x, t, &cols, &st)) return -1;
  bind_params(st, p);

  size_t n = strlen(x->o->dir) + strlen(t->name) + strlen(p->run) + 128;
  char *dir = malloc(n), *final = malloc(n + 64);
  char err[600] = "", why[300] = ""; /* err: "PATH: why" */
  pq_writer *w = NULL;
  ex_parts parts = {0};
  int64_t unfit[EX_MAXCOL] = {0}; /* values put_value left NULL, by column */
  char first[EX_MAXCOL][64];      /* the first of them */
  int rc = 0, src = SQLITE_DONE;
  int64_t rows = 0, limit = x->o->file_bytes > 0 ? x->o->file_bytes : EX_FILE_BYTES;
  if (!dir || !final) {
    snprintf(err, sizeof err, "%s: out of memory", t->name);
    rc = -1;
  } else
    snprintf(dir, n, "%s/%s/run=%s/rank=%lld", x->o->dir, t->name, p->run, (long long)p->rank);
  while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
    if (!w) {
      if (!parts.n && ex_mkdirs(dir)) {
        snprintf(err, sizeof err, "%s: %s", dir, strerror(errno));
        x->res->retryable = ex_retryable(errno);
        rc = -1;
        break;
      }
      part_path(final, n + 64, dir, parts.n);
      if (!(w = open_part(x, &parts, final, why, sizeof why))) {
        x->res->retryable = ex_retryable(errno);
        rc = -1;
        break;
      }
      for (int i = 0; i < cols.n; i++) pq_column(w, cols.name[i], cols.type[i]);
      if (x->o->group_rows) pq_group_rows(w, x->o->group_rows);
      add_kv(w, t->name, p);
    }
    for (int i = 0; i < cols.n; i++)
      if (put_value(x, w, st, i, cols.type[i]) && !unfit[i]++) {
        const char *v = (const char *)sqlite3_column_text(st, i);
        snprintf(first[i], sizeof first[i], "%s", v ? v : "");
      }
    int64_t before = pq_bytes(w);
    if (pq_end_row(w)) {
      x->res->retryable = ex_retryable(errno);
      rc = -1;
      break;
    }
    /* The row ended a row group that took the file past the limit: this
    ** part is done (checked only then: the magic alone is 4 bytes). */
    if (pq_bytes(w) > before && pq_bytes(w) >= limit &&
        close_part(x, &parts, &w, &rows, why, sizeof why)) {
      rc = -1;
      break;
    }
  }
  if (rc == 0 && src != SQLITE_DONE) {
    snprintf(err, sizeof err, "%s: %s", t->name, sqlite3_errmsg(x->db));
    rc = -1;
  }
  sqlite3_finalize(st);
  say_unfit(x, t, p, &cols, unfit, first);
  if (rc == 0 && w && close_part(x, &parts, &w, &rows, why, sizeof why)) rc = -1;
  if (rc && !*err) snprintf(err, sizeof err, "%s: %s", final, *why ? why : "cannot write");
  if (w) pq_abort(w);
  rc = publish_parts(x, dir, &parts, rc, err, sizeof err);
  if (rc == 0) x->res->rows += rows;
  if (rc) fprintf(stderr, "profdb: export: %s\n", err);
  free(parts.f);
  free(dir);
  free(final);
  return rc;
}

/* DIR/_summary/run=R/rank=N.db: what profdb report DIR reads (export_summary.c). */
static int export_summary(ex_ctx *x, const ex_params *p) {
  size_t n = strlen(x->o->dir) + strlen(p->run) + 32;
  char *folder = malloc(n), err[300] = "";
  if (!folder) {
    fprintf(stderr, "profdb: export: out of memory\n");
    return -1;
  }
  snprintf(folder, n, "%s/_summary/run=%s", x->o->dir, p->run);
  int rc = ex_mkdirs(folder);
  if (rc) snprintf(err, sizeof err, "%s", strerror(errno));
  if (rc == 0)
    rc = ex_write_summary(x->db, folder, &(ex_summary_trace){p->id, p->base, p->last, p->rank},
                          x->o->run, err, sizeof err);
  if (rc == 0) {
    char rel[400];
    snprintf(rel, sizeof rel, "_summary/run=%s/rank=%lld.db.zst", p->run, (long long)p->rank);
    ex_files_add(&x->files, rel, -1); /* a summary holds its load's time: no size */
  }
  if (rc) {
    x->res->retryable = ex_retryable(errno);
    fprintf(stderr, "profdb: export: %s/rank=%lld.db: %s\n", folder, (long long)p->rank, err);
  }
  free(folder);
  return rc;
}

static int wanted(const ex_options *o, const char *table) {
  if (!o->only) return 1;
  for (int i = 0; i < o->nonly; i++)
    if (!strcmp(o->only[i], table)) return 1;
  return 0;
}

/* Artifacts already written in this export: (run, rank) must be unique. */
typedef struct ex_seen {
  char (*key)[160];
  int n, cap;
} ex_seen;

static int seen_before(ex_seen *s, const char *kind, const ex_params *p) {
  char key[160];
  snprintf(key, sizeof key, "%s/%s/%lld", kind, p->run, (long long)p->rank);
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->key[i], key)) return 1;
  if (s->n == s->cap) {
    int cap = s->cap ? s->cap * 2 : 64;
    void *k = realloc(s->key, (size_t)cap * sizeof *s->key);
    if (!k) return 0;
    s->key = k;
    s->cap = cap;
  }
  memcpy(s->key[s->n++], key, sizeof key);
  return 0;
}

/* The artifact's content hash (returned, malloc'd), its bytes on disk and
** a warning when it was cut short (its load warned), into r. */
static char *artifact_facts(ex_ctx *x, int snapshot, int64_t id, ex_record *r) {
  sqlite3_stmt *h;
  char *hash = NULL;
  const char *sql = snapshot ? "SELECT content_hash, file_bytes, status <> 'ok' FROM snapshot"
                               " WHERE snapshot_id = ?"
                             : "SELECT content_hash, file_bytes, status <> 'ok' FROM trace"
                               " WHERE trace_id = ?";
  if (sqlite3_prepare_v2(x->db, sql, -1, &h, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(h, 1, id);
    if (sqlite3_step(h) == SQLITE_ROW && sqlite3_column_text(h, 0)) {
      hash = strdup((const char *)sqlite3_column_text(h, 0));
      r->file_bytes = sqlite3_column_int64(h, 1);
      r->warnings = sqlite3_column_int(h, 2);
    }
    sqlite3_finalize(h);
  }
  /* Records are a task's: its load gets --run when given, so a run not
  ** from --run is derived (_traces.sql, _snapshots.sql). */
  r->run_source = x->o->run ? "option" : "derived";
  r->content_hash = hash;
  return hash;
}

/* Export one artifact's tables (and a trace's summary) between removing
** its record and publishing the new one (export_record.c): a record never
** names files another export may be replacing.  warnings: the count before
** this artifact.  0 or -1 (printed). */
static int export_artifact(ex_ctx *x, int snapshot, const ex_params *p, ex_record *rec,
                           int64_t warnings) {
  int rc = 0;
  x->files.text.n = 0;
  x->files.incomplete = 0;
  if (ex_record_forget(x->o->dir, rec->kind, p->run, p->rank)) {
    int e = errno;
    fprintf(stderr, "profdb: export: %s/_inputs/%s/run=%s/rank=%lld.json: %s\n", x->o->dir,
            rec->kind, p->run, (long long)p->rank, strerror(e));
    x->res->retryable = ex_retryable(e);
    return -1;
  }
  if (snapshot) rc = exec_script(x->db, profdb_export__stacks, p);
  for (int t = 0; rc == 0 && t < EX_NTABLES; t++)
    if (ex_tables[t].snapshot == snapshot && wanted(x->o, ex_tables[t].name))
      rc = export_table(x, &ex_tables[t], p);
  if (rc == 0 && !snapshot && x->o->nonly == 0) rc = export_summary(x, p);
  char key[1024];
  /* No record (the input is then never skipped) but from a task, whose
  ** load is this build's (a database may have been loaded by another), and
  ** without a hash, a file list or a build to name. */
  if (rc || !x->o->record_inputs || !rec->content_hash || x->files.incomplete ||
      ex_options_key(x->o, key, sizeof key))
    return rc;
  rec->options = key;
  rec->warnings += x->res->warnings - warnings;
  if (ex_record_publish(x->o->dir, rec, &x->files)) {
    int e = errno;
    fprintf(stderr, "profdb: export: %s/_inputs/%s/run=%s/rank=%lld.json: %s\n", x->o->dir,
            rec->kind, p->run, (long long)p->rank, strerror(e));
    x->res->retryable = ex_retryable(e);
    return -1;
  }
  return 0;
}

/* Export the artifacts listed by list_sql (_traces.sql or _snapshots.sql). */
static int export_artifacts(ex_ctx *x, int snapshot, ex_seen *seen) {
  sqlite3_stmt *st;
  const char *list_sql = snapshot ? profdb_export__snapshots : profdb_export__traces;
  if (sqlite3_prepare_v2(x->db, list_sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(x->db));
    return -1;
  }
  if (x->o->run)
    sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":run"), x->o->run, -1,
                      SQLITE_STATIC);
  int rc = 0, src, k = 0;
  long long total = ld_query_int(
      x->db, snapshot ? "SELECT count(*) FROM snapshot" : "SELECT count(*) FROM trace", 0);
  while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
    ex_params p = {.snapshot = snapshot};
    char what[160];
    snprintf(what, sizeof what, "export: %s %d of %lld", snapshot ? "snapshot" : "trace", ++k,
             total);
    progress_phase(what);
    ex_record rec = {.kind = snapshot ? "snapshot" : "trace"};
    int64_t warnings = x->res->warnings;
    p.id = sqlite3_column_int64(st, 0);
    p.label = (const char *)sqlite3_column_text(st, 1);
    p.run = (const char *)sqlite3_column_text(st, 2);
    if (!snapshot) { /* the rank its load decided (loader/rank.c) */
      p.rank_source = (const char *)sqlite3_column_text(st, 3);
      p.rank = sqlite3_column_int64(st, 4);
      p.base = sqlite3_column_int64(st, 5);
      p.last = sqlite3_column_int64(st, 6);
    } else {
      p.base = sqlite3_column_int64(st, 3);
      p.base2 = sqlite3_column_int64(st, 4);
      p.rank = sqlite3_column_int64(st, 5);
      p.rank_source = (const char *)sqlite3_column_text(st, 6);
    }
    char *hash = artifact_facts(x, snapshot, p.id, &rec);
    if (!snapshot) p.hash = hash; /* in the trace's files' metadata */
    if (!p.run || !path_safe(p.run)) {
      fprintf(stderr,
              "profdb: export: %s: run name '%s' cannot be a folder name (letters,"
              " digits, '.', '_', '-', '+' only): give --run NAME\n",
              p.label, p.run ? p.run : "");
      rc = -1;
    } else if (p.rank < 0) {
      fprintf(stderr, "profdb: export: %s: negative rank %lld\n", p.label, (long long)p.rank);
      rc = -1;
    } else if (seen_before(seen, snapshot ? "snapshot" : "trace", &p)) {
      x->res->warnings++;
      fprintf(x->msg,
              "profdb: export: %s: run %s already has a %s of rank %lld: not exported"
              " (give --run NAME to tell the runs apart)\n",
              p.label, p.run, snapshot ? "snapshot" : "trace", (long long)p.rank);
    } else {
      rec.run = p.run;
      rec.label = p.label;
      rec.rank = p.rank;
      rec.rank_source = p.rank_source;
      rc = export_artifact(x, snapshot, &p, &rec, warnings);
    }
    free(hash);
  }
  if (rc == 0 && src != SQLITE_DONE) {
    fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(x->db));
    rc = -1;
  }
  sqlite3_finalize(st);
  return rc;
}

/* XXH64 of the file that holds this code, as hex: the profdb program
** (/proc/self/exe: dladdr names it by argv[0], which may be a bare name
** found on PATH, or a file of that name in the working directory), or the
** Python module that links it (its path as loaded).  The same version
** number has exported differently from one commit to the next.  NULL when
** unknown. */
static const char *build_id(void) {
  static char id[17];
  static int done;
  if (!done) {
    Dl_info info;
    struct link_map *map = NULL;
    const char *path = NULL;
    if (dladdr1((void *)build_id, &info, (void **)&map, RTLD_DL_LINKMAP) && map)
      path = map->l_name && map->l_name[0] == '/' ? map->l_name
             : !map->l_name || !map->l_name[0]    ? "/proc/self/exe"
                                                  : NULL;
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f) {
      ld_hash h;
      char buf[1 << 16];
      size_t n;
      hash_init(&h);
      while ((n = fread(buf, 1, sizeof buf, f)) > 0) hash_update(&h, buf, n);
      if (!ferror(f)) snprintf(id, sizeof id, "%016llx", (unsigned long long)hash_final(&h));
      fclose(f);
    }
    done = 1;
  }
  return id[0] ? id : NULL;
}

int ex_options_key(const ex_options *o, char *out, size_t n) {
  char tables[600] = "";
  size_t len = 0;
  for (int t = 0; o->only && t < EX_NTABLES; t++) /* in ex_tables' order */
    if (wanted(o, ex_tables[t].name) && len + strlen(ex_tables[t].name) + 2 < sizeof tables)
      len += (size_t)snprintf(tables + len, sizeof tables - len, "%s%s", len ? "," : "",
                              ex_tables[t].name);
  char rank[32] = "auto";
  if (o->have_rank) snprintf(rank, sizeof rank, "%lld", o->rank);
  const char *build = build_id();
  /* The libraries are linked dynamically: an upgrade of one may change what
  ** is parsed, stored or written. */
  snprintf(out, n,
           "profdb %s; build %s; schema %d; export version %d; sqlite %s; yajl %d; zlib %s;"
           " zstd %s; run %s; rank %s; tables %s; compression %s; file bytes %lld;"
           " group rows %lld",
           PROFDB_VERSION, build ? build : "unknown", PROFDB_SCHEMA_VERSION, EX_EXPORT_VERSION,
           sqlite3_sourceid(), yajl_version(), zlibVersion(), ZSTD_versionString(),
           o->run ? o->run : "auto", rank, o->only ? tables : "all",
           o->uncompressed ? "none" : "zstd",
           (long long)(o->file_bytes > 0 ? o->file_bytes : EX_FILE_BYTES),
           (long long)(o->group_rows > 0 ? o->group_rows : PQ_GROUP_ROWS));
  return build ? 0 : -1;
}

int ex_check_tables(const ex_options *o) {
  for (int i = 0; i < o->nonly; i++) {
    int t = 0;
    while (t < EX_NTABLES && strcmp(ex_tables[t].name, o->only[i])) t++;
    if (t == EX_NTABLES) {
      fprintf(stderr, "profdb: export: no table '%s'\n", o->only[i]);
      return -1;
    }
  }
  return 0;
}

int ex_export(sqlite3 *db, const ex_options *o, ex_result *res) {
  memset(res, 0, sizeof *res);
  ex_ctx x = {.db = db, .o = o, .res = res, .msg = o->messages ? o->messages : stderr};
  if (ex_check_tables(o)) return -1;
  /* The database may be anyone's: the export reads its tables and profdb's
  ** views only when they are profdb's own (no SQL text of it runs). */
  const char *file = sqlite3_db_filename(db, "main");
  char why[512];
  if (file && *file && ld_check_schema_file(file, why, sizeof why)) {
    fprintf(stderr, "profdb: export: %s: %s; load the traces again into a new database\n", file,
            why);
    return -1;
  }
  char *dir = strdup(o->dir);
  if (!dir || ex_mkdirs(dir)) {
    fprintf(stderr, "profdb: export: %s: %s\n", o->dir, strerror(errno));
    res->retryable = dir && ex_retryable(errno);
    free(dir);
    return -1;
  }
  free(dir);
  ex_seen seen = {0};
  /* One read transaction: the database cannot change between tables. */
  sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  int rc = exec_script(db, profdb_export__stack_table, &(ex_params){.snapshot = 1});
  /* The summaries' rowid ranges (all tables exported: summaries written). */
  if (rc == 0 && o->nonly == 0)
    rc = exec_script(db, profdb_export__summary_rowids, &(ex_params){0});
  /* The report's steps, warm-up flagged (queries/lib/05_steps.sql; every
  ** trace: :trace_id NULL), for the step table's warmup and analysed. */
  if (rc == 0 && ld_run_script(db, profdb_report_steps_sql, NULL, NULL)) {
    fprintf(stderr, "profdb: export: the report's steps: %s\n", sqlite3_errmsg(db));
    rc = -1;
  }
  /* The critical path's replays, which each summary carries (every trace:
  ** export_replay.c). */
  if (rc == 0 && o->nonly == 0 && ex_replay_build(db)) {
    fprintf(stderr, "profdb: export: the critical path's replays: %s\n", sqlite3_errmsg(db));
    rc = -1;
  }
  if (rc == 0) rc = export_artifacts(&x, 0, &seen);
  if (rc == 0) rc = export_artifacts(&x, 1, &seen);
  sqlite3_exec(db, "DROP TABLE IF EXISTS temp.summary_rowids", NULL, NULL, NULL);
  ex_replay_drop(db); /* and lib/05's report_trace, report_step_all */
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  free(seen.key);
  ld_buf_free(&x.files.text);
  return rc;
}
