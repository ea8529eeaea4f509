/* extsort.test.c — the external sort gives the same order as qsort, with
** everything in memory and with many runs merged from temporary files. */
#include "extsort.h"

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

/* Sort n pseudo-random records with mem bytes of buffer; 0 when the
** output is the qsort order. */
static int check(size_t n, size_t mem) {
  rec *want = malloc((n ? n : 1) * sizeof *want);
  ld_extsort *s = extsort_new(sizeof(rec), cmp_rec, mem);
  uint64_t x = 88172645463325252ULL;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rec r = {(int64_t)(x % 1000) - 500, (int64_t)i, {0}};
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
  if (bad) printf("FAIL extsort of %zu records with %zu bytes of buffer\n", n, mem);
  return bad;
}

int main(void) {
  int failures = 0;
  failures += check(0, 4096); /* nothing */
  failures += check(1, 4096);
  failures += check(1000, 1 << 20);  /* all in memory */
  failures += check(100000, 4096);   /* ~1500 runs of 64 records */
  failures += check(50000, 40 * 16); /* the smallest buffer: 16 records */
  if (!failures) puts("extsort: all passed");
  return failures != 0;
}
