/*
** intervals.c — lengths covered by sets of possibly overlapping intervals.
**
** SQL Function: interval_union(START, END)      aggregate
**   Total length covered by the union of the [START, END) intervals:
**   GPU busy time across streams, a thread's busy time, ...
**     SELECT interval_union(ts, ts + dur) FROM gpu_activity WHERE device = 0;
**
** SQL Function: interval_overlap(START, END, SET)      aggregate
**   Length covered by both the union of the intervals with SET = 1 and the
**   union of those with SET = 0 (e.g. communication overlapped by compute):
**     SELECT interval_overlap(ts, ts + dur, kernel_category(name) = 'NCCL/communication')
**     FROM kernel;
**
** SQL Function: interval_layers(START, END, LAYER [, N])      aggregate
**   Splits the time covered by the intervals among layers 0..63, the lowest
**   layer present winning at each instant, and returns a JSON array with
**   each layer's exclusive time (N elements, default: up to the highest
**   layer seen).  The elements sum to the union of all the intervals.  The
**   step-time breakdown uses it (kernel = 0 beats memcpy = 1 beats ...):
**     SELECT interval_layers(ts, ts + dur, CASE kind WHEN 'kernel' THEN 0
**       WHEN 'memcpy' THEN 1 ELSE 2 END, 3) FROM gpu_activity;   -- [k, c, s]
**   Bounds must be integers.
**
** Rows with a NULL bound (or a NULL SET) are ignored; END < START is an
** error; so are bounds that are not numbers.  Both return NULL for no rows.  Results are
** INTEGER, computed exactly in 64-bit integers, when every bound is an
** integer (epoch nanoseconds exceed the 2^53 a double holds exactly);
** REAL when some bound of a row used is REAL.
**
** HOW IT WORKS
**   The intervals are collected, sorted by start, merged, and summed; for
**   the overlap the two merged lists are walked together.  Memory is 16
**   bytes per interval kept for the duration of the aggregate; an integer
**   interval starting inside the last one kept extends it (rows in start
**   order keep only their union's pieces).  interval_layers
**   sorts the 2n boundaries and sweeps them with a count per layer and a
**   bitmask of the layers present: 24 bytes per boundary.
**
** Flags: INNOCUOUS (no DETERMINISTIC for aggregates, like percentile.c).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bounds are kept as int64 while every bound is an integer (timestamps in
** epoch ns exceed 2^53, where a double would round them); the first REAL
** bound converts the set to doubles, each bound as sqlite3_value_double()
** gives an integer, (double)i. */
typedef union ival {
  struct {
    sqlite3_int64 s, e;
  } i; /* integer mode */
  struct {
    double s, e;
  } d; /* real mode */
} ival;

typedef struct ival_set {
  ival *v[2]; /* set 0 and set 1 (union uses set 0 only) */
  size_t n[2], cap[2];
  int real; /* some bound was REAL: the bounds are doubles (d) */
  int used; /* at least one row seen */
} ival_set;

/* The set's bounds as doubles, from the first REAL bound on. */
static void to_real(ival_set *s) {
  for (int set = 0; set < 2; set++)
    for (size_t k = 0; k < s->n[set]; k++) {
      ival *x = &s->v[set][k];
      double a = (double)x->i.s, b = (double)x->i.e;
      x->d.s = a, x->d.e = b;
    }
  s->real = 1;
}

/* Add [a, b) to set (real: its bounds as doubles; the set is converted on
** the first).  An integer interval that starts inside the last one kept
** (not before its start) extends it instead of taking a slot: what the
** merge at the end would do, so rows that come in start order (a thread's
** nested calls, a stream's work) take memory for their union's pieces, not
** for every row. */
static int ival_add(ival_set *s, int set, int real, sqlite3_value *a, sqlite3_value *b) {
  if (real && !s->real) to_real(s);
  ival x;
  if (s->real) {
    x.d.s = sqlite3_value_double(a);
    x.d.e = sqlite3_value_double(b);
  } else {
    x.i.s = sqlite3_value_int64(a);
    x.i.e = sqlite3_value_int64(b);
    ival *last = s->n[set] ? &s->v[set][s->n[set] - 1] : NULL;
    if (last && x.i.s >= last->i.s && x.i.s <= last->i.e) {
      if (x.i.e > last->i.e) last->i.e = x.i.e;
      return SQLITE_OK;
    }
  }
  if (s->n[set] == s->cap[set]) {
    size_t cap = s->cap[set] ? s->cap[set] * 2 : 256;
    ival *v = sqlite3_realloc64(s->v[set], cap * sizeof *v);
    if (!v) return SQLITE_NOMEM;
    s->v[set] = v;
    s->cap[set] = cap;
  }
  s->v[set][s->n[set]++] = x;
  return SQLITE_OK;
}

static int cmp_int(const void *x, const void *y) {
  const ival *a = x, *b = y;
  return a->i.s < b->i.s ? -1 : a->i.s > b->i.s;
}
static int cmp_real(const void *x, const void *y) {
  const ival *a = x, *b = y;
  return a->d.s < b->d.s ? -1 : a->d.s > b->d.s;
}

