/*
** load.c — profdb_load(): inputs -> parsers -> post-pass.
**
** profdb_load() is "begin, load, commit, else abort": the atomic update of
** the database file (lock, temporary or side database, rename, copy-in or
** merge, the original left byte for byte after any failure) is dbswap.c's;
** this file loads into the connection it gives.
**
** Requirement 3 (duplicates): a file whose decompressed content is already
**   in the database is skipped, or replaced with --replace.  When
**   appending, it is looked up in the original too, and an original's
**   artifact to replace is deleted in the merge (side_replace()).
** Requirement 4 (directories): a directory loads the *.json and *.json.gz
**   files directly inside it, in name order.  Symbolic links inside the
**   directory are skipped with a warning (name them explicitly to load
**   them), so a directory never leads profdb outside itself.
** (Requirements 1, 2 and 2b, atomic, one writer, other programs: dbswap.c.)
*/
#include "loader.h"
#include "oom.h"
#include "flows.h"
#include "nest.h"
#include "clock.h"
#include "dbswap.h"
#include "hash.h"
#include "progress.h"
#include "sql.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void report_file_error(FILE *out, const ld_file *f) {
  progress_clear();
  if (f->has_offset)
    fprintf(out, "profdb: %s:%llu: %s\n", f->path, (unsigned long long)f->err_offset,
            f->message);
  else
    fprintf(out, "profdb: %s: %s\n", f->path, f->message);
}

/* ---- inputs ------------------------------------------------------------- */

typedef struct path_list {
  char **v;
  unsigned char *found; /* 1: found in a directory (not named by the user) */
  int n, cap;
} path_list;

static void path_add_from(path_list *l, const char *p, int found) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
    l->found = realloc(l->found, (size_t)l->cap);
    if (!l->v || !l->found) ld_oom();
  }
  l->found[l->n] = (unsigned char)found;
  l->v[l->n++] = strdup(p);
}

static void path_add(path_list *l, const char *p) {
  path_add_from(l, p, 0);
}

static int is_pickle_name(const char *name) {
  size_t n = strlen(name);
  return (n > 7 && !strcmp(name + n - 7, ".pickle")) ||
         (n > 4 && !strcmp(name + n - 4, ".pkl"));
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_trace_name(const char *name) {
  size_t n = strlen(name);
  return (n > 5 && !strcmp(name + n - 5, ".json")) ||
         (n > 8 && !strcmp(name + n - 8, ".json.gz"));
}

/* Expand directories; returns -1 when an argument cannot be read. */
static int expand_inputs(FILE *out, const char *const *paths, int n, path_list *l) {
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR *d = opendir(paths[i]);
      if (!d) {
        ld_say(out, "%s: cannot open directory: %s", paths[i], strerror(errno));
        return -1;
      }
      path_list found = {0};
      struct dirent *e;
      while ((e = readdir(d))) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", paths[i], e->d_name);
        if (e->d_name[0] != '.' && is_pickle_name(e->d_name))
          ld_say(out,
                 "%s: warning: skipping a pickle (profdb never unpickles files; save"
                 " the snapshot as JSON: json.dump(torch.cuda.memory._snapshot(), f))",
                 full);
        if (e->d_name[0] == '.' || !is_trace_name(e->d_name)) continue;
        struct stat lst;
        if (lstat(full, &lst) != 0) continue;
        if (S_ISLNK(lst.st_mode)) {
          ld_say(out, "%s: warning: skipping symbolic link (name it explicitly to load it)",
                 full);
          continue;
        }
        if (S_ISREG(lst.st_mode)) path_add(&found, full);
      }
      closedir(d);
      if (found.n == 0)
        ld_say(out, "%s: warning: no *.json or *.json.gz files in directory", paths[i]);
      if (found.n) qsort(found.v, (size_t)found.n, sizeof *found.v, cmp_str);
      for (int k = 0; k < found.n; k++) {
        path_add_from(l, found.v[k], 1);
        free(found.v[k]);
      }
      free(found.v);
      free(found.found);
    } else {
      path_add(l, paths[i]); /* errors are reported when it is opened */
    }
  }
  return 0;
}

/* ---- database helpers --------------------------------------------------- */

