/*
** extsort.c — external merge sort of fixed-size records (see extsort.h).
*/
#include "extsort.h"
#include "oom.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_RECORDS 2048 /* records buffered per run while merging */
#define MAX_RUNS 64       /* runs merged into one before writing more: open files stay few */
#define FEW_RUNS 8 /* a buffer of at most this many ascending runs is merged, not sorted */

typedef struct run {
  FILE *f;
  char *buf;     /* READ_RECORDS records */
  size_t n, pos; /* records in buf, next one */
} run;

struct ld_extsort {
  size_t rec;     /* record size */
  size_t cap;     /* records the in-memory buffer holds now */
  size_t max_cap; /* records it may grow to before runs are spilled */
  int (*cmp)(const void *, const void *);
  char *mem; /* the in-memory buffer */
  size_t n;  /* records in it */
  run *runs;
  int nruns;
  int *heap; /* run indexes, smallest current record first */
  int nheap;
  size_t next; /* single in-memory run: next record */
  int merging; /* runs were written: merge them */
  int pending; /* the run at heap[0] must advance before the next record */
  int failed;
  /* The buffer's ascending runs, [bound[i], bound[i + 1]), merged in place
  ** of a sort when they are few (nmem > 1; nmem = 0: sorted, or not few):
  ** the parser's keys arrive as a handful of runs (Kineto writes each
  ** category of a thread's events in time order). */
  size_t bound[FEW_RUNS + 1], at[FEW_RUNS];
  int nmem;
  /* extsort_int_key: records ordered by the int64 at key_off; the buffer's
  ** order is then a radix sort's permutation (perm, n entries), not a
  ** qsort of the records: the _slice_tree rows, by id. */
  long key_off;
  uint32_t *perm;
};

ld_extsort *extsort_new(size_t rec_size, int (*cmp)(const void *, const void *),
                        size_t mem_bytes) {
  ld_extsort *s = calloc(1, sizeof *s);
  if (!s) ld_oom();
  s->rec = rec_size;
  s->cmp = cmp;
  s->key_off = -1;
  s->max_cap = mem_bytes / rec_size;
  if (s->max_cap < 16) s->max_cap = 16;
  /* Start small and double: a small load never pays for the whole budget. */
  s->cap = s->max_cap < 1024 ? s->max_cap : 1024;
  s->mem = malloc(s->cap * rec_size);
  if (!s->mem) ld_oom();
  return s;
}

void extsort_int_key(ld_extsort *s, size_t offset) {
  s->key_off = (long)offset;
}

/* s->perm: the buffer's records by their int64 key, equal keys in buffer
** order (an LSD radix sort, a byte a pass, over key - min). */
static void radix_order(ld_extsort *s) {
  typedef struct {
    uint64_t key;
    uint32_t at;
  } pair;
  size_t n = s->n;
  pair *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  free(s->perm);
  s->perm = malloc(n * sizeof *s->perm);
  if (!a || !b || !s->perm) ld_oom();
  int64_t min = INT64_MAX;
  for (size_t i = 0; i < n; i++) {
    int64_t k;
    memcpy(&k, s->mem + i * s->rec + s->key_off, sizeof k);
    if (k < min) min = k;
    a[i].key = (uint64_t)k;
    a[i].at = (uint32_t)i;
  }
  uint64_t span = 0;
  for (size_t i = 0; i < n; i++) {
    a[i].key -= (uint64_t)min;
    span |= a[i].key;
  }
  for (int shift = 0; shift < 64 && (span >> shift); shift += 8) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++) count[((a[i].key >> shift) & 255) + 1]++;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (size_t i = 0; i < n; i++) b[count[(a[i].key >> shift) & 255]++] = a[i];
    pair *t = a;
    a = b;
    b = t;
  }
  for (size_t i = 0; i < n; i++) s->perm[i] = a[i].at;
  free(a);
  free(b);
}

