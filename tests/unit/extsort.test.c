/* extsort.test.c — the external sort gives the same order as qsort, with
** everything in memory and with many runs merged from temporary files. */
#include "extsort.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
  int64_t key, id;
  char pad[24];
} rec;

static int cmp_rec(const void *x, const void *y) {
  const rec *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Sort n records with mem bytes of buffer; 0 when the output is the qsort
** order.  runs = 0: pseudo-random keys; else the input is that many
** ascending runs one after another (as the parser's keys arrive: merged,
** not sorted, when a buffer holds at most 8), keys repeating across runs. */
static int check_runs(size_t n, size_t mem, size_t runs) {
  rec *want = malloc((n ? n : 1) * sizeof *want);
  ld_extsort *s = extsort_new(sizeof(rec), cmp_rec, mem);
  uint64_t x = 88172645463325252ULL;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    int64_t key = (int64_t)(x % 1000) - 500;
    if (runs) key = (int64_t)(i % ((n + runs - 1) / runs)) / 3; /* ties across runs */
    /* unique ids; in runs, ascending with the key (each run in order) */
    rec r = {key, (int64_t)(runs ? i : n - i), {0}};
    memset(r.pad, (int)(i & 0x7f), sizeof r.pad);
    want[i] = r;
    if (extsort_add(s, &r)) return 1;
  }
  if (extsort_finish(s)) return 1;
  qsort(want, n, sizeof *want, cmp_rec);
  size_t got = 0;
  int bad = 0;
  for (const rec *r; (r = extsort_next(s));) {
    if (got >= n || memcmp(r, &want[got], sizeof *r)) bad = 1;
    got++;
  }
  if (got != n || extsort_failed(s)) bad = 1;
  extsort_free(s);
  free(want);
  if (bad)
    printf("FAIL extsort of %zu records (%zu runs) with %zu bytes of buffer\n", n, runs, mem);
  return bad;
}

static int cmp_id(const void *x, const void *y) {
  const rec *a = x, *b = y;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* extsort_int_key: n records with unique ids (negative ones too) in no
** order, radix-sorted by id; 0 when the output is the qsort order. */
static int check_keyed(size_t n, size_t mem, int64_t scale) {
  rec *want = malloc((n ? n : 1) * sizeof *want);
  ld_extsort *s = extsort_new(sizeof(rec), cmp_id, mem);
  extsort_int_key(s, offsetof(rec, id));
  for (size_t i = 0; i < n; i++) {
    rec r = {(int64_t)i, ((int64_t)(i * 7919 % (n ? n : 1)) - (int64_t)n / 2) * scale, {0}};
    memset(r.pad, (int)(i & 0x7f), sizeof r.pad);
    want[i] = r;
    if (extsort_add(s, &r)) return 1;
  }
  int bad = extsort_finish(s) != 0;
  qsort(want, n, sizeof *want, cmp_id);
  size_t got = 0;
  for (const rec *r; !bad && (r = extsort_next(s));) {
    if (got >= n || memcmp(r, &want[got], sizeof *r)) bad = 1;
    got++;
  }
  if (got != n || extsort_failed(s)) bad = 1;
  extsort_free(s);
  free(want);
  if (bad) printf("FAIL keyed extsort of %zu records with %zu bytes of buffer\n", n, mem);
  return bad;
}

static int check(size_t n, size_t mem) {
  return check_runs(n, mem, 0);
}

int main(void) {
  int failures = 0;
  failures += check(0, 4096); /* nothing */
  failures += check(1, 4096);
  failures += check(1000, 1 << 20);  /* all in memory */
  failures += check(100000, 4096);   /* ~1500 runs of 64 records */
  failures += check(50000, 40 * 16); /* the smallest buffer: 16 records */
  /* few ascending runs: merged in memory, or spilled as merged runs */
  size_t runs[] = {1, 2, 7, 8, 9, 40};
  for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
    failures += check_runs(20000, 1 << 20, runs[i]);  /* in memory */
    failures += check_runs(100000, 1 << 18, runs[i]); /* 8192 records a buffer */
  }
  /* radix-sorted by an int64 key: in memory, spilled, keys spanning bytes */
  failures += check_keyed(1, 4096, 1);
  failures += check_keyed(30011, 1 << 22, 1);
  failures += check_keyed(100000, 1 << 18, 1);
  failures += check_keyed(100000, 1 << 18, (int64_t)1 << 40);
  if (!failures) puts("extsort: all passed");
  return failures != 0;
}