/* Intern the strings already stored.  A side database gets a copy of the
** original's _string rows as well: the post-pass SQL reads names by id
** (ProfilerStep#N, process_name, ...), old ids included. */
static int seed_strings(ld_ctx *ctx) {
  sqlite3_stmt *st, *copy = NULL;
  if (sqlite3_prepare_v2(ctx->existing, "SELECT id, value FROM _string", -1, &st, NULL) !=
      SQLITE_OK)
    return -1;
  if (ctx->existing != ctx->db &&
      sqlite3_prepare_v2(ctx->db, "INSERT INTO _string(id, value) VALUES(?1, ?2)", -1, &copy,
                         NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return -1;
  }
  int rc = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
    intern_seed(ctx->strings, sqlite3_column_int64(st, 0),
                (const char *)sqlite3_column_text(st, 1), (size_t)sqlite3_column_bytes(st, 1));
    if (!copy) continue;
    sqlite3_bind_value(copy, 1, sqlite3_column_value(st, 0));
    sqlite3_bind_value(copy, 2, sqlite3_column_value(st, 1));
    rc = sqlite3_step(copy) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(copy);
  }
  sqlite3_finalize(st);
  sqlite3_finalize(copy);
  return rc;
}

/* ---- duplicates --------------------------------------------------------- */

/* gzip ISIZE: uncompressed size mod 2^32 of the last member. */
static int64_t gzip_isize(const ld_input *in) {
  unsigned char t[4];
  if (in->file_size < 18) return -1;
  if (pread(in->fd, t, 4, (off_t)in->file_size - 4) != 4) return -1;
  return (int64_t)((uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
                   (uint32_t)t[3] << 24);
}

/* One input's duplicate test against the artifacts loaded before it, in
** the database or in memory: an artifact is a candidate by its sizes (the
** same decompressed size; for a gzip file the size mod 2^32 its trailer
** gives, or the same file size), and only then is the file hashed, once
** for all the places looked in. */
typedef struct dup_probe {
  ld_file *f;
  int64_t isize;   /* a gzip file's trailer size, else -1 */
  char hash[17];   /* the content's hash, once computed */
  int hash_failed; /* the file could not be read again */
} dup_probe;

static int same_content(dup_probe *p, int64_t json_bytes, int64_t file_bytes,
                        const char *content_hash) {
  const ld_file *f = p->f;
  int64_t size = (int64_t)f->in.file_size;
  if (!(f->in.gzip ? json_bytes % 4294967296 == p->isize || file_bytes == size
                   : json_bytes == size))
    return 0;
  if (!p->hash[0] && !p->hash_failed && input_content_hash(f->path, p->hash))
    p->hash_failed = 1;
  return !p->hash_failed && content_hash && !strcmp(p->hash, content_hash);
}

/* The id of an artifact of the probe's kind in db with the same content,
** 0 if none. */
static int64_t find_duplicate(sqlite3 *db, dup_probe *p) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          db,
          p->f->kind == LD_KIND_TRACE
              ? "SELECT trace_id, json_bytes, file_bytes, content_hash FROM trace"
              : "SELECT snapshot_id, json_bytes, file_bytes, content_hash"
                " FROM snapshot",
          -1, &st, NULL) != SQLITE_OK)
    return 0;
  int64_t found = 0;
  while (!found && !p->hash_failed && sqlite3_step(st) == SQLITE_ROW)
    if (same_content(p, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
                     (const char *)sqlite3_column_text(st, 3)))
      found = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return found;
}

/* The same over this load's artifacts (ctx->artifacts): the writer thread
** may be using the database. */
static int64_t find_loaded_duplicate(const ld_ctx *ctx, dup_probe *p) {
  for (int i = 0; i < ctx->nartifacts && !p->hash_failed; i++) {
    const ld_artifact *a = &ctx->artifacts[i];
    if (a->kind == p->f->kind && same_content(p, a->json_bytes, a->file_bytes, a->content_hash))
      return a->id;
  }
  return 0;
}