/* Order the buffer: find its ascending runs; when there are few, set them
** up to be merged (mem_next), else sort it (qsort).  Either gives the
** comparator's order (a total one: equal records are identical). */
static void order_buffer(ld_extsort *s) {
  int k = 0;
  s->nmem = 0;
  s->bound[0] = 0;
  free(s->perm);
  s->perm = NULL;
  if (s->key_off >= 0 && s->n > 1) {
    radix_order(s);
    return;
  }
  for (size_t i = 1; i < s->n; i++) {
    if (s->cmp(s->mem + (i - 1) * s->rec, s->mem + i * s->rec) <= 0) continue;
    if (++k == FEW_RUNS) {
      qsort(s->mem, s->n, s->rec, s->cmp);
      return;
    }
    s->bound[k] = i;
  }
  s->bound[++k] = s->n;
  if (k == 1) return; /* already in order */
  for (int r = 0; r < k; r++) s->at[r] = s->bound[r];
  s->nmem = k;
}

/* The next record of the buffer's runs being merged, NULL after the last. */
static const void *mem_next(ld_extsort *s) {
  int best = -1;
  const char *min = NULL;
  for (int r = 0; r < s->nmem; r++) {
    if (s->at[r] == s->bound[r + 1]) continue;
    const char *x = s->mem + s->at[r] * s->rec;
    if (!min || s->cmp(x, min) < 0) {
      min = x;
      best = r;
    }
  }
  if (best >= 0) s->at[best]++;
  return min;
}

/* Write the ordered buffer to f, gathered into large writes. */
static int write_buffer(ld_extsort *s, FILE *f) {
  if (!s->nmem && !s->perm) return fwrite(s->mem, s->rec, s->n, f) == s->n ? 0 : -1;
  char stage[1 << 16];
  size_t per = sizeof stage / s->rec, k = 0, i = 0;
  int rc = 0;
  for (const void *r;;) {
    if (s->perm)
      r = i < s->n ? s->mem + (size_t)s->perm[i++] * s->rec : NULL;
    else
      r = mem_next(s);
    if (r && per) {
      memcpy(stage + k * s->rec, r, s->rec);
      if (++k < per) continue;
    } else if (r && fwrite(r, s->rec, 1, f) != 1) { /* a record over 64 KiB */
      rc = -1;
      break;
    }
    if (k && fwrite(stage, s->rec, k, f) != k) rc = -1;
    k = 0;
    if (!r || rc) break;
  }
  free(s->perm);
  s->perm = NULL;
  s->nmem = 0;
  return rc;
}

/* Order the buffer and write it out as a run. */
static int spill(ld_extsort *s) {
  order_buffer(s);
  FILE *f = tmpfile();
  if (!f) return -1;
  if (write_buffer(s, f) || fflush(f) != 0) {
    fclose(f);
    return -1;
  }
  run *r = realloc(s->runs, (size_t)(s->nruns + 1) * sizeof *r);
  if (!r) ld_oom();
  s->runs = r;
  r[s->nruns++] = (run){f, NULL, 0, 0};
  s->n = 0;
  return 0;
}

static int merge_runs(ld_extsort *s);

int extsort_add(ld_extsort *s, const void *rec) {
  if (s->n == s->cap && s->cap < s->max_cap) {
    size_t cap = s->cap * 2 < s->max_cap ? s->cap * 2 : s->max_cap;
    char *mem = realloc(s->mem, cap * s->rec);
    if (!mem) ld_oom();
    s->mem = mem;
    s->cap = cap;
  }
  if (s->n == s->cap && (spill(s) || (s->nruns == MAX_RUNS && merge_runs(s)))) {
    s->failed = 1;
    return -1;
  }
  memcpy(s->mem + s->n * s->rec, rec, s->rec);
  s->n++;
  return 0;
}

int extsort_add_bytes(void *arg, const void *bytes, size_t len) {
  ld_extsort *s = arg;
  return len == s->rec ? extsort_add(s, bytes) : -1; /* extsort_add copies bytewise */
}

/* Refill a run's buffer; 0 when it is exhausted. */
static int refill(ld_extsort *s, run *r) {
  r->n = fread(r->buf, s->rec, READ_RECORDS, r->f);
  r->pos = 0;
  if (r->n == 0 && ferror(r->f)) s->failed = 1;
  return r->n > 0;
}