/* Sort and merge in place; returns the merged count. */
static size_t merge(ival *v, size_t n, int real) {
  if (!n) return 0;
  qsort(v, n, sizeof *v, real ? cmp_real : cmp_int);
  size_t k = 0;
  for (size_t i = 1; i < n; i++) {
    int joins = real ? v[i].d.s <= v[k].d.e : v[i].i.s <= v[k].i.e;
    if (joins) {
      if (real && v[i].d.e > v[k].d.e) v[k].d.e = v[i].d.e;
      if (!real && v[i].i.e > v[k].i.e) v[k].i.e = v[i].i.e;
    } else {
      v[++k] = v[i];
    }
  }
  return k + 1;
}

/* Check the bounds; returns 0 to skip the row, 1 to use it, -1 on error
** (already reported). */
static int check_bounds(sqlite3_context *ctx, const char *fn, sqlite3_value **argv,
                        int *is_real) {
  int real = 0;
  for (int i = 0; i < 2; i++) {
    int t = sqlite3_value_numeric_type(argv[i]);
    if (t == SQLITE_NULL) return 0;
    if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
      char *msg =
          sqlite3_mprintf("%s(): %s argument must be a number", fn, profdb_ext_ordinal(i + 1));
      sqlite3_result_error(ctx, msg, -1);
      sqlite3_free(msg);
      return -1;
    }
    real |= t == SQLITE_FLOAT;
  }
  int backwards = real ? sqlite3_value_double(argv[1]) < sqlite3_value_double(argv[0])
                       : sqlite3_value_int64(argv[1]) < sqlite3_value_int64(argv[0]);
  if (backwards) {
    char *msg = sqlite3_mprintf("%s(): 2nd argument (end) is before the 1st (start)", fn);
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
    return -1;
  }
  *is_real = real;
  return 1;
}

static ival_set *agg(sqlite3_context *ctx) {
  ival_set *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (s) s->used = 1;
  return s;
}

static void union_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  ival_set *s = agg(ctx);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  int real;
  if (check_bounds(ctx, "interval_union", argv, &real) == 1 &&
      ival_add(s, 0, real, argv[0], argv[1]) != SQLITE_OK)
    sqlite3_result_error_nomem(ctx);
}

static void set_free(ival_set *s) {
  if (!s) return;
  sqlite3_free(s->v[0]);
  sqlite3_free(s->v[1]);
}

static void union_final(sqlite3_context *ctx) {
  ival_set *s = sqlite3_aggregate_context(ctx, 0);
  if (!s || !s->used || s->n[0] == 0) {
    set_free(s);
    return; /* NULL */
  }
  size_t n = merge(s->v[0], s->n[0], s->real);
  if (s->real) {
    double total = 0;
    for (size_t i = 0; i < n; i++) total += s->v[0][i].d.e - s->v[0][i].d.s;
    sqlite3_result_double(ctx, total);
  } else {
    sqlite3_uint64 total = 0; /* unsigned: a span of the whole int64 range fits */
    for (size_t i = 0; i < n; i++)
      total += (sqlite3_uint64)s->v[0][i].i.e - (sqlite3_uint64)s->v[0][i].i.s;
    if (total > (sqlite3_uint64)INT64_MAX)
      sqlite3_result_double(ctx, (double)total);
    else
      sqlite3_result_int64(ctx, (sqlite3_int64)total);
  }
  set_free(s);
}

static void overlap_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  ival_set *s = agg(ctx);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  int real;
  if (check_bounds(ctx, "interval_overlap", argv, &real) != 1) return;
  int t = sqlite3_value_numeric_type(argv[2]);
  if (t == SQLITE_NULL) return;
  if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
    sqlite3_result_error(
        ctx, "interval_overlap(): 3rd argument (set) must be a number: 0 or non-zero", -1);
    return;
  }
  int set = sqlite3_value_double(argv[2]) != 0;
  if (ival_add(s, set, real, argv[0], argv[1]) != SQLITE_OK) sqlite3_result_error_nomem(ctx);
}

static void overlap_final(sqlite3_context *ctx) {
  ival_set *s = sqlite3_aggregate_context(ctx, 0);
  if (!s || !s->used || (s->n[0] == 0 && s->n[1] == 0)) {
    set_free(s);
    return;
  }
  int real = s->real;
  size_t n0 = merge(s->v[0], s->n[0], real), n1 = merge(s->v[1], s->n[1], real);
  double dtotal = 0;
  sqlite3_uint64 itotal = 0;
  for (size_t i = 0, j = 0; i < n0 && j < n1;) {
    const ival *a = &s->v[0][i], *b = &s->v[1][j];
    if (real) {
      double lo = a->d.s > b->d.s ? a->d.s : b->d.s, hi = a->d.e < b->d.e ? a->d.e : b->d.e;
      if (hi > lo) dtotal += hi - lo;
      if (a->d.e < b->d.e)
        i++;
      else
        j++;
    } else {
      sqlite3_int64 lo = a->i.s > b->i.s ? a->i.s : b->i.s,
                    hi = a->i.e < b->i.e ? a->i.e : b->i.e;
      if (hi > lo) itotal += (sqlite3_uint64)hi - (sqlite3_uint64)lo;
      if (a->i.e < b->i.e)
        i++;
      else
        j++;
    }
  }
  if (real)
    sqlite3_result_double(ctx, dtotal);
  else if (itotal > (sqlite3_uint64)INT64_MAX)
    sqlite3_result_double(ctx, (double)itotal);
  else
    sqlite3_result_int64(ctx, (sqlite3_int64)itotal);
  set_free(s);
}