/* The database holds artifacts of f's kind from before this load (profdb's
** API loads into a database in place; the command loads into a new one or
** a side database): they are looked up there, with the writer drained. */
static int has_earlier_artifacts(const ld_ctx *ctx, ld_kind kind) {
  return ctx->existing == ctx->db &&
         (kind == LD_KIND_TRACE ? ctx->first_trace_id : ctx->first_snapshot_id) > 1;
}

/* Record what the artifact's row will hold for the duplicate checks of
** the files after it (ld_finish_artifact writes the same). */
static int remember_artifact(ld_ctx *ctx, const ld_file *f) {
  if (ctx->nartifacts == ctx->cap_artifacts) {
    int cap = ctx->cap_artifacts ? 2 * ctx->cap_artifacts : 16;
    ld_artifact *a = realloc(ctx->artifacts, (size_t)cap * sizeof *a);
    if (!a) return -1;
    ctx->artifacts = a;
    ctx->cap_artifacts = cap;
  }
  ld_artifact *a = &ctx->artifacts[ctx->nartifacts++];
  a->kind = f->kind;
  a->id = f->artifact_id;
  a->gzip = f->in.gzip;
  a->file_bytes = (int64_t)f->in.file_size;
  a->json_bytes = (int64_t)f->in.delivered;
  snprintf(a->content_hash, sizeof a->content_hash, "%016llx",
           (unsigned long long)hash_final(&f->in.hash));
  return 0;
}

static void forget_artifact(ld_ctx *ctx, ld_kind kind, int64_t id) {
  for (int i = 0; i < ctx->nartifacts; i++)
    if (ctx->artifacts[i].kind == kind && ctx->artifacts[i].id == id) {
      memmove(ctx->artifacts + i, ctx->artifacts + i + 1,
              (size_t)(ctx->nartifacts - i - 1) * sizeof *ctx->artifacts);
      ctx->nartifacts--;
      return;
    }
}

/* The next id of kind: after every artifact of this load (and with
** earlier, after those in ctx->db before it, even those --replace
** deleted; the writer drained), never below the load's first (the
** post-pass derives tables from there on). */
static int64_t next_artifact_id(ld_ctx *ctx, ld_kind kind, int earlier) {
  int64_t next = kind == LD_KIND_TRACE ? ctx->first_trace_id : ctx->first_snapshot_id;
  for (int i = 0; i < ctx->nartifacts; i++)
    if (ctx->artifacts[i].kind == kind && ctx->artifacts[i].id >= next)
      next = ctx->artifacts[i].id + 1;
  if (earlier) {
    int64_t after =
        ld_query_int(ctx->db,
                     kind == LD_KIND_TRACE ? "SELECT max(trace_id) FROM trace"
                                           : "SELECT max(snapshot_id) FROM snapshot",
                     0) +
        1;
    if (after > next) next = after;
  }
  return next;
}

/* The id of an artifact with f's content loaded before: in ctx->db before
** this load (earlier: the writer drained), by this load, or in the
** original of a side database (*in_original set then, unless --replace
** already replaces it).  0 when none. */
static int64_t any_duplicate(ld_ctx *ctx, ld_file *f, ld_side *side, int earlier,
                             int64_t *in_original) {
  dup_probe p = {.f = f, .isize = f->in.gzip ? gzip_isize(&f->in) : -1};
  int64_t dup = earlier ? find_duplicate(ctx->db, &p) : 0;
  if (!dup) dup = find_loaded_duplicate(ctx, &p);
  if (!dup && side) {
    *in_original = find_duplicate(side->original, &p);
    if (side_replacing(side, f->kind, *in_original)) *in_original = 0;
    dup = *in_original;
  }
  return dup;
}

/* ---- one file ----------------------------------------------------------- */

/* The artifact's row, with its rank from --rank or its name (rank.c; a
** trace's distributedInfo.rank replaces it in sql/trace_finish.sql),
** written on the writer thread before the file's rows. */
typedef struct artifact_row {
  ld_queued q;
  ld_kind kind;
  int64_t id;
  const char *path; /* the load's input list holds it */
  char label[256];
  int gzip;
  int64_t file_bytes;
  long long rank;
  const char *rank_source; /* a literal (rank.c) */
} artifact_row;

