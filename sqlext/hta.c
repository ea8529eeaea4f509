/*
** hta.c — HolisticTraceAnalysis' own arithmetic, for `profdb report --scope hta`.
**
** HTA (facebookresearch/HolisticTraceAnalysis v0.6.0) reads a trace with
** pandas: times are float64 microseconds, rounded to whole microseconds
** when the trace has fractional timestamps, and its interval merge has its
** own rules.  These functions reproduce that arithmetic so that the hta
** scope gives HTA's figures; profdb's own figures never use them
** (docs/definitions.md, "Temporal breakdown").
**
** SQL Function: hta_ts(TS, ROUNDED)      scalar
** SQL Function: hta_end(TS, DUR, ROUNDED, SHIFT)      scalar
**   The start and the end (µs, REAL) HTA gives an event written with
**   ts = TS/1000 and dur = DUR/1000 µs (profdb's integer ns).  HTA reads
**   each as the double Python's json module parses from the decimal text
**   (a division of the ns in doubles would round twice beyond 2^53 ns).
**   ROUNDED = 1 for a trace HTA rounds (some timestamp of the file is
**   fractional): the start is ceil(ts) and the end floor(ts + dur), both
**   in doubles, so an event shorter than a microsecond can end before it
**   starts.  Else the start is ts and the end (ts - SHIFT) + dur: HTA
**   subtracts the job's first timestamp (SHIFT, as hta_ts gives it) before
**   adding the duration.  hta_end returns the end minus SHIFT; subtract
**   SHIFT from hta_ts to compare them.  NULL when an argument is NULL.
**     SELECT hta_ts(ts, 1) - 5, hta_end(ts, dur, 1, 5) FROM kernel;
**
** SQL Function: hta_start_ns(TS, ROUNDED)      scalar
** SQL Function: hta_end_ns(TS, DUR, ROUNDED)      scalar
**   The same start and end as integer ns, as the critical path takes them
**   (queries/lib/60_critical_path.sql): for a rounded trace HTA's whole
**   µs times 1000 (ceil(ts), floor(ts + dur), in its doubles); else TS and
**   TS + DUR exactly.  NULL when an argument is NULL; a result past 64 bits
**   is REAL, as SQLite's own arithmetic gives it.
**     SELECT hta_end_ns(ts, dur, 1) - hta_start_ns(ts, 1) FROM slice;  -- 0 or less: HTA drops it
**
** SQL Function: hta_busy(START, END)      aggregate
** SQL Function: hta_span(START, END)      aggregate
**   HTA's merge_kernel_intervals() over the [START, END] intervals (REAL
**   or INTEGER µs): sorted by START, an interval opens a new group when
**   its START is after every earlier END (touching intervals join); a
**   group runs from its smallest START to its largest END.  hta_busy is
**   the sum of the groups' lengths (HTA's "kernel run time"), hta_span the
**   last group's end minus the first group's start (HTA's "kernel time").
**   Unlike interval_union, END may be before START: HTA's rounding gives
**   such intervals (a group of one counts negative), and they are kept.
**   Equal STARTs keep the order the rows came in (pandas' sort is not
**   stable; the order only matters for such backwards intervals).  NULL
**   bounds are ignored; REAL results; NULL for no rows.
**
** Flags: the scalars DETERMINISTIC | INNOCUOUS; the aggregates INNOCUOUS.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"

#include <inttypes.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The double Python's json module parses from the decimal NS/1000 (correctly
** rounded: a division in doubles would round twice beyond 2^53 ns). */
static double us_of(sqlite3_int64 ns) {
  /* |ns| as unsigned: INT64_MIN has no positive int64 */
  sqlite3_uint64 mag = ns < 0 ? 0 - (sqlite3_uint64)ns : (sqlite3_uint64)ns;
  char text[48];
  snprintf(text, sizeof text, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", (uint64_t)(mag / 1000),
           (unsigned)(mag % 1000));
  return strtod(text, NULL);
}

/* Reads argument i as an integer (ns) into *v: 0 for NULL (the result is
** NULL), -1 after an error, 1 when set. */
static int int_arg(sqlite3_context *ctx, sqlite3_value **argv, int i, sqlite3_int64 *v) {
  int t = sqlite3_value_numeric_type(argv[i]);
  if (t == SQLITE_NULL) return 0;
  if (t != SQLITE_INTEGER) {
    char *msg =
        sqlite3_mprintf("%s(): %s argument must be an integer",
                        (const char *)sqlite3_user_data(ctx), profdb_ext_ordinal(i + 1));
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
    return -1;
  }
  *v = sqlite3_value_int64(argv[i]);
  return 1;
}

/* hta_ts(TS, ROUNDED) */
static void ts_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_int64 ts, rounded;
  if (int_arg(ctx, argv, 0, &ts) != 1 || int_arg(ctx, argv, 1, &rounded) != 1) return;
  double us = us_of(ts);
  sqlite3_result_double(ctx, rounded ? ceil(us) : us);
}

