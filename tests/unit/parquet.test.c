/*
** parquet.test.c — export/parquet.c's bytes checked against the Parquet
** specification (parquet-format README.md, Encodings.md, parquet.thrift):
**   - the RLE/bit-packed hybrid encoding: the specification's own example
**     and a decoder written here from the specification, over every bit
**     width and runs of every length;
**   - a written file: "PAR1" at both ends, the footer length, the
**     FileMetaData decoded with a Thrift compact-protocol reader written
**     here (version, schema, num_rows, row groups, codec, statistics,
**     key/value metadata, created_by), the page headers at the offsets the
**     footer gives, and the first data page decompressed and decoded back
**     to the values written.
** DuckDB reads the same files independently in tests/node/.
*/
#include "parquet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static int failures;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* ---- a Thrift compact protocol reader (from the protocol's spec) ------- */

typedef struct node {
  int16_t id; /* field id (struct members) */
  int type;   /* compact type: 1/2 bool, 3 byte, 4-6 ints, 8 binary, 9 list, 12 struct */
  int64_t i;  /* integer or bool value */
  const uint8_t *bin;
  size_t len;       /* binary */
  struct node *kid; /* struct fields or list elements */
  int nkid;
} node;

typedef struct rd {
  const uint8_t *p;
  size_t n, i;
  int bad;
} rd;

static uint64_t uleb(rd *r) {
  uint64_t v = 0;
  for (int s = 0; s < 64; s += 7) {
    if (r->i >= r->n) {
      r->bad = 1;
      return 0;
    }
    uint8_t b = r->p[r->i++];
    v |= (uint64_t)(b & 0x7F) << s;
    if (!(b & 0x80)) return v;
  }
  r->bad = 1;
  return v;
}