static int insert_artifact_row(sqlite3 *db, ld_queued *q) {
  const artifact_row *a = (const artifact_row *)q;
  const char *sql = a->kind == LD_KIND_TRACE
                        ? "INSERT INTO trace(trace_id, path, label, status, layout, gzip,"
                          " file_bytes, json_bytes, content_hash, loaded_by, rank, rank_source)"
                          " VALUES(?1, ?2, ?3, 'loading', 'object', ?4, ?5, 0, '', ?6, ?7, ?8)"
                        : "INSERT INTO snapshot(snapshot_id, path, label, status, layout, gzip,"
                          " file_bytes, json_bytes, content_hash, loaded_by, rank, rank_source)"
                          " VALUES(?1, ?2, ?3, 'loading', 'object', ?4, ?5, 0, '', ?6, ?7, ?8)";
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, a->id);
  sqlite3_bind_text(st, 2, a->path, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, a->label, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 4, a->gzip);
  sqlite3_bind_int64(st, 5, a->file_bytes);
  sqlite3_bind_text(st, 6, "profdb " PROFDB_VERSION, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 7, a->rank);
  sqlite3_bind_text(st, 8, a->rank_source, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  return rc;
}

static void release_artifact_row(ld_queued *q) {
  free(q);
}

static int queue_artifact_row(ld_ctx *ctx, ld_file *f, const char *label) {
  artifact_row *a = calloc(1, sizeof *a);
  if (!a) return -1;
  a->q.run = insert_artifact_row;
  a->q.release = release_artifact_row;
  a->kind = f->kind;
  a->id = f->artifact_id;
  a->path = f->path;
  snprintf(a->label, sizeof a->label, "%s", label);
  a->gzip = f->in.gzip;
  a->file_bytes = (int64_t)f->in.file_size;
  a->rank_source = ld_rank_of(f->path, ctx->opt, &a->rank);
  ld_queue(ctx, &a->q);
  return 0;
}

/* Load one file.  Returns a profdb_exit code; 0 also for a skipped
** duplicate (then *loaded stays 0).  side: see load_into. */
static int load_one(ld_ctx *ctx, const char *path, int found_in_dir, const char *label_opt,
                    int *loaded, ld_side *side) {
  FILE *out = ctx->msg;
  ld_reap(ctx, 0); /* the earlier files' jobs the writer thread finished */
  ld_file *f = calloc(1, sizeof *f);
  if (!f) return PROFDB_EXIT_USAGE;
  f->ctx = ctx;
  f->path = path;
  int code = PROFDB_EXIT_OK;
  if (input_open(&f->in, path, ctx->opt->chunk_size)) {
    ld_say(out, "%s: %s", path, f->in.message);
    code = PROFDB_EXIT_USAGE;
    goto done;
  }
  ld_sniff_result kind = ld_sniff(f);
  if (kind == SNIFF_NEITHER && found_in_dir) {
    /* Other JSON in a trace folder (config.json, metrics): not an input. */
    ld_say(out, "%s: warning: skipping: %s", path, f->message);
    goto done;
  }
  if (kind == SNIFF_NEITHER || kind == SNIFF_ERROR) {
    report_file_error(out, f);
    code = f->exit_code;
    goto done;
  }
  f->kind = kind == SNIFF_TRACE ? LD_KIND_TRACE : LD_KIND_SNAPSHOT;
  /* Loaded earlier in this call, or before it (in ctx->db when profdb's
  ** API loads in place, in the original when loading into a side
  ** database).  The writer thread owns ctx->db while it writes. */
  int earlier = has_earlier_artifacts(ctx, f->kind);
  if (earlier && writer_sync(ctx->w)) {
    ld_say(out, "%s: %s", path, writer_error(ctx->w));
    code = PROFDB_EXIT_USAGE;
    goto done;
  }
  int64_t in_original = 0, dup = any_duplicate(ctx, f, side, earlier, &in_original);
  if (dup && !ctx->opt->replace) {
    ld_say(out,
           "%s: already loaded as %s %lld (same content); skipped"
           " (use --replace to load it again)",
           path, f->kind == LD_KIND_TRACE ? "trace" : "snapshot", (long long)dup);
    goto done;
  }
  if (in_original) {
    side_replace(side, f->kind, in_original); /* deleted in the merge */
  } else if (dup && (writer_sync(ctx->w) || ld_delete_artifact(ctx, f->kind, dup))) {
    ld_say(out, "%s: cannot remove the earlier copy: %s", path,
           writer_error(ctx->w) ? writer_error(ctx->w) : sqlite3_errmsg(ctx->db));
    code = PROFDB_EXIT_USAGE;
    goto done;
  } else if (dup) {
    forget_artifact(ctx, f->kind, dup);
  }
  char label[256];
  if (label_opt)
    snprintf(label, sizeof label, "%s", label_opt);
  else
    ld_label_from_path(path, label, sizeof label);
  f->artifact_id = next_artifact_id(ctx, f->kind, earlier);
  if (queue_artifact_row(ctx, f, label)) {
    ld_say(out, "%s: out of memory", path);
    code = PROFDB_EXIT_USAGE;
    goto done;
  }
  int rc = f->kind == LD_KIND_TRACE ? trace_load(f) : snapshot_load(f);
  if (rc >= 0 && remember_artifact(ctx, f)) {
    ld_say(out, "%s: out of memory", path);
    code = PROFDB_EXIT_USAGE;
    goto done;
  }
  if (rc >= 0) *loaded = 1;
  if (rc < 0) {
    report_file_error(out, f);
    code = f->exit_code ? f->exit_code : PROFDB_EXIT_USAGE;
  } else if (rc == 1) {
    if (ctx->opt->strict) {
      fprintf(out, "profdb: %s:%llu: file ends early (truncated); refused (--strict)\n", path,
              (unsigned long long)f->truncated_at);
      code = PROFDB_EXIT_DATA;
    } else {
      fprintf(out,
              "profdb: %s:%llu: warning: file ends early (truncated); kept the"
              " complete %s read before that point, marked status='truncated'\n",
              path, (unsigned long long)f->truncated_at,
              f->kind == LD_KIND_TRACE ? "events" : "entries");
      code = PROFDB_EXIT_TRUNCATED;
    }
  }
done:
  input_close(&f->in);
  ld_buf_free(&f->scratch);
  free(f);
  return code;
}