/* hta_end(TS, DUR, ROUNDED, SHIFT) */
static void end_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_int64 ts, dur, rounded;
  if (int_arg(ctx, argv, 0, &ts) != 1 || int_arg(ctx, argv, 1, &dur) != 1 ||
      int_arg(ctx, argv, 2, &rounded) != 1)
    return;
  int t = sqlite3_value_numeric_type(argv[3]);
  if (t == SQLITE_NULL) return;
  if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
    sqlite3_result_error(ctx, "hta_end(): 4th argument must be a number", -1);
    return;
  }
  double shift = sqlite3_value_double(argv[3]);
  double a = us_of(ts), d = us_of(dur);
  sqlite3_result_double(ctx, rounded ? floor(a + d) - shift : (a - shift) + d);
}

/* Whole µs as ns: an integer unless past 64 bits (then REAL, as SQLite's
** integer arithmetic overflows into). */
static void result_ns(sqlite3_context *ctx, double us) {
  if (us >= -9.2e15 && us <= 9.2e15)
    sqlite3_result_int64(ctx, (sqlite3_int64)us * 1000); /* exact: doubles past 2^53 are not */
  else
    sqlite3_result_double(ctx, us * 1000);
}

/* hta_start_ns(TS, ROUNDED) */
static void start_ns_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_int64 ts, rounded;
  if (int_arg(ctx, argv, 0, &ts) != 1 || int_arg(ctx, argv, 1, &rounded) != 1) return;
  if (rounded)
    result_ns(ctx, ceil(us_of(ts)));
  else
    sqlite3_result_int64(ctx, ts);
}

/* hta_end_ns(TS, DUR, ROUNDED) */
static void end_ns_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_int64 ts, dur, rounded;
  if (int_arg(ctx, argv, 0, &ts) != 1 || int_arg(ctx, argv, 1, &dur) != 1 ||
      int_arg(ctx, argv, 2, &rounded) != 1)
    return;
  if (rounded)
    result_ns(ctx, floor(us_of(ts) + us_of(dur)));
  else if ((dur > 0 && ts > INT64_MAX - dur) || (dur < 0 && ts < INT64_MIN - dur))
    sqlite3_result_double(ctx, (double)ts + (double)dur);
  else
    sqlite3_result_int64(ctx, ts + dur);
}

typedef struct hta_ival {
  double s, e;
  sqlite3_int64 seq; /* arrival order: ties on s keep it */
} hta_ival;

typedef struct hta_set {
  hta_ival *v;
  sqlite3_int64 n, cap;
} hta_set;

static int cmp_ival(const void *x, const void *y) {
  const hta_ival *a = x, *b = y;
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void merge_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  hta_set *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  for (int i = 0; i < 2; i++) {
    int t = sqlite3_value_numeric_type(argv[i]);
    if (t == SQLITE_NULL) return;
    if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
      char *msg =
          sqlite3_mprintf("%s(): %s argument must be a number",
                          (const char *)sqlite3_user_data(ctx), profdb_ext_ordinal(i + 1));
      sqlite3_result_error(ctx, msg, -1);
      sqlite3_free(msg);
      return;
    }
  }
  if (s->n == s->cap) {
    sqlite3_int64 cap = s->cap ? s->cap * 2 : 256;
    hta_ival *v = sqlite3_realloc64(s->v, (sqlite3_uint64)cap * sizeof *v);
    if (!v) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n] = (hta_ival){sqlite3_value_double(argv[0]), sqlite3_value_double(argv[1]), s->n};
  s->n++;
}

/* busy = sum of the groups' (max end - min start); span = the last group's
** max end - the first group's min start. */
static void merge_final(sqlite3_context *ctx) {
  hta_set *s = sqlite3_aggregate_context(ctx, 0);
  if (!s || s->n == 0) {
    if (s) sqlite3_free(s->v);
    return; /* NULL */
  }
  qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_ival);
  double sum_start = s->v[0].s, sum_end = 0, first = s->v[0].s;
  double group_end = s->v[0].e, seen_end = s->v[0].e; /* seen: max end of all earlier rows */
  for (sqlite3_int64 i = 1; i < s->n; i++) {
    const hta_ival *r = &s->v[i];
    if (r->s > seen_end) { /* a new group */
      sum_end += group_end;
      sum_start += r->s;
      group_end = r->e;
    } else if (r->e > group_end) {
      group_end = r->e;
    }
    if (r->e > seen_end) seen_end = r->e;
  }
  sum_end += group_end;
  int span = strcmp((const char *)sqlite3_user_data(ctx), "hta_span") == 0;
  sqlite3_result_double(ctx, span ? group_end - first : sum_end - sum_start);
  sqlite3_free(s->v);
}

int profdb_hta_init(sqlite3 *db) {
  const int pure = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc =
      sqlite3_create_function(db, "hta_ts", 2, pure, (void *)"hta_ts", ts_func, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "hta_end", 4, pure, (void *)"hta_end", end_func, NULL,
                                 NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "hta_start_ns", 2, pure, (void *)"hta_start_ns",
                                 start_ns_func, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "hta_end_ns", 3, pure, (void *)"hta_end_ns", end_ns_func,
                                 NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "hta_busy", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 (void *)"hta_busy", NULL, merge_step, merge_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "hta_span", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 (void *)"hta_span", NULL, merge_step, merge_final);
  return rc;
}