static int64_t zz(rd *r) {
  uint64_t u = uleb(r);
  return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static void parse_struct(rd *r, node *out);

static void parse_value(rd *r, int type, node *v) {
  v->type = type;
  switch (type) {
    case 1: v->i = 1; break;
    case 2: v->i = 0; break;
    case 3: v->i = r->i < r->n ? r->p[r->i++] : (r->bad = 1, 0); break;
    case 4:
    case 5:
    case 6: v->i = zz(r); break;
    case 8:
      v->len = uleb(r);
      if (r->i + v->len > r->n) {
        r->bad = 1;
        return;
      }
      v->bin = r->p + r->i;
      r->i += v->len;
      break;
    case 9: {
      uint8_t h = r->i < r->n ? r->p[r->i++] : (r->bad = 1, 0);
      size_t n = h >> 4;
      int et = h & 15;
      if (n == 15) n = uleb(r);
      if (n > r->n) {
        r->bad = 1;
        return;
      }
      v->kid = calloc(n ? n : 1, sizeof *v->kid);
      v->nkid = (int)n;
      for (size_t k = 0; k < n && !r->bad; k++)
        parse_value(r, et == 1 || et == 2 ? 3 : et, &v->kid[k]);
      break;
    }
    case 12: parse_struct(r, v); break;
    default: r->bad = 1;
  }
}

static void parse_struct(rd *r, node *out) {
  out->type = 12;
  int16_t last = 0;
  int cap = 0;
  while (!r->bad) {
    if (r->i >= r->n) {
      r->bad = 1;
      return;
    }
    uint8_t h = r->p[r->i++];
    if (h == 0) return;
    int type = h & 15, delta = h >> 4;
    int16_t id = delta ? (int16_t)(last + delta) : (int16_t)zz(r);
    last = id;
    if (out->nkid == cap) {
      cap = cap ? cap * 2 : 8;
      out->kid = realloc(out->kid, (size_t)cap * sizeof *out->kid);
    }
    node *f = &out->kid[out->nkid++];
    memset(f, 0, sizeof *f);
    f->id = id;
    parse_value(r, type, f);
  }
}

static void free_node(node *n) {
  for (int k = 0; k < n->nkid; k++) free_node(&n->kid[k]);
  free(n->kid);
}

static const node *get(const node *s, int id) {
  for (int k = 0; s && k < s->nkid; k++)
    if (s->kid[k].id == id) return &s->kid[k];
  return NULL;
}

static int64_t geti(const node *s, int id) {
  const node *f = get(s, id);
  return f ? f->i : -999999;
}

static int bin_is(const node *f, const char *s) {
  return f && f->type == 8 && f->len == strlen(s) && !memcmp(f->bin, s, f->len);
}

/* ---- the hybrid encoding, decoded as Encodings.md describes it ------- */

static size_t rle_decode(const uint8_t *p, size_t n, int bw, uint32_t *out, size_t want) {
  rd r = {p, n, 0, 0};
  size_t got = 0;
  int vbytes = (bw + 7) / 8;
  while (got < want && r.i < r.n && !r.bad) {
    uint64_t h = uleb(&r);
    if (h & 1) { /* bit-packed: (h >> 1) groups of 8 */
      size_t count = (size_t)(h >> 1) * 8;
      uint64_t acc = 0;
      int bits = 0;
      for (size_t k = 0; k < count; k++) {
        while (bits < bw) {
          acc |= (uint64_t)(r.i < r.n ? r.p[r.i++] : 0) << bits;
          bits += 8;
        }
        uint32_t v = (uint32_t)(acc & ((bw == 32) ? 0xFFFFFFFFu : ((1u << bw) - 1)));
        acc >>= bw;
        bits -= bw;
        if (got < want) out[got++] = v;
      }
    } else {
      uint32_t v = 0;
      for (int k = 0; k < vbytes; k++) v |= (uint32_t)(r.i < r.n ? r.p[r.i++] : 0) << (8 * k);
      for (uint64_t k = 0; k < (h >> 1) && got < want; k++) out[got++] = v;
    }
  }
  return got;
}

static void test_hybrid(void) {
  /* Encodings.md's example: 0..7 at bit width 3, bit-packed. */
  uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  uint8_t *out = NULL;
  size_t len = 0, cap = 0;
  CHECK(pq_rle_hybrid(v, 8, 3, &out, &len, &cap) == 0);
  static const uint8_t want[] = {0x03, 0x88, 0xC6, 0xFA};
  CHECK(len == sizeof want && !memcmp(out, want, len));
  /* 100 times 5: one RLE run, header 100 << 1 as ULEB128, one value byte. */
  uint32_t r[100];
  for (int i = 0; i < 100; i++) r[i] = 5;
  len = 0;
  pq_rle_hybrid(r, 100, 3, &out, &len, &cap);
  static const uint8_t want2[] = {0xC8, 0x01, 0x05};
  CHECK(len == sizeof want2 && !memcmp(out, want2, len));
  /* Round trips: every width, runs of every length, odd counts. */
  srand(7);
  for (int bw = 1; bw <= 20; bw++)
    for (int trial = 0; trial < 20; trial++) {
      size_t n = (size_t)(rand() % 3000) + 1;
      uint32_t *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y);
      uint32_t mask = bw == 32 ? 0xFFFFFFFFu : (1u << bw) - 1;
      for (size_t i = 0; i < n;) {
        size_t run = (size_t)(rand() % 20) + 1;
        uint32_t val = (uint32_t)rand() & mask;
        for (size_t k = 0; k < run && i < n; k++)
          x[i++] = rand() % 3 ? val : (uint32_t)rand() & mask;
      }
      len = 0;
      CHECK(pq_rle_hybrid(x, n, bw, &out, &len, &cap) == 0);
      CHECK(rle_decode(out, len, bw, y, n) == n);
      CHECK(!memcmp(x, y, n * sizeof *x));
      free(x);
      free(y);
    }
  free(out);
}

/* ---- a whole file ---------------------------------------------------------- */

#define NROWS 150000

static const char *names[] = {"aten::mm", "aten::add", "ncclKernel_AllReduce", "", "Ω"};