static const void *head(const ld_extsort *s, int i) {
  const run *r = &s->runs[i];
  return r->buf + r->pos * s->rec;
}

static void sift_down(ld_extsort *s, int i) {
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < s->nheap && s->cmp(head(s, s->heap[l]), head(s, s->heap[m])) < 0) m = l;
    if (l + 1 < s->nheap && s->cmp(head(s, s->heap[l + 1]), head(s, s->heap[m])) < 0) m = l + 1;
    if (m == i) return;
    int t = s->heap[i];
    s->heap[i] = s->heap[m];
    s->heap[m] = t;
    i = m;
  }
}

/* Start merging the runs: buffers, heap.  0, or -1 on a read error. */
static int start_merge(ld_extsort *s) {
  free(s->heap);
  s->heap = malloc((size_t)s->nruns * sizeof *s->heap);
  if (!s->heap) ld_oom();
  s->nheap = 0;
  s->pending = 0;
  for (int i = 0; i < s->nruns; i++) {
    run *r = &s->runs[i];
    if (!r->buf) {
      r->buf = malloc(READ_RECORDS * s->rec);
      if (!r->buf) ld_oom();
    }
    rewind(r->f);
    if (refill(s, r)) s->heap[s->nheap++] = i;
  }
  for (int i = s->nheap / 2 - 1; i >= 0; i--) sift_down(s, i);
  return s->failed ? -1 : 0;
}

static const void *merge_next(ld_extsort *s);

/* Merge all the runs into one (many runs would mean many open files). */
static int merge_runs(ld_extsort *s) {
  FILE *out = tmpfile();
  if (!out || start_merge(s)) {
    if (out) fclose(out);
    return -1;
  }
  for (const void *r; (r = merge_next(s));)
    if (fwrite(r, s->rec, 1, out) != 1) {
      fclose(out);
      return -1;
    }
  if (s->failed || fflush(out) != 0) {
    fclose(out);
    return -1;
  }
  for (int i = 0; i < s->nruns; i++) {
    fclose(s->runs[i].f);
    free(s->runs[i].buf);
  }
  s->runs[0] = (run){out, NULL, 0, 0};
  s->nruns = 1;
  return 0;
}

int extsort_finish(ld_extsort *s) {
  if (s->nruns == 0) { /* everything fit in memory */
    order_buffer(s);
    s->next = 0;
    return 0;
  }
  if (s->n && spill(s)) {
    s->failed = 1;
    return -1;
  }
  free(s->mem); /* the merge needs only the run buffers */
  s->mem = NULL;
  s->merging = 1;
  return start_merge(s);
}

const void *extsort_next(ld_extsort *s) {
  if (!s->merging) {
    if (s->nmem) return mem_next(s);
    if (s->next >= s->n) return NULL;
    size_t at = s->perm ? s->perm[s->next] : s->next;
    s->next++;
    return s->mem + at * s->rec;
  }
  return merge_next(s);
}

static const void *merge_next(ld_extsort *s) {
  if (s->pending) {
    /* The record handed out last time is consumed: advance its run (its
    ** buffer may be refilled only now, so that record stayed valid). */
    s->pending = 0;
    run *r = &s->runs[s->heap[0]];
    if (++r->pos == r->n && !refill(s, r)) s->heap[0] = s->heap[--s->nheap];
    if (s->nheap) sift_down(s, 0);
  }
  if (s->nheap == 0) return NULL;
  s->pending = 1;
  return head(s, s->heap[0]);
}

int extsort_failed(const ld_extsort *s) {
  return s->failed;
}

void extsort_free(ld_extsort *s) {
  if (!s) return;
  for (int i = 0; i < s->nruns; i++) {
    if (s->runs[i].f) fclose(s->runs[i].f);
    free(s->runs[i].buf);
  }
  free(s->runs);
  free(s->heap);
  free(s->mem);
  free(s->perm);
  free(s);
}
