/*
** parquet.c — a small Parquet file writer (see parquet.h for the API).
**
** HOW IT WORKS
**   A file is "PAR1", the column chunks of each row group, the file
**   metadata (a Thrift struct in the compact protocol), its length as a
**   4-byte little-endian integer, and "PAR1" again (parquet-format's
**   README, "File Format").  Rows are buffered per column: a definition
**   level per row (0 NULL, 1 present; every column is OPTIONAL, so a file
**   without NULLs has the same schema as one with them) and the present
**   values, densely.  Strings go into a per-row-group dictionary (an open
**   addressing hash over an arena, XXH64 with a random seed per column so
**   crafted names cannot collide) and only their indices are buffered.
**   When a row group is cut, each column becomes one column chunk:
**     [dictionary page: PLAIN strings]  (string columns)
**     data page v1 ... : 4-byte length + RLE/bit-packed hybrid definition
**                        levels (bit width 1), then the values: PLAIN
**                        numbers, or a bit-width byte + hybrid indices
**   every page compressed on its own (zstd), each preceded by a Thrift
**   PageHeader.  The ColumnChunk / RowGroup metadata of the cut is encoded
**   at once and kept as bytes until the footer is written.
**
** Requirements
**   1. Readers that follow the specification read every value back exactly
**      (DuckDB is the independent reader in tests/node/).
**   2. Deterministic: the same rows and key/value pairs give the same bytes
**      (no clock, no host name, no random state in the file).
**   3. Memory is bounded by one row group (PQ_GROUP_BYTES) and one page.
**   4. Every STRING value and key/value text is valid UTF-8 (DuckDB refuses
**      a file otherwise): invalid bytes become U+FFFD in pq_text / pq_kv.
**
** Names of Thrift fields below are those of parquet.thrift.
*/
#include "parquet.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "hash.h"
#include "profdb/version.h"
#include "utf8.h"

/* PLAIN values and statistics are the host's bytes: little-endian only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "parquet.c writes values in host byte order: little-endian hosts only"
#endif

/* ---- growable byte buffer ---------------------------------------------- */

typedef struct pq_buf {
  uint8_t *p;
  size_t len, cap;
  int oom; /* an allocation failed: the contents are incomplete */
} pq_buf;