static void test_file(const char *path) {
  char err[256] = "";
  pq_writer *w = pq_open(path, PQ_ZSTD, err, sizeof err);
  CHECK(w != NULL);
  if (!w) return;
  CHECK(pq_column(w, "ts", PQ_INT64) == 0);
  CHECK(pq_column(w, "ratio", PQ_DOUBLE) == 1);
  CHECK(pq_column(w, "name", PQ_STRING) == 2);
  for (int64_t i = 0; i < NROWS; i++) {
    if (i % 7) pq_int64(w, 0, 1000000000000LL + i * 10 - 500); /* every 7th NULL */
    pq_double(w, 1, i * 0.5);
    pq_text(w, 2, names[i % 5], strlen(names[i % 5]));
    CHECK(pq_end_row(w) == 0);
    if (i == 99999) CHECK(pq_row_group(w) == 0); /* two row groups */
  }
  pq_kv(w, "profdb.schema_version", "2");
  CHECK(pq_close(w) == 0);

  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  uint8_t *b = malloc((size_t)size);
  fseek(f, 0, SEEK_SET);
  CHECK(fread(b, 1, (size_t)size, f) == (size_t)size);
  fclose(f);
  /* Magic at both ends; the footer length just before the last one. */
  CHECK(size > 12 && !memcmp(b, "PAR1", 4) && !memcmp(b + size - 4, "PAR1", 4));
  uint32_t flen = (uint32_t)b[size - 8] | (uint32_t)b[size - 7] << 8 |
                  (uint32_t)b[size - 6] << 16 | (uint32_t)b[size - 5] << 24;
  CHECK(flen > 0 && flen < (uint32_t)size - 12);
  rd r = {b + size - 8 - flen, flen, 0, 0};
  node meta = {0};
  parse_struct(&r, &meta);
  CHECK(!r.bad && r.i == flen); /* the footer is exactly one struct */
  CHECK(geti(&meta, 1) == 1);   /* version */
  const node *schema = get(&meta, 2);
  CHECK(schema && schema->type == 9 && schema->nkid == 4);
  if (schema && schema->nkid == 4) {
    CHECK(geti(&schema->kid[0], 5) == 3); /* root num_children */
    CHECK(bin_is(get(&schema->kid[1], 4), "ts") && geti(&schema->kid[1], 1) == 2);
    CHECK(geti(&schema->kid[1], 3) == 1); /* OPTIONAL */
    CHECK(bin_is(get(&schema->kid[2], 4), "ratio") && geti(&schema->kid[2], 1) == 5);
    CHECK(bin_is(get(&schema->kid[3], 4), "name") && geti(&schema->kid[3], 1) == 6);
    CHECK(geti(&schema->kid[3], 6) == 0);            /* converted_type UTF8 */
    CHECK(get(get(&schema->kid[3], 10), 1) != NULL); /* logicalType STRING */
  }
  CHECK(geti(&meta, 3) == NROWS); /* num_rows */
  const node *groups = get(&meta, 4);
  CHECK(groups && groups->nkid == 2);
  if (groups && groups->nkid == 2) {
    CHECK(geti(&groups->kid[0], 3) == 100000 && geti(&groups->kid[1], 3) == NROWS - 100000);
    CHECK(geti(&groups->kid[0], 5) == 4); /* the first row group starts after PAR1 */
    const node *cols = get(&groups->kid[0], 1);
    CHECK(cols && cols->nkid == 3);
    if (cols && cols->nkid == 3) {
      const node *ts = get(&cols->kid[0], 3), *nm = get(&cols->kid[2], 3);
      CHECK(geti(ts, 4) == 6);      /* codec ZSTD */
      CHECK(geti(ts, 5) == 100000); /* num_values */
      const node *st = get(ts, 12); /* statistics */
      int64_t mn = 0, mx = 0;
      CHECK(get(st, 6) && get(st, 6)->len == 8 && get(st, 5) && get(st, 5)->len == 8);
      if (get(st, 6) && get(st, 5)) {
        memcpy(&mn, get(st, 6)->bin, 8);
        memcpy(&mx, get(st, 5)->bin, 8);
      }
      CHECK(mn == 1000000000000LL + 10 - 500);         /* row 0 is NULL */
      CHECK(mx == 1000000000000LL + 99999 * 10 - 500); /* row 99999 is not a 7th */
      CHECK(geti(st, 3) == (100000 + 6) / 7);          /* null_count */
      const node *ns = get(nm, 12);
      CHECK(bin_is(get(ns, 6), "") && bin_is(get(ns, 5), "Ω")); /* bytewise order */
      const node *enc = get(nm, 2);
      int dict = 0;
      for (int k = 0; enc && k < enc->nkid; k++) dict |= enc->kid[k].i == 8;
      CHECK(dict); /* RLE_DICTIONARY */

      /* The dictionary page of name, at dictionary_page_offset. */
      int64_t doff = geti(nm, 11);
      CHECK(doff > 4 && doff < size);
      if (doff > 4 && doff < size) {
        rd h = {b + doff, (size_t)(size - doff), 0, 0};
        node ph = {0};
        parse_struct(&h, &ph);
        CHECK(geti(&ph, 1) == 2);         /* DICTIONARY_PAGE */
        CHECK(geti(get(&ph, 7), 1) == 5); /* 5 distinct names */
        free_node(&ph);
      }
      /* The first data page of ts: decompress, decode, compare. */
      int64_t off = geti(ts, 9);
      CHECK(off == 4);
      rd h = {b + off, (size_t)(size - off), 0, 0};
      node ph = {0};
      parse_struct(&h, &ph);
      CHECK(geti(&ph, 1) == 0); /* DATA_PAGE */
      const node *dp = get(&ph, 5);
      int64_t nv = geti(dp, 1), usize = geti(&ph, 2), csize = geti(&ph, 3);
      CHECK(nv == PQ_PAGE_ROWS && geti(dp, 2) == 0 && geti(dp, 3) == 3);
      uint8_t *page = malloc((size_t)usize + 1);
      size_t got = ZSTD_decompress(page, (size_t)usize, b + off + h.i, (size_t)csize);
      CHECK(!ZSTD_isError(got) && got == (size_t)usize);
      if (!ZSTD_isError(got) && got == (size_t)usize) {
        uint32_t llen = (uint32_t)page[0] | (uint32_t)page[1] << 8 | (uint32_t)page[2] << 16 |
                        (uint32_t)page[3] << 24;
        uint32_t *lev = calloc((size_t)nv, sizeof *lev);
        CHECK(rle_decode(page + 4, llen, 1, lev, (size_t)nv) == (size_t)nv);
        const uint8_t *vals = page + 4 + llen;
        int64_t k = 0, bad = 0;
        for (int64_t i = 0; i < nv; i++) {
          if (lev[i] != (i % 7 != 0)) bad++;
          if (!lev[i]) continue;
          int64_t x;
          memcpy(&x, vals + 8 * k++, 8);
          if (x != 1000000000000LL + i * 10 - 500) bad++;
        }
        CHECK(bad == 0);
        CHECK(4 + llen + 8 * k == (uint32_t)usize); /* nothing after the values */
        free(lev);
      }
      free(page);
      free_node(&ph);
    }
  }
  const node *kv = get(&meta, 5);
  CHECK(kv && kv->nkid == 1 && bin_is(get(&kv->kid[0], 1), "profdb.schema_version") &&
        bin_is(get(&kv->kid[0], 2), "2"));
  const node *by = get(&meta, 6);
  CHECK(by && by->len > 14 && !memcmp(by->bin, "profdb version", 14));
  free_node(&meta);
  free(b);
}

