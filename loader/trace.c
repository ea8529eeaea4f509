/*
** trace.c — stream a Kineto / Chrome trace into the trace tables.
**
** Accepted layouts: {"traceEvents": [...], <metadata keys before or after>}
** and a bare array of events (legacy exporter, pre-2021 Kineto).
**
** HOW IT WORKS
**   yajl delivers tokens; tok_handle() advances an explicit position (tpos)
**   and fills one event at a time (tevent).  At the event's closing brace it is
**   classified by phase and category and written as one row of _slice,
**   _gpu, _instant, _flow or _meta, then forgotten: memory does not grow
**   with the number of events.  Nested values that are kept verbatim
**   (args, unknown keys, metadata) are re-serialized as compact JSON by a
**   capture that follows containers to their end.
**
** Requirement 1: ts/dur become int64 ns from the decimal text (numtext.c),
**   never through a double.
** Requirement 2: nothing is dropped.  Args with a typed column go there
**   when their value has the expected type; every other arg, every unknown
**   event key, every top-level key is kept as JSON.  Integers beyond 64
**   bits are kept as JSON strings.
** Requirement 3: metadata keys after traceEvents (baseTimeNanoseconds,
**   traceName, ...) and M events (which come last) are bound at the end.
**
** The parser's parts, one concern each, are listed in trace_parser.h; this
** file runs the parse and writes the trace's own rows at its end.
*/
#include "trace_parser.h"
#include "clock.h"
#include "sql.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- finishing a trace -------------------------------------------------- */

static const char *const kind_label[K__MAX] = {
#define KIND_LABEL(id, code, name, storage) [code] = name,
    PROFDB_EVENT_KINDS(KIND_LABEL)
#undef KIND_LABEL
};

static int put_count(sqlite3_stmt *st, int64_t trace_id, const char *kind, uint64_t n) {
  if (!n) return 0;
  sqlite3_bind_int64(st, 1, trace_id);
  sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, (int64_t)n);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_reset(st);
  return rc;
}

/* event_count rows: events per kind, flows and metadata included. */
static int write_counts(tparser *p) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(p->ctx->db,
                         "INSERT OR REPLACE INTO event_count(trace_id, kind,"
                         " events) VALUES(?,?,?)",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  int64_t id = p->f->artifact_id;
  int rc = 0;
  for (int k = 0; k < K__MAX && rc == 0; k++)
    if (kind_label[k]) rc = put_count(st, id, kind_label[k], p->kind_count[k]);
  if (rc == 0) rc = put_count(st, id, "flow", p->flows);
  if (rc == 0) rc = put_count(st, id, "metadata", p->metas_count);
  sqlite3_finalize(st);
  return rc;
}

static int trace_finish(tparser *p, int status, double seconds) {
  ld_file *f = p->f;
  sqlite3 *db = p->ctx->db;
  if (ld_finish_artifact(f, status, p->layout_array ? "array" : "object", seconds)) return -1;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "UPDATE trace SET events = ?2, start_ts = ?3, end_ts = ?4"
                         " WHERE trace_id = ?1",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, f->artifact_id);
  sqlite3_bind_int64(st, 2, (int64_t)p->events);
  if (p->has_window) {
    sqlite3_bind_int64(st, 3, p->win_start);
    sqlite3_bind_int64(st, 4, p->win_end);
  }
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  if (rc || trace_write_metadata(p) || trace_write_threads(p) || write_counts(p)) return -1;
  if (ld_exec_script(db, profdb_sql_trace_finish, f->artifact_id)) return -1;
  f->stats[PROFDB_STAT_trace_events] = p->events;
  return ld_write_stats(f);
}