static int buf_reserve(pq_buf *b, size_t more) {
  if (b->oom) return -1;
  if (b->len + more <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more) cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

static void buf_put(pq_buf *b, const void *data, size_t n) {
  if (n == 0 || buf_reserve(b, n)) return;
  memcpy(b->p + b->len, data, n);
  b->len += n;
}

static void buf_byte(pq_buf *b, uint8_t v) {
  buf_put(b, &v, 1);
}

static void buf_le32(pq_buf *b, uint32_t v) {
  uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  buf_put(b, x, 4);
}

static void buf_uleb(pq_buf *b, uint64_t v) {
  while (v >= 0x80) {
    buf_byte(b, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  buf_byte(b, (uint8_t)v);
}

/* ---- Thrift compact protocol (writing only) ----------------------------
** A struct is a sequence of fields, each a header byte (field id delta
** << 4 | type) or, when the delta is not 1..15, the type byte and the id
** as a zigzag varint; a 0 byte ends it.  Integers are zigzag varints,
** binary is a varint length and the bytes, a list a header (size << 4 |
** element type, or 0xF0 | type and a varint size) and its elements. */

enum {
  CT_TRUE = 1,
  CT_FALSE = 2,
  CT_I32 = 5,
  CT_I64 = 6,
  CT_BINARY = 8,
  CT_LIST = 9,
  CT_STRUCT = 12
};

typedef struct tw {
  pq_buf *b;
  int16_t last[16]; /* last field id per open struct */
  int depth;
} tw;

static void tw_field(tw *t, int16_t id, int type) {
  int16_t delta = (int16_t)(id - t->last[t->depth]);
  if (delta > 0 && delta <= 15)
    buf_byte(t->b, (uint8_t)(delta << 4 | type));
  else {
    buf_byte(t->b, (uint8_t)type);
    buf_uleb(t->b, (uint64_t)(((uint32_t)id << 1) ^ (uint32_t)(id >> 15)));
  }
  t->last[t->depth] = id;
}

static void tw_begin(tw *t) {
  t->last[++t->depth] = 0;
}
static void tw_end(tw *t) {
  buf_byte(t->b, 0);
  t->depth--;
}

static void tw_zz64(tw *t, int64_t v) {
  buf_uleb(t->b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}
static void tw_i32(tw *t, int16_t id, int32_t v) {
  tw_field(t, id, CT_I32);
  tw_zz64(t, v);
}
static void tw_i64(tw *t, int16_t id, int64_t v) {
  tw_field(t, id, CT_I64);
  tw_zz64(t, v);
}
static void tw_bin_value(tw *t, const void *p, size_t n) {
  buf_uleb(t->b, n);
  buf_put(t->b, p, n);
}
static void tw_bin(tw *t, int16_t id, const void *p, size_t n) {
  tw_field(t, id, CT_BINARY);
  tw_bin_value(t, p, n);
}
static void tw_struct(tw *t, int16_t id) {
  tw_field(t, id, CT_STRUCT);
  tw_begin(t);
}
static void tw_list(tw *t, int16_t id, int elem_type, size_t n) {
  if (id) tw_field(t, id, CT_LIST);
  if (n < 15)
    buf_byte(t->b, (uint8_t)(n << 4 | elem_type));
  else {
    buf_byte(t->b, (uint8_t)(0xF0 | elem_type));
    buf_uleb(t->b, n);
  }
}

/* ---- the RLE / bit-packed hybrid encoding (Encodings.md) ---------------
** A run of 8 or more equal values is an RLE run: header (count << 1), the
** value in ceil(bit_width / 8) little-endian bytes.  Other values go in
** bit-packed runs of groups of 8: header (groups << 1 | 1), the values
** packed LSB first; only the last group of the data may be padded. */

static size_t run_length(const uint32_t *v, size_t n, size_t i) {
  size_t j = i + 1;
  while (j < n && v[j] == v[i]) j++;
  return j - i;
}

int pq_rle_hybrid(const uint32_t *v, size_t n, int bit_width, uint8_t **out, size_t *len,
                  size_t *cap) {
  pq_buf b = {*out, *len, *cap, 0};
  int vbytes = (bit_width + 7) / 8;
  size_t i = 0;
  while (i < n) {
    size_t r = run_length(v, n, i);
    if (r >= 8) {
      buf_uleb(&b, (uint64_t)r << 1);
      for (int k = 0; k < vbytes; k++) buf_byte(&b, (uint8_t)(v[i] >> (8 * k)));
      i += r;
      continue;
    }
    /* Bit-packed groups of 8 until a run of 8 starts at a group boundary
    ** or the data ends. */
    size_t j = i, groups = 0;
    do {
      j += 8;
      groups++;
    } while (j < n && run_length(v, n, j) < 8);
    buf_uleb(&b, (uint64_t)groups << 1 | 1);
    uint64_t acc = 0;
    int bits = 0;
    for (size_t k = i; k < j; k++) {
      uint64_t x = k < n ? v[k] : 0;
      acc |= x << bits;
      bits += bit_width;
      while (bits >= 8) {
        buf_byte(&b, (uint8_t)acc);
        acc >>= 8;
        bits -= 8;
      }
    }
    /* 8 values of any width fill whole bytes: nothing is left in acc. */
    i = j;
  }
  *out = b.p;
  *len = b.len;
  *cap = b.cap;
  return b.oom ? -1 : 0;
}

/* ---- columns ------------------------------------------------------------ */

typedef struct dict_entry {
  size_t off;    /* offset of the string in the arena */
  uint32_t len;  /* its length */
  uint32_t hash; /* the low bits of its seeded hash */
} dict_entry;

typedef struct pq_col {
  char *name;
  pq_type type;
  pq_buf def;  /* one byte per row: 1 present, 0 NULL */
  pq_buf vals; /* present values: int64 / double, or uint32 indices */
  size_t nvals;
  int set; /* set in the current row */
  /* statistics of the buffered row group */
  int64_t imin, imax;
  double dmin, dmax;
  int have_minmax;
  /* the dictionary of a string column */
  pq_buf arena;
  dict_entry *ent;
  uint32_t nent, cap_ent;
  uint32_t *slot; /* hash table: entry index + 1, 0 empty */
  uint32_t nslot;
  uint64_t seed; /* the table's random XXH64 seed, drawn with the table */
} pq_col;

struct pq_writer {
  FILE *f;
  int own; /* pq_open's file: closed by pq_close / pq_abort */
  char *err;
  size_t nerr;
  int failed;
  pq_codec codec;
  ZSTD_CCtx *zc;
  int64_t offset; /* bytes written */
  pq_col *col;
  int ncol;
  int64_t rows_in_group, rows;
  int64_t group_rows; /* rows per row group at most */
  size_t group_bytes;
  pq_buf groups; /* encoded RowGroup structs */
  int ngroups;
  char **kv; /* key, value, key, value ... */
  int nkv;
  pq_buf page, tmp, z; /* scratch */
};

static void fail(pq_writer *w, const char *what) {
  if (w->failed) return;
  w->failed = 1;
  if (w->err && w->nerr) snprintf(w->err, w->nerr, "%s", what);
}

static void fail_errno(pq_writer *w, const char *what) {
  int e = errno;
  char msg[256];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(e));
  fail(w, msg);
  errno = e;
}

static void write_bytes(pq_writer *w, const void *p, size_t n) {
  if (w->failed) return;
  if (n && fwrite(p, 1, n, w->f) != n) fail_errno(w, "write");
  w->offset += (int64_t)n;
}

pq_writer *pq_open_file(FILE *f, pq_codec codec, char *err, size_t nerr) {
  pq_writer *w = calloc(1, sizeof *w);
  if (!w) {
    snprintf(err, nerr, "out of memory");
    return NULL;
  }
  w->err = err;
  w->nerr = nerr;
  w->codec = codec;
  w->group_rows = PQ_GROUP_ROWS;
  if (codec == PQ_ZSTD && !(w->zc = ZSTD_createCCtx())) {
    snprintf(err, nerr, "out of memory");
    free(w);
    return NULL;
  }
  w->f = f;
  write_bytes(w, "PAR1", 4);
  return w;
}

pq_writer *pq_open(const char *path, pq_codec codec, char *err, size_t nerr) {
  /* Never through a link planted at path (the export writes through
  ** publish.c's temporaries: pq_open_file). */
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  pq_writer *w = f ? pq_open_file(f, codec, err, nerr) : NULL;
  if (!f) {
    int e = errno;
    snprintf(err, nerr, "%s", strerror(e));
    if (fd >= 0) close(fd);
    errno = e;
  } else if (!w)
    fclose(f);
  else {
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    w->own = 1;
  }
  return w;
}

int pq_column(pq_writer *w, const char *name, pq_type type) {
  if (w->rows || w->rows_in_group) return -1;
  pq_col *c = realloc(w->col, (size_t)(w->ncol + 1) * sizeof *c);
  if (!c) return -1;
  w->col = c;
  c += w->ncol;
  memset(c, 0, sizeof *c);
  c->name = strdup(name);
  c->type = type;
  return c->name ? w->ncol++ : -1;
}

static int col_begin(pq_writer *w, int col) {
  if (col < 0 || col >= w->ncol || w->col[col].set) return 0;
  w->col[col].set = 1;
  return 1;
}

void pq_int64(pq_writer *w, int col, int64_t v) {
  if (!col_begin(w, col)) return;
  pq_col *c = &w->col[col];
  buf_put(&c->vals, &v, sizeof v);
  c->nvals++;
  if (!c->have_minmax || v < c->imin) c->imin = v;
  if (!c->have_minmax || v > c->imax) c->imax = v;
  c->have_minmax = 1;
  w->group_bytes += sizeof v;
}

void pq_double(pq_writer *w, int col, double v) {
  if (!col_begin(w, col)) return;
  pq_col *c = &w->col[col];
  buf_put(&c->vals, &v, sizeof v);
  c->nvals++;
  if (!isnan(v)) {
    if (!c->have_minmax || v < c->dmin) c->dmin = v;
    if (!c->have_minmax || v > c->dmax) c->dmax = v;
    c->have_minmax = 1;
  }
  w->group_bytes += sizeof v;
}

/* A seed no input can predict: names come from untrusted traces, and an
** unseeded hash lets crafted names share one probe chain (quadratic time).
** Only the table's layout depends on it, never the file's bytes: entries
** keep insertion order (Requirement 2). */
static uint64_t dict_seed(const pq_col *c) {
  uint64_t seed;
  if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed) return seed;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t mix[4] = {(uint64_t)ts.tv_nsec, (uint64_t)ts.tv_sec, (uint64_t)getpid(),
                     (uint64_t)(uintptr_t)c};
  return hash_bytes(mix, sizeof mix);
}

/* Double the table (1024 slots at first), keeping the load at most 1/2. */
static int dict_grow(pq_col *c) {
  uint32_t n = c->nslot ? c->nslot * 2 : 1024;
  uint32_t *slot = calloc(n, sizeof *slot);
  if (!slot) return -1;
  if (!c->nslot) c->seed = dict_seed(c);
  for (uint32_t i = 0; i < c->nent; i++) {
    uint32_t h = c->ent[i].hash & (n - 1);
    while (slot[h]) h = (h + 1) & (n - 1);
    slot[h] = i + 1;
  }
  free(c->slot);
  c->slot = slot;
  c->nslot = n;
  return 0;
}

/* The slot of s[0..n) in c's table: its entry index + 1 there, or 0 where
** it would be inserted.  *h gets its hash. */
static uint32_t dict_find(const pq_col *c, const char *s, size_t n, uint32_t *h, uint32_t *at) {
  uint32_t i, k;
  *h = (uint32_t)hash_bytes_seed(s, n, c->seed);
  for (i = *h & (c->nslot - 1); (k = c->slot[i]) != 0; i = (i + 1) & (c->nslot - 1)) {
    const dict_entry *e = &c->ent[k - 1];
    if (e->hash == *h && e->len == n && !memcmp(c->arena.p + e->off, s, n)) break;
  }
  *at = i;
  return k;
}

/* Append s[0..n) (valid UTF-8) as a new entry at slot `at`: its index + 1,
** or 0 when out of memory. */
static uint32_t dict_add(pq_writer *w, pq_col *c, const char *s, size_t n, uint32_t h,
                         uint32_t at) {
  if (c->nent == c->cap_ent) {
    uint32_t cap = c->cap_ent ? c->cap_ent * 2 : 256;
    dict_entry *e = realloc(c->ent, cap * sizeof *e);
    if (!e) {
      fail(w, "out of memory");
      return 0;
    }
    c->ent = e;
    c->cap_ent = cap;
  }
  c->ent[c->nent] = (dict_entry){c->arena.len, (uint32_t)n, h};
  buf_put(&c->arena, s, n);
  w->group_bytes += n + sizeof(dict_entry) + 8;
  return c->slot[at] = ++c->nent;
}

void pq_text(pq_writer *w, int col, const char *s, size_t n) {
  if (!col_begin(w, col)) return;
  pq_col *c = &w->col[col];
  if (c->type != PQ_STRING || n > UINT32_MAX) {
    c->set = 0;
    return;
  }
  if ((c->nent + 1) * 2 > c->nslot && dict_grow(c)) {
    fail(w, "out of memory");
    return;
  }
  uint32_t h, at, k = dict_find(c, s, n, &h, &at);
  if (!k) {
    /* A new string: a STRING column holds UTF-8 only (DuckDB refuses the
    ** whole file otherwise), so invalid bytes from any source (a file
    ** name, a crafted database) become U+FFFD here, once per new string;
    ** the dictionary holds only repaired text. */
    ld_buf fix = {0};
    const char *v;
    size_t vn;
    if (utf8_repair(s, n, &fix, &v, &vn) && vn <= UINT32_MAX) k = dict_find(c, v, vn, &h, &at);
    if (!k && vn <= UINT32_MAX) k = dict_add(w, c, v, vn, h, at);
    ld_buf_free(&fix);
    if (!k) {
      c->set = 0;
      return;
    }
  }
  uint32_t idx = k - 1;
  buf_put(&c->vals, &idx, sizeof idx);
  c->nvals++;
  w->group_bytes += sizeof idx;
}

int pq_end_row(pq_writer *w) {
  for (int i = 0; i < w->ncol; i++) {
    pq_col *c = &w->col[i];
    buf_byte(&c->def, (uint8_t)c->set);
    c->set = 0;
    if (c->def.oom || c->vals.oom || c->arena.oom) fail(w, "out of memory");
  }
  w->rows_in_group++;
  w->group_bytes += (size_t)w->ncol;
  if (w->failed) return -1;
  if (w->rows_in_group >= w->group_rows || w->group_bytes >= PQ_GROUP_BYTES)
    return pq_row_group(w);
  return 0;
}

/* ---- pages ---------------------------------------------------------------- */

/* Compress w->page into w->z (or use it as is) and write a page header of
** type (0 data, 2 dictionary) with its sub-header, then the page.  Adds the
** bytes written to *comp and *uncomp. */
static void write_page(pq_writer *w, int type, int32_t nvalues, int32_t encoding, int64_t *comp,
                       int64_t *uncomp) {
  const uint8_t *body = w->page.p;
  size_t blen = w->page.len;
  if (w->codec == PQ_ZSTD) {
    size_t bound = ZSTD_compressBound(blen);
    w->z.len = 0;
    if (buf_reserve(&w->z, bound)) {
      fail(w, "out of memory");
      return;
    }
    size_t zn = ZSTD_compressCCtx(w->zc, w->z.p, bound, w->page.p, blen, 3);
    if (ZSTD_isError(zn)) {
      fail(w, ZSTD_getErrorName(zn));
      return;
    }
    body = w->z.p;
    blen = zn;
  }
  pq_buf hb = {0};
  tw t = {.b = &hb};
  tw_i32(&t, 1, type);                 /* type */
  tw_i32(&t, 2, (int32_t)w->page.len); /* uncompressed_page_size */
  tw_i32(&t, 3, (int32_t)blen);        /* compressed_page_size */
  if (type == 0) {
    tw_struct(&t, 5);        /* data_page_header */
    tw_i32(&t, 1, nvalues);  /* num_values (NULLs included) */
    tw_i32(&t, 2, encoding); /* encoding */
    tw_i32(&t, 3, 3);        /* definition_level_encoding RLE */
    tw_i32(&t, 4, 3);        /* repetition_level_encoding RLE */
    tw_end(&t);
  } else {
    tw_struct(&t, 7);       /* dictionary_page_header */
    tw_i32(&t, 1, nvalues); /* num_values */
    tw_i32(&t, 2, 0);       /* encoding PLAIN */
    tw_end(&t);
  }
  buf_byte(&hb, 0);
  if (hb.oom) fail(w, "out of memory");
  write_bytes(w, hb.p, hb.len);
  write_bytes(w, body, blen);
  *comp += (int64_t)(hb.len + blen);
  *uncomp += (int64_t)(hb.len + w->page.len);
  free(hb.p);
}

static int bit_width(uint32_t max) {
  int bw = 1; /* at least 1: some readers mishandle width 0 */
  while (bw < 32 && (max >> bw)) bw++;
  return bw;
}

static int cmp_entry(const pq_col *c, const dict_entry *a, const dict_entry *b) {
  size_t n = a->len < b->len ? a->len : b->len;
  int r = memcmp(c->arena.p + a->off, c->arena.p + b->off, n);
  return r ? r : (a->len > b->len) - (a->len < b->len);
}

/* Write column c's chunk; encode its ColumnChunk into t.  Returns the
** chunk's uncompressed size. */
static int64_t write_chunk(pq_writer *w, pq_col *c, tw *t) {
  int64_t start = w->offset, comp = 0, uncomp = 0, dict_off = -1;
  int64_t nrows = w->rows_in_group;
  if (c->type == PQ_STRING) {
    dict_off = w->offset;
    w->page.len = 0;
    for (uint32_t i = 0; i < c->nent; i++) {
      buf_le32(&w->page, c->ent[i].len);
      buf_put(&w->page, c->arena.p + c->ent[i].off, c->ent[i].len);
    }
    write_page(w, 2, (int32_t)c->nent, 0, &comp, &uncomp);
  }
  int64_t data_off = w->offset;
  int bw = bit_width(c->nent ? c->nent - 1 : 0);
  size_t vi = 0; /* index of the first present value of the page */
  for (int64_t r0 = 0; r0 < nrows; r0 += PQ_PAGE_ROWS) {
    int64_t r1 = r0 + PQ_PAGE_ROWS < nrows ? r0 + PQ_PAGE_ROWS : nrows;
    size_t present = 0;
    w->tmp.len = 0;
    if (buf_reserve(&w->tmp, (size_t)(r1 - r0) * sizeof(uint32_t))) break;
    uint32_t *lv = (uint32_t *)w->tmp.p;
    for (int64_t r = r0; r < r1; r++) present += lv[r - r0] = c->def.p[r];
    w->page.len = 0;
    buf_le32(&w->page, 0); /* the levels' length, patched below */
    size_t before = w->page.len;
    pq_rle_hybrid(lv, (size_t)(r1 - r0), 1, &w->page.p, &w->page.len, &w->page.cap);
    uint32_t levlen = (uint32_t)(w->page.len - before);
    if (!w->page.oom && w->page.p)
      for (int k = 0; k < 4; k++) w->page.p[before - 4 + k] = (uint8_t)(levlen >> (8 * k));
    if (c->type == PQ_STRING) {
      buf_byte(&w->page, (uint8_t)bw);
      pq_rle_hybrid((const uint32_t *)c->vals.p + vi, present, bw, &w->page.p, &w->page.len,
                    &w->page.cap);
    } else
      buf_put(&w->page, c->vals.p + vi * 8, present * 8);
    if (w->page.oom) fail(w, "out of memory");
    write_page(w, 0, (int32_t)(r1 - r0), c->type == PQ_STRING ? 8 : 0, &comp, &uncomp);
    vi += present;
  }
  if (w->tmp.oom) fail(w, "out of memory");

  tw_begin(t);                    /* ColumnChunk */
  tw_i64(t, 2, start);            /* file_offset */
  tw_struct(t, 3);                /* meta_data: ColumnMetaData */
  tw_i32(t, 1, (int32_t)c->type); /* type */
  if (c->type == PQ_STRING) {
    tw_list(t, 2, CT_I32, 3); /* encodings: RLE, PLAIN, RLE_DICTIONARY */
    tw_zz64(t, 3);
    tw_zz64(t, 0);
    tw_zz64(t, 8);
  } else {
    tw_list(t, 2, CT_I32, 2); /* encodings: RLE, PLAIN */
    tw_zz64(t, 3);
    tw_zz64(t, 0);
  }
  tw_list(t, 3, CT_BINARY, 1); /* path_in_schema */
  tw_bin_value(t, c->name, strlen(c->name));
  tw_i32(t, 4, (int32_t)w->codec);            /* codec */
  tw_i64(t, 5, nrows);                        /* num_values */
  tw_i64(t, 6, uncomp);                       /* total_uncompressed_size */
  tw_i64(t, 7, comp);                         /* total_compressed_size */
  tw_i64(t, 9, data_off);                     /* data_page_offset */
  if (dict_off >= 0) tw_i64(t, 11, dict_off); /* dictionary_page_offset */
  tw_struct(t, 12);                           /* statistics */
  tw_i64(t, 3, nrows - (int64_t)c->nvals);    /* null_count */
  if (c->type == PQ_STRING && c->nent) {
    const dict_entry *lo = &c->ent[0], *hi = &c->ent[0];
    for (uint32_t i = 1; i < c->nent; i++) {
      if (cmp_entry(c, &c->ent[i], lo) < 0) lo = &c->ent[i];
      if (cmp_entry(c, &c->ent[i], hi) > 0) hi = &c->ent[i];
    }
    if (lo->len <= PQ_STAT_MAX_BYTES && hi->len <= PQ_STAT_MAX_BYTES) {
      tw_bin(t, 5, c->arena.p + hi->off, hi->len); /* max_value */
      tw_bin(t, 6, c->arena.p + lo->off, lo->len); /* min_value */
    }
  } else if (c->type != PQ_STRING && c->have_minmax) {
    uint8_t hi[8], lo[8];
    if (c->type == PQ_INT64) {
      memcpy(hi, &c->imax, 8);
      memcpy(lo, &c->imin, 8);
    } else {
      memcpy(hi, &c->dmax, 8);
      memcpy(lo, &c->dmin, 8);
    }
    tw_bin(t, 5, hi, 8); /* max_value: PLAIN, little-endian like the host */
    tw_bin(t, 6, lo, 8); /* min_value */
  }
  tw_end(t); /* statistics */
  tw_end(t); /* meta_data */
  tw_end(t); /* ColumnChunk */
  return uncomp;
}

static void reset_column(pq_col *c) {
  c->def.len = c->vals.len = c->arena.len = 0;
  c->nvals = 0;
  c->nent = 0;
  c->have_minmax = 0;
  if (c->slot) memset(c->slot, 0, c->nslot * sizeof *c->slot);
}

int pq_row_group(pq_writer *w) {
  if (w->failed) return -1;
  if (!w->rows_in_group) return 0;
  int64_t start = w->offset;
  pq_buf rg = {0};
  tw t = {.b = &rg};
  tw_begin(&t);                               /* RowGroup */
  tw_list(&t, 1, CT_STRUCT, (size_t)w->ncol); /* columns */
  int64_t total_uncomp = 0;
  for (int i = 0; i < w->ncol; i++) total_uncomp += write_chunk(w, &w->col[i], &t);
  tw_i64(&t, 2, total_uncomp);      /* total_byte_size */
  tw_i64(&t, 3, w->rows_in_group);  /* num_rows */
  tw_i64(&t, 5, start);             /* file_offset */
  tw_i64(&t, 6, w->offset - start); /* total_compressed_size */
  tw_end(&t);
  if (rg.oom) fail(w, "out of memory");
  buf_put(&w->groups, rg.p, rg.len);
  free(rg.p);
  w->ngroups++;
  w->rows += w->rows_in_group;
  w->rows_in_group = 0;
  w->group_bytes = 0;
  for (int i = 0; i < w->ncol; i++) reset_column(&w->col[i]);
  return w->failed ? -1 : 0;
}

void pq_kv(pq_writer *w, const char *key, const char *value) {
  char **kv = realloc(w->kv, (size_t)(w->nkv + 2) * sizeof *kv);
  if (!kv) {
    fail(w, "out of memory");
    return;
  }
  w->kv = kv;
  /* Thrift strings are UTF-8: a label from a file name may not be. */
  const char *text[2] = {key, value};
  for (int i = 0; i < 2; i++) {
    ld_buf fix = {0};
    const char *v;
    size_t vn;
    utf8_repair(text[i], strlen(text[i]), &fix, &v, &vn);
    kv[w->nkv + i] = strndup(v, vn);
    ld_buf_free(&fix);
  }
  if (!kv[w->nkv] || !kv[w->nkv + 1]) fail(w, "out of memory");
  w->nkv += 2;
}

int64_t pq_rows(const pq_writer *w) {
  return w->rows + w->rows_in_group;
}

int64_t pq_bytes(const pq_writer *w) {
  return w->offset;
}

int pq_group_rows(pq_writer *w, int64_t n) {
  if (n < 1 || n > PQ_GROUP_ROWS || w->rows || w->rows_in_group) return -1;
  w->group_rows = n;
  return 0;
}

static void free_writer(pq_writer *w) {
  for (int i = 0; i < w->ncol; i++) {
    pq_col *c = &w->col[i];
    free(c->name);
    free(c->def.p);
    free(c->vals.p);
    free(c->arena.p);
    free(c->ent);
    free(c->slot);
  }
  free(w->col);
  for (int i = 0; i < w->nkv; i++) free(w->kv[i]);
  free(w->kv);
  free(w->groups.p);
  free(w->page.p);
  free(w->tmp.p);
  free(w->z.p);
  ZSTD_freeCCtx(w->zc);
  free(w);
}

void pq_abort(pq_writer *w) {
  if (!w) return;
  if (w->own) fclose(w->f);
  free_writer(w);
}

/* The FileMetaData struct. */
static void write_footer(pq_writer *w, pq_buf *m) {
  tw t = {.b = m};
  tw_begin(&t);
  tw_i32(&t, 1, 1);                               /* version */
  tw_list(&t, 2, CT_STRUCT, (size_t)w->ncol + 1); /* schema */
  tw_begin(&t);                                   /* the root */
  tw_bin(&t, 4, "schema", 6);                     /* name */
  tw_i32(&t, 5, w->ncol);                         /* num_children */
  tw_end(&t);
  for (int i = 0; i < w->ncol; i++) {
    const pq_col *c = &w->col[i];
    tw_begin(&t);
    tw_i32(&t, 1, (int32_t)c->type);         /* type */
    tw_i32(&t, 3, 1);                        /* repetition_type OPTIONAL */
    tw_bin(&t, 4, c->name, strlen(c->name)); /* name */
    if (c->type == PQ_STRING) {
      tw_i32(&t, 6, 0);  /* converted_type UTF8 */
      tw_struct(&t, 10); /* logicalType */
      tw_struct(&t, 1);  /* STRING: StringType {} */
      tw_end(&t);
      tw_end(&t);
    }
    tw_end(&t);
  }
  tw_i64(&t, 3, w->rows);                        /* num_rows */
  tw_list(&t, 4, CT_STRUCT, (size_t)w->ngroups); /* row_groups */
  buf_put(m, w->groups.p, w->groups.len);
  if (w->nkv) {
    tw_list(&t, 5, CT_STRUCT, (size_t)w->nkv / 2); /* key_value_metadata */
    for (int i = 0; i < w->nkv; i += 2) {
      tw_begin(&t);
      tw_bin(&t, 1, w->kv[i], strlen(w->kv[i]));         /* key */
      tw_bin(&t, 2, w->kv[i + 1], strlen(w->kv[i + 1])); /* value */
      tw_end(&t);
    }
  }
  const char *by = "profdb version " PROFDB_VERSION;
  tw_bin(&t, 6, by, strlen(by));              /* created_by */
  tw_list(&t, 7, CT_STRUCT, (size_t)w->ncol); /* column_orders */
  for (int i = 0; i < w->ncol; i++) {
    tw_begin(&t);     /* ColumnOrder */
    tw_struct(&t, 1); /* TYPE_ORDER: TypeDefinedOrder {} */
    tw_end(&t);
    tw_end(&t);
  }
  tw_end(&t);
}

int pq_close(pq_writer *w) {
  pq_row_group(w);
  pq_buf m = {0};
  write_footer(w, &m);
  if (m.oom) fail(w, "out of memory");
  write_bytes(w, m.p, m.len);
  uint8_t tail[8];
  for (int k = 0; k < 4; k++) tail[k] = (uint8_t)(m.len >> (8 * k));
  memcpy(tail + 4, "PAR1", 4);
  write_bytes(w, tail, 8);
  free(m.p);
  /* On disk before the caller renames the file into place (pq_open_file's
  ** caller: flushed here, synced by its publish). */
  if (!w->failed && (fflush(w->f) || (w->own && fsync(fileno(w->f))))) fail_errno(w, "write");
  if (w->own && fclose(w->f) && !w->failed) fail_errno(w, "close");
  int rc = w->failed ? -1 : 0;
  free_writer(w);
  return rc;
}
