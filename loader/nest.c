/*
** nest.c — CPU slices gathered while parsing, for the nesting pass (see
** nest.h).
**
** Threads are numbered in the order their first slice arrives (file order,
** as the rows' ids), through an interner over (trace, pid, tid) encoded as
** bytes; integers and texts never encode alike.
*/
#include "nest.h"
#include "oom.h"

#include "extsort.h"
#include "hash.h"
#include "intern.h"
#include "writer.h"

#include "profdb/codes.h"

#include <stdlib.h>
#include <string.h>

#define NEST_SORT_MEMORY (16 << 20) /* bytes of slices sorted in memory at once */

typedef struct thread_info {
  int64_t trace_id;
  ld_value pid, tid; /* texts owned */
} thread_info;

struct ld_nest {
  ld_extsort *sort;
  ld_intern *keys; /* encoded (trace, pid, tid) -> thread + 1 */
  thread_info *threads;
  int nthreads, cap;
  char *key; /* scratch for the encoding */
  size_t key_cap;
  step_row *steps;
  size_t nsteps, steps_cap;
  uint64_t count;
};

static int cmp_nest_row(const void *x, const void *y) {
  const nest_row *a = x, *b = y;
  if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if (a->dur != b->dur) return a->dur > b->dur ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static uint8_t kind_rank(int kind) {
  switch (kind) {
    case PROFDB_KIND_TRACE_SPAN: return 0;
    case PROFDB_KIND_USER_ANNOTATION: return 1;
    case PROFDB_KIND_PYTHON_FUNCTION: return 2;
    case PROFDB_KIND_CPU_OP: return 3;
    case PROFDB_KIND_RUNTIME: return 4;
    default: return 5;
  }
}

ld_nest *nest_new(void) {
  ld_nest *n = calloc(1, sizeof *n);
  if (!n) ld_oom();
  n->sort = extsort_new(sizeof(nest_row), cmp_nest_row, NEST_SORT_MEMORY);
  n->keys = intern_new();
  return n;
}

void nest_free(ld_nest *n) {
  if (!n) return;
  extsort_free(n->sort);
  intern_free(n->keys);
  for (int t = 0; t < n->nthreads; t++) {
    free((char *)n->threads[t].pid.s);
    free((char *)n->threads[t].tid.s);
  }
  free(n->threads);
  free(n->key);
  free(n->steps);
  free(n);
}

static size_t encode_value(char *p, const ld_value *v) {
  p[0] = v->type ? v->type : '0';
  if (v->type == 'i') {
    memcpy(p + 1, &v->i, 8);
    return 9;
  }
  if (v->type != 't') return 1;
  memcpy(p + 1, &v->n, 4);
  memcpy(p + 5, v->s, v->n);
  return 5 + v->n;
}

static ld_value copy_value(const ld_value *v) {
  ld_value c = *v;
  c.s = NULL;
  if (v->type == 't') {
    char *s = malloc(v->n ? v->n : 1);
    if (!s) ld_oom();
    memcpy(s, v->s, v->n);
    c.s = s;
  }
  return c;
}

static int thread_of(ld_nest *n, int64_t trace_id, const ld_value *pid, const ld_value *tid) {
  size_t need = 8 + 9 + 9 + (pid->type == 't' ? pid->n : 0) + (tid->type == 't' ? tid->n : 0);
  if (need > n->key_cap) {
    n->key_cap = need * 2;
    n->key = realloc(n->key, n->key_cap);
    if (!n->key) ld_oom();
  }
  memcpy(n->key, &trace_id, 8);
  size_t len = 8;
  len += encode_value(n->key + len, pid);
  len += encode_value(n->key + len, tid);
  int is_new;
  int64_t id = intern_id(n->keys, n->key, len, &is_new);
  if (is_new) {
    if (n->nthreads == n->cap) {
      n->cap = n->cap ? 2 * n->cap : 64;
      n->threads = realloc(n->threads, (size_t)n->cap * sizeof *n->threads);
      if (!n->threads) ld_oom();
    }
    n->threads[n->nthreads++] = (thread_info){trace_id, copy_value(pid), copy_value(tid)};
  }
  return (int)(id - 1); /* the interner numbers from 1, in order */
}

nest_row nest_row_of(ld_nest *n, int64_t trace_id, const ld_value *pid, const ld_value *tid,
                     int64_t id, int64_t ts, int64_t dur, int64_t name_id, int kind,
                     const char *dims, size_t dims_len, const char *types, size_t types_len) {
  nest_row r;
  memset(&r, 0, sizeof r); /* the padding too: the record is copied as bytes */
  r.ts = ts;
  r.dur = dur;
  r.id = id;
  r.name_id = name_id;
  r.thread = thread_of(n, trace_id, pid, tid);
  r.rank = kind_rank(kind);
  r.kind = (uint8_t)kind;
  r.shaped = dims != NULL;
  if (dims) {
    r.dims = hash_bytes(dims, dims_len);
    if (!r.dims) r.dims = 1;
    if (types) r.types = hash_bytes(types, types_len);
  }
  return r;
}

int nest_sink(void *arg, const void *bytes, size_t len) {
  ld_nest *n = arg;
  n->count++;
  return extsort_add_bytes(n->sort, bytes, len);
}

int nest_add(ld_nest *n, int64_t trace_id, const ld_value *pid, const ld_value *tid, int64_t id,
             int64_t ts, int64_t dur, int64_t name_id, int kind, const char *dims,
             size_t dims_len) {
  nest_row r =
      nest_row_of(n, trace_id, pid, tid, id, ts, dur, name_id, kind, dims, dims_len, NULL, 0);
  return nest_sink(n, &r, sizeof r);
}

void nest_add_step(ld_nest *n, const step_row *s) {
  if (n->nsteps == n->steps_cap) {
    n->steps_cap = n->steps_cap ? 2 * n->steps_cap : 64;
    n->steps = realloc(n->steps, n->steps_cap * sizeof *n->steps);
    if (!n->steps) ld_oom();
  }
  n->steps[n->nsteps++] = *s;
}

int64_t nest_step_number(const char *name, size_t len) {
  static const char prefix[] = "ProfilerStep#";
  size_t k = sizeof prefix - 1;
  if (len <= k || memcmp(name, prefix, k) || name[k] < '0' || name[k] > '9') return -1;
  int64_t v = 0;
  for (; k < len && name[k] >= '0' && name[k] <= '9'; k++) {
    int d = name[k] - '0';
    if (v > (INT64_MAX - d) / 10) return INT64_MAX; /* as CAST saturates */
    v = v * 10 + d;
  }
  return v;
}

int ld_bind_value(sqlite3_stmt *st, int col, const ld_value *v) {
  if (v->type == 'i') return sqlite3_bind_int64(st, col, v->i);
  if (v->type == 't') return sqlite3_bind_text(st, col, v->s, (int)v->n, SQLITE_TRANSIENT);
  return sqlite3_bind_null(st, col);
}

void ld_row_value(ld_buf *b, int col, const ld_value *v) {
  if (v->type == 'i')
    row_int(b, col, v->i);
  else if (v->type == 't')
    row_text(b, col, v->s, v->n);
  else
    row_null(b, col);
}

uint64_t nest_count(const ld_nest *n) {
  return n->count;
}

int nest_finish(ld_nest *n) {
  return extsort_finish(n->sort);
}
const nest_row *nest_next(ld_nest *n) {
  return extsort_next(n->sort);
}
int nest_failed(const ld_nest *n) {
  return extsort_failed(n->sort);
}

int64_t nest_thread_trace(const ld_nest *n, int thread) {
  return n->threads[thread].trace_id;
}
const ld_value *nest_thread_pid(const ld_nest *n, int thread) {
  return &n->threads[thread].pid;
}
const ld_value *nest_thread_tid(const ld_nest *n, int thread) {
  return &n->threads[thread].tid;
}

step_row *nest_steps(ld_nest *n, size_t *count) {
  *count = n->nsteps;
  return n->steps;
}