/* One-line summary: events per kind. */
static void summary(tparser *p, double seconds) {
  char counts[1024];
  size_t n =
      (size_t)snprintf(counts, sizeof counts, "events=%llu", (unsigned long long)p->events);
#define COUNT(label, v)                                                   \
  if ((v) && n < sizeof counts)                                           \
  n += (size_t)snprintf(counts + n, sizeof counts - n, " %s=%llu", label, \
                        (unsigned long long)(v))
  for (int k = 0; k < K__MAX; k++)
    if (kind_label[k]) COUNT(kind_label[k], p->kind_count[k]);
  COUNT("flow", p->flows);
  COUNT("metadata", p->metas_count);
#undef COUNT
  ld_summary(p->f, counts, p->f->truncated, seconds);
}

/* What only the parse used (the event being read, the pair set), freed
** before trace_finish is queued: the queued parser keeps its metadata,
** threads and counts alone. */
static void free_parse_buffers(tparser *p) {
  jw_free(&p->ev.args_w);
  jw_free(&p->ev.extra_w);
  jw_free(&p->typed_w);
  jw_free(&p->nonobj_w);
  ld_buf_free(&p->ev.raw);
  ld_buf_free(&p->ev.args);
  ld_buf_free(&p->ev.extra);
  ld_buf_free(&p->key_buf);
  ld_buf_free(&p->nonobj);
  ld_buf_free(&p->last_pair);
  ld_buf_free(&p->pair_tmp);
  intern_free(p->pairs_seen);
  p->pairs_seen = NULL;
}

/* The parser and what it gathered for trace_finish, freed. */
static void free_parser(tparser *p) {
  free_parse_buffers(p);
  jw_free(&p->meta_w);
  ld_buf_free(&p->meta);
  ld_buf_free(&p->pairs);
  free(p->metas);
  free(p);
}

/* trace_finish on the writer thread, after the trace's events, while the
** parser reads the next input (queued.c): the job owns the parser (its
** totals, metadata and threads) and a copy of the file's state, whose
** original the load frees. */
typedef struct finish_job {
  ld_queued q;
  ld_file f;
  tparser *p;
  int truncated;
  double seconds;
} finish_job;

static int run_finish(sqlite3 *db, ld_queued *q) {
  finish_job *j = (finish_job *)q;
  (void)db;
  return trace_finish(j->p, j->truncated, j->seconds);
}

static void release_finish(ld_queued *q) {
  finish_job *j = (finish_job *)q;
  free_parser(j->p);
  free(j);
}

int trace_load(ld_file *f) {
  ld_ctx *ctx = f->ctx;
  double t0 = ld_seconds();
  tparser *p = calloc(1, sizeof *p);
  if (!p) return ld_fail(f, PROFDB_EXIT_USAGE, 0, "out of memory"), -1;
  p->f = f;
  p->ctx = ctx;
  p->cpu_op_cat_id = -1;
  p->pairs_seen = intern_new();
  int rc = trace_parse(p);
  if (rc >= 0 && p->pos != TP_DONE && !f->truncated) {
    f->truncated = 1; /* defensive: the value did not close */
    f->truncated_at = f->in.delivered;
    rc = 1;
  }
  if (rc >= 0 && !p->saw_events && !p->layout_array) {
    ld_fail(f, PROFDB_EXIT_DATA, 0, "not a trace: no traceEvents array");
    rc = -1;
  }
  double seconds = ld_seconds() - t0;
  finish_job *j = rc >= 0 ? calloc(1, sizeof *j) : NULL;
  if (rc >= 0 && !j) {
    ld_fail(f, PROFDB_EXIT_USAGE, 0, "out of memory");
    rc = -1;
  }
  if (rc < 0) {
    free_parser(p);
    return rc;
  }
  if (!ctx->opt->quiet) summary(p, seconds);
  free_parse_buffers(p);
  j->f = *f;
  j->p = p;
  j->truncated = rc == 1;
  j->seconds = seconds;
  p->f = &j->f;
  j->q.run = run_finish;
  j->q.release = release_finish;
  ld_queue(ctx, &j->q);
  if (writer_flush(ctx->w)) {
    ld_fail(f, PROFDB_EXIT_USAGE, 0, "%s", writer_error(ctx->w));
    return -1;
  }
  return rc;
}