/* The same rows give the same bytes (Requirement 2 of parquet.c). */
static void test_deterministic(const char *a, const char *b) {
  const char *paths[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    char err[256];
    pq_writer *w = pq_open(paths[k], PQ_ZSTD, err, sizeof err);
    if (!w) return;
    pq_column(w, "x", PQ_INT64);
    pq_column(w, "s", PQ_STRING);
    for (int i = 0; i < 5000; i++) {
      pq_int64(w, 0, i * 3);
      pq_text(w, 1, names[i % 3], strlen(names[i % 3]));
      pq_end_row(w);
    }
    pq_kv(w, "k", "v");
    CHECK(pq_close(w) == 0);
  }
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  int same = fa && fb;
  while (same) {
    int ca = fgetc(fa), cb = fgetc(fb);
    if (ca != cb) same = 0;
    if (ca == EOF) break;
  }
  CHECK(same);
  if (fa) fclose(fa);
  if (fb) fclose(fb);
}

/* pq_group_rows cuts row groups every n rows; pq_bytes counts the file's
** bytes as each row group is written (export.c splits files by it). */
static void test_group_rows(const char *path) {
  char err[256] = "";
  pq_writer *w = pq_open(path, PQ_ZSTD, err, sizeof err);
  CHECK(w != NULL);
  if (!w) return;
  CHECK(pq_column(w, "ts", PQ_INT64) == 0);
  CHECK(pq_group_rows(w, 0) == -1 && pq_group_rows(w, PQ_GROUP_ROWS + 1) == -1);
  CHECK(pq_group_rows(w, 3) == 0);
  CHECK(pq_bytes(w) == 4); /* the magic */
  int64_t last = pq_bytes(w);
  for (int i = 0; i < 7; i++) {
    pq_int64(w, 0, i);
    CHECK(pq_end_row(w) == 0);
    /* rows 3 and 6 end a row group: the file grows then, and only then */
    CHECK((pq_bytes(w) > last) == (i % 3 == 2));
    last = pq_bytes(w);
    if (i == 0) CHECK(pq_group_rows(w, 2) == -1); /* not after the first row */
  }
  CHECK(pq_rows(w) == 7);
  CHECK(pq_close(w) == 0);
}

int main(void) {
  const char *t = getenv("TMPDIR");
  char path[4000], p2[4096], p3[4096];
  snprintf(path, sizeof path, "%s/pq_test_%d.parquet", t && *t ? t : "/tmp", (int)getpid());
  snprintf(p2, sizeof p2, "%s.a", path);
  snprintf(p3, sizeof p3, "%s.b", path);
  test_hybrid();
  test_file(path);
  test_deterministic(p2, p3);
  test_group_rows(path);
  remove(path);
  remove(p2);
  remove(p3);
  if (failures)
    fprintf(stderr, "%d checks failed\n", failures);
  else
    printf("parquet: all checks passed\n");
  return failures != 0;
}
