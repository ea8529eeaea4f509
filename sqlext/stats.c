/*
** stats.c — exact order statistics.
**
** SQL Function: profdb_median(X)             aggregate
**   The median of the non-NULL X (mean of the two middle values for an
**   even count); NULL when there are none.
** SQL Function: profdb_percentile(X, P)      aggregate
**   The P-th percentile (0 <= P <= 100, the same for every row) with
**   linear interpolation between the closest ranks: position
**   (n - 1) * P / 100 in the sorted values, like numpy's default and
**   SQLite's own percentile().  NULL when there are no values.
** Both return an exact INTEGER when every value is an integer and the
** result is a whole number, else REAL.
**
**     SELECT profdb_median(dur), profdb_percentile(dur, 95) FROM kernel;
**
** Errors name the function and argument: X must be a number; P must be a
** number between 0 and 100 and the same for every row.
**
** HOW IT WORKS
**   Each group's non-NULL values are collected in one array that doubles
**   as it grows, 8 bytes a value: as int64 while every value is an
**   integer, converted to double when the first REAL arrives.  The final
**   step sorts the array (qsort) and interpolates between the two values
**   around position (n - 1) * P / 100; with integers that happens in
**   128-bit arithmetic, so a whole result (epoch nanoseconds, say) comes
**   back as an exact INTEGER.  Memory is 8 bytes per value of the group,
**   time O(n log n).
**
**   The names carry the profdb_ prefix so they never clash with SQLite
**   builds that have their own median()/percentile().
**
** Flags: INNOCUOUS (aggregates are not marked DETERMINISTIC).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"

#include <math.h>
#include <stdlib.h>

typedef struct values {
  double *d;        /* values while some value is REAL */
  sqlite3_int64 *i; /* values while all are integers */
  size_t n, cap;
  int real;   /* a REAL value was seen: d[] holds everything */
  double p;   /* percentile requested */
  int p_set;  /* p was given by an earlier row */
  int failed; /* an error was reported */
} values;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static int cmp_int64(const void *a, const void *b) {
  sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
  return x < y ? -1 : x > y;
}

static void values_free(values *s) {
  if (!s) return;
  sqlite3_free(s->d);
  sqlite3_free(s->i);
}

/* Switch to REAL storage (the first REAL value arrived). */
static int to_real(values *s) {
  s->real = 1;
  if (!s->cap) return SQLITE_OK;
  double *d = sqlite3_malloc64(s->cap * sizeof *d);
  if (!d) return SQLITE_NOMEM;
  for (size_t k = 0; k < s->n; k++) d[k] = (double)s->i[k];
  sqlite3_free(s->i);
  s->i = NULL;
  s->d = d;
  return SQLITE_OK;
}

static void collect(sqlite3_context *ctx, const char *fn, sqlite3_value *x, values *s) {
  int t = sqlite3_value_numeric_type(x);
  if (t == SQLITE_NULL) return;
  if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
    char *msg = sqlite3_mprintf("%s(): 1st argument must be a number", fn);
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
    s->failed = 1;
    return;
  }
  if (t == SQLITE_FLOAT && !s->real && to_real(s) != SQLITE_OK) goto nomem;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 256;
    if (s->real) {
      double *d = sqlite3_realloc64(s->d, cap * sizeof *d);
      if (!d) goto nomem;
      s->d = d;
    } else {
      sqlite3_int64 *i = sqlite3_realloc64(s->i, cap * sizeof *i);
      if (!i) goto nomem;
      s->i = i;
    }
    s->cap = cap;
  }
  if (s->real)
    s->d[s->n++] = sqlite3_value_double(x);
  else
    s->i[s->n++] = sqlite3_value_int64(x);
  return;
nomem:
  sqlite3_result_error_nomem(ctx);
  s->failed = 1;
}

/* Linear interpolation at position (n - 1) * p / 100 of the sorted values.
** With integer values a whole-number result is returned as an exact
** INTEGER (epoch nanoseconds do not fit a double exactly). */
static void result_percentile(sqlite3_context *ctx, values *s, double p) {
  if (!s || !s->n || s->failed) {
    values_free(s);
    return;
  }
  double pos = (double)(s->n - 1) * p / 100.0;
  size_t lo = (size_t)floor(pos);
  double frac = pos - (double)lo;
  size_t hi = lo + 1 < s->n ? lo + 1 : lo;
  if (s->real) {
    qsort(s->d, s->n, sizeof *s->d, cmp_double);
    /* Written so that infinities survive: inf - inf would be NaN. */
    double v = frac == 0 ? s->d[lo] : s->d[lo] * (1 - frac) + s->d[hi] * frac;
    sqlite3_result_double(ctx, v);
  } else {
    qsort(s->i, s->n, sizeof *s->i, cmp_int64);
    /* In 128-bit / long double arithmetic: the gap between the two int64
    ** extremes is 2^64 - 1, and their median is -0.5, not 0. */
    __int128 a = s->i[lo], gap = (__int128)s->i[hi] - a;
    long double step = (long double)gap * (long double)frac;
    if (step == floorl(step))
      sqlite3_result_int64(ctx, (sqlite3_int64)(a + (__int128)step)); /* within [lo, hi] */
    else
      sqlite3_result_double(ctx, (double)((long double)a + step));
  }
  values_free(s);
}

static void median_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  values *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (!s->failed) collect(ctx, "profdb_median", argv[0], s);
}

static void median_final(sqlite3_context *ctx) {
  result_percentile(ctx, sqlite3_aggregate_context(ctx, 0), 50.0);
}

static void percentile_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  values *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (s->failed) return;
  int t = sqlite3_value_numeric_type(argv[1]);
  double p = sqlite3_value_double(argv[1]);
  if ((t != SQLITE_INTEGER && t != SQLITE_FLOAT) || !(p >= 0.0 && p <= 100.0)) {
    sqlite3_result_error(ctx,
                         "profdb_percentile(): 2nd argument must be a number"
                         " between 0 and 100",
                         -1);
    s->failed = 1;
    return;
  }
  if (s->p_set && p != s->p) {
    sqlite3_result_error(ctx,
                         "profdb_percentile(): 2nd argument must be the same"
                         " for every row",
                         -1);
    s->failed = 1;
    return;
  }
  s->p = p;
  s->p_set = 1;
  collect(ctx, "profdb_percentile", argv[0], s);
}

static void percentile_final(sqlite3_context *ctx) {
  values *s = sqlite3_aggregate_context(ctx, 0);
  result_percentile(ctx, s, s ? s->p : 0);
}

int profdb_stats_init(sqlite3 *db) {
  int rc = sqlite3_create_function(db, "profdb_median", 1, SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL,
                                   NULL, median_step, median_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "profdb_percentile", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 NULL, NULL, percentile_step, percentile_final);
  return rc;
}