/* ---- interval_layers ---------------------------------------------------- */

#define LAYERS_MAX 64

typedef struct edge {
  sqlite3_int64 t;
  int layer;
  int delta; /* +1 start, -1 end */
} edge;

typedef struct layer_set {
  edge *v;
  size_t n, cap;
  int top;   /* highest layer seen, -1 before the first row */
  int width; /* N, or 0 */
  int used;
} layer_set;

static int cmp_edge(const void *x, const void *y) {
  const edge *a = x, *b = y;
  return a->t < b->t ? -1 : a->t > b->t;
}

static void layers_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  layer_set *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (!s->used) {
    s->used = 1;
    s->top = -1;
    if (argc == 4) {
      sqlite3_int64 w = sqlite3_value_int64(argv[3]);
      if (sqlite3_value_numeric_type(argv[3]) != SQLITE_INTEGER || w < 1 || w > LAYERS_MAX) {
        sqlite3_result_error(ctx, "interval_layers(): 4th argument must be 1 to 64", -1);
        return;
      }
      s->width = (int)w;
    }
  }
  for (int i = 0; i < 3; i++) {
    int t = sqlite3_value_numeric_type(argv[i]);
    if (t == SQLITE_NULL) return;
    if (t != SQLITE_INTEGER) {
      char *msg = sqlite3_mprintf("interval_layers(): %s argument must be an integer",
                                  profdb_ext_ordinal(i + 1));
      sqlite3_result_error(ctx, msg, -1);
      sqlite3_free(msg);
      return;
    }
  }
  sqlite3_int64 a = sqlite3_value_int64(argv[0]), b = sqlite3_value_int64(argv[1]);
  sqlite3_int64 layer = sqlite3_value_int64(argv[2]);
  if (b < a) {
    sqlite3_result_error(ctx, "interval_layers(): 2nd argument (end) is before the 1st (start)",
                         -1);
    return;
  }
  if (layer < 0 || layer >= (s->width ? s->width : LAYERS_MAX)) {
    sqlite3_result_error(ctx, "interval_layers(): 3rd argument (layer) out of range", -1);
    return;
  }
  if (a == b) return;
  if (s->n + 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 512;
    edge *v = sqlite3_realloc64(s->v, cap * sizeof *v);
    if (!v) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = (edge){a, (int)layer, +1};
  s->v[s->n++] = (edge){b, (int)layer, -1};
  if (layer > s->top) s->top = (int)layer;
}

static void layers_final(sqlite3_context *ctx) {
  layer_set *s = sqlite3_aggregate_context(ctx, 0);
  if (!s || !s->used) return; /* NULL for no rows */
  int width = s->width ? s->width : s->top + 1;
  sqlite3_uint64 total[LAYERS_MAX] = {0};
  if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_edge);
  sqlite3_int64 count[LAYERS_MAX] = {0};
  sqlite3_uint64 present = 0; /* bit L: layer L has an open interval */
  for (size_t i = 0; i < s->n;) {
    sqlite3_int64 t = s->v[i].t;
    for (; i < s->n && s->v[i].t == t; i++) {
      int l = s->v[i].layer;
      count[l] += s->v[i].delta;
      if (count[l] > 0)
        present |= (sqlite3_uint64)1 << l;
      else
        present &= ~((sqlite3_uint64)1 << l);
    }
    if (present && i < s->n) {
      int lowest = __builtin_ctzll(present);
      total[lowest] += (sqlite3_uint64)s->v[i].t - (sqlite3_uint64)t;
    }
  }
  sqlite3_free(s->v);
  sqlite3_str *out = sqlite3_str_new(NULL);
  sqlite3_str_appendchar(out, 1, '[');
  for (int l = 0; l < width; l++)
    sqlite3_str_appendf(out, "%s%llu", l ? "," : "", (unsigned long long)total[l]);
  sqlite3_str_appendchar(out, 1, ']');
  int n = sqlite3_str_length(out);
  char *text = sqlite3_str_finish(out);
  if (!text) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, text, n, sqlite3_free);
}

int profdb_intervals_init(sqlite3 *db) {
  int rc = sqlite3_create_function(db, "interval_union", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                   NULL, NULL, union_step, union_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "interval_overlap", 3, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 NULL, NULL, overlap_step, overlap_final);
  for (int argc = 3; rc == SQLITE_OK && argc <= 4; argc++)
    rc = sqlite3_create_function(db, "interval_layers", argc, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 NULL, NULL, layers_step, layers_final);
  return rc;
}