/* SQLite progress handler: keep the progress line's seconds moving. */
static int redraw_progress(void *unused) {
  (void)unused;
  progress_tick();
  return 0; /* go on */
}

/* Read what this load continues from ctx->existing, in one read
** transaction: the strings in use and the next ids.  With side, note the
** original's data_version and the side tables' marks (dbswap.h). */
static int read_ids(ld_ctx *ctx, const char *db_name, ld_side *side) {
  sqlite3 *existing = ctx->existing;
  if ((side && sqlite3_exec(existing, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) ||
      seed_strings(ctx)) {
    ld_say(ctx->msg, "%s: cannot read the database: %s", db_name, sqlite3_errmsg(existing));
    return -1;
  }
  ctx->next_event_id =
      1 + ld_query_int(existing,
                       "SELECT max(m) FROM (SELECT max(id) AS m FROM _slice UNION ALL"
                       " SELECT max(id) FROM _gpu UNION ALL SELECT max(id) FROM _instant UNION"
                       " ALL SELECT max(id) FROM _flow UNION ALL SELECT max(id) FROM _meta)",
                       0);
  ctx->next_segment_id = 1 + ld_query_int(existing, "SELECT max(id) FROM _segment", 0);
  ctx->next_block_id = 1 + ld_query_int(existing, "SELECT max(id) FROM _block", 0);
  ctx->next_alloc_id = 1 + ld_query_int(existing, "SELECT max(id) FROM _alloc_event", 0);
  ctx->next_stack_id = 1 + ld_query_int(existing, "SELECT max(stack_id) FROM _stack_frame", 0);
  ctx->first_trace_id = 1 + ld_query_int(existing, "SELECT max(trace_id) FROM trace", 0);
  ctx->first_snapshot_id =
      1 + ld_query_int(existing, "SELECT max(snapshot_id) FROM snapshot", 0);
  if (!side) return 0;
  side->version = ld_query_int(existing, "PRAGMA data_version", -1);
  side->first_trace = ctx->first_trace_id;
  side->first_snapshot = ctx->first_snapshot_id;
  sqlite3_exec(existing, "COMMIT", NULL, NULL, NULL); /* a read: nothing to fail */
  return side_mark(side, ctx->db, ctx->msg);
}

/* The writer thread, with the sinks of the keys sorted for the post-pass. */
static int start_writer(ld_ctx *ctx) {
  char *err = NULL;
  ctx->w = writer_start(ctx->db, ctx->opt->threads ? ctx->opt->threads : 2, &err);
  if (!ctx->w) {
    ld_say(ctx->msg, "%s", err);
    sqlite3_free(err);
    return -1;
  }
  writer_sink(ctx->w, TB_FLOW_END, flows_sink, ctx->flows,
              "cannot write a temporary file to sort flows");
  return 0;
}

/* Parse every input (load_one).  Returns a profdb_exit code: the first
** failure's, else TRUNCATED when an input was cut short, else OK. */
static int parse_inputs(ld_ctx *ctx, const path_list *inputs, int *loaded, ld_side *side) {
  int code = PROFDB_EXIT_OK;
  ld_phase(ctx, NULL);
  for (int i = 0; i < inputs->n; i++) {
    progress_file(i + 1, inputs->n);
    int rc = load_one(ctx, inputs->v[i], inputs->found[i],
                      inputs->n == 1 ? ctx->opt->label : NULL, loaded, side);
    if (rc == PROFDB_EXIT_TRUNCATED) {
      code = rc;
      continue;
    }
    if (rc != PROFDB_EXIT_OK) return rc;
  }
  ld_phase(ctx, "parse");
  if (ld_timing()) {
    double producer_wait, writer_idle, calls;
    writer_waits(ctx->w, &producer_wait, &writer_idle, &calls);
    fprintf(stderr,
            "profdb: timing:   parser waited for the writer %.3f s, writer idle %.3f s\n",
            producer_wait, writer_idle);
  }
  return code;
}

/* After the parse: the last rows written, the post-pass, the run checks
** (without side: an append's wait for the merge) and the commit. */
static int finish_load(ld_ctx *ctx, const char *db_name, ld_side *side) {
  progress_phase("writing the last rows");
  int synced = writer_sync(ctx->w);
  ld_reap(ctx, 1);
  if (synced) {
    ld_say(ctx->msg, "%s: %s", db_name, writer_error(ctx->w));
    return -1;
  }
  ld_phase(ctx, "writer drain");
  /* The post-pass phases show their seconds while SQLite works. */
  if (ctx->opt->progress) sqlite3_progress_handler(ctx->db, 100000, redraw_progress, NULL);
  if (postpass_run(ctx, ctx->first_trace_id, ctx->first_snapshot_id)) return -1;
  progress_phase("committing");
  if (!side && ld_record_runs(ctx, ctx->first_trace_id, ctx->first_snapshot_id)) return -1;
  return ld_exec(ctx, "COMMIT");
}

/* Load the inputs into the open database ctx->db: schema created or
** checked, every file parsed, derived tables built, committed.  Returns a
** profdb_exit code (TRUNCATED: some input was cut short and loaded in
** part); *loaded is 0 when every input was a duplicate.  On failure the
** transaction is rolled back.
** With side, ctx->db is an empty side database of side->original: the ids
** continue the original's, read with its strings in one read transaction
** (whose data_version goes to side->version), duplicates are looked up in
** both, and the run checks wait for the merge (they compare with the
** original's traces). */
static int load_into(ld_ctx *ctx, const char *db_name, const path_list *inputs, int *loaded,
                     ld_side *side) {
  int code = PROFDB_EXIT_USAGE, begun = 0;
  *loaded = 0;
  if (ctx->opt->have_rank && inputs->n > 1) {
    ld_say(ctx->msg,
           "--rank %lld names the rank of one input, not of %d files (name each"
           " file or its folder with its rank, or load them one by one)",
           ctx->opt->rank, inputs->n);
    return PROFDB_EXIT_USAGE;
  }
  if (ld_exec(ctx, profdb_sql_writer_settings) || ld_prepare_schema(ctx, db_name))
    return PROFDB_EXIT_USAGE;
  ctx->existing = side ? side->original : ctx->db;
  ctx->strings = intern_new();
  ctx->nest = nest_new();
  ctx->flows = flows_new();
  if (ld_exec(ctx, "BEGIN")) goto done;
  begun = 1;
  if (read_ids(ctx, db_name, side) || start_writer(ctx)) goto done;
  code = parse_inputs(ctx, inputs, loaded, side);
  if ((code != PROFDB_EXIT_OK && code != PROFDB_EXIT_TRUNCATED) || !*loaded) goto done;
  if (finish_load(ctx, db_name, side))
    code = PROFDB_EXIT_USAGE;
  else
    begun = 0;
done:
  if (ctx->opt->progress) sqlite3_progress_handler(ctx->db, 0, NULL, NULL);
  if (ctx->w) writer_stop(ctx->w);
  ctx->w = NULL;
  ld_reap(ctx, 1); /* the jobs a failed writer skipped */
  {
    /* A message about an input may come from a failed write: say which
    ** database could not be written (a full disk, most often). */
    int e = sqlite3_extended_errcode(ctx->db) & 0xff;
    if (code != PROFDB_EXIT_OK && code != PROFDB_EXIT_TRUNCATED &&
        (e == SQLITE_FULL || e == SQLITE_IOERR))
      ld_say(ctx->msg, "%s: cannot write the database (%s): nothing changed in it", db_name,
             sqlite3_errstr(e));
  }
  if (begun) sqlite3_exec(ctx->db, "ROLLBACK", NULL, NULL, NULL);
  if (side && !sqlite3_get_autocommit(side->original))
    sqlite3_exec(side->original, "ROLLBACK", NULL, NULL, NULL);
  return code;
}

/* What a load allocates besides the database, freed at its end. */
static void free_load(ld_ctx *ctx, path_list *inputs) {
  intern_free(ctx->strings);
  intern_free(ctx->stacks);
  nest_free(ctx->nest);
  flows_free(ctx->flows);
  free(ctx->artifacts);
  for (int i = 0; i < inputs->n; i++) free(inputs->v[i]);
  free(inputs->v);
  free(inputs->found);
}

int profdb_load_db(sqlite3 *db, const char *const *paths, int n,
                   const profdb_load_options *opt) {
  FILE *out = opt->messages ? opt->messages : stderr;
  path_list inputs = {0};
  ld_ctx ctx = {.opt = opt, .msg = out, .db = db};
  int loaded = 0, code;
  progress_start(out, opt->progress);
  if (expand_inputs(out, paths, n, &inputs))
    code = PROFDB_EXIT_USAGE;
  else
    code = load_into(&ctx, sqlite3_db_filename(db, "main"), &inputs, &loaded, NULL);
  progress_stop();
  free_load(&ctx, &inputs);
  return code;
}

/* Begin the atomic update, load, commit; else abort (dbswap.h): after any
** failure the database is as it was. */
int profdb_load(const char *db_path, const char *const *paths, int n,
                const profdb_load_options *opt) {
  FILE *out = opt->messages ? opt->messages : stderr;
  path_list inputs = {0};
  ld_ctx ctx = {.opt = opt, .msg = out};
  ld_swap swap;
  int code = PROFDB_EXIT_USAGE, loaded = 0;
  double t0 = ld_seconds();
  progress_start(out, opt->progress);
  if (expand_inputs(out, paths, n, &inputs)) goto done;
  if (inputs.n == 0) {
    ld_say(out, "nothing to load");
    goto done;
  }
  if (dbswap_begin(&swap, db_path, &ctx)) goto done;
  code = load_into(&ctx, swap.path, &inputs, &loaded, dbswap_side(&swap));
  if ((code != PROFDB_EXIT_OK && code != PROFDB_EXIT_TRUNCATED) || !loaded) {
    dbswap_abort(&swap, &ctx); /* only duplicates: the database stays untouched */
    goto done;
  }
  if (dbswap_commit(&swap, &ctx)) {
    code = PROFDB_EXIT_USAGE;
    goto done;
  }
  progress_stop();
  if (!opt->quiet && inputs.n > 1)
    ld_say(out, "loaded %d files into %s in %.2f s", inputs.n, swap.path, ld_seconds() - t0);
done:
  progress_stop();
  free_load(&ctx, &inputs);
  return code;
}
