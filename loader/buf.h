/*
** buf.h — a growable byte buffer and a compact JSON writer on top of it.
**
** The loader rebuilds JSON text for values it keeps verbatim (residual args,
** top-level metadata, nested arrays such as "Input Dims").  Values arrive as
** yajl tokens, so the writer only needs to know where commas go: each nesting
** level remembers whether it already holds an element.
*/
#ifndef PROFDB_BUF_H
#define PROFDB_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ld_buf {
  char *p;    /* bytes, not NUL-terminated unless ld_buf_cstr() was called */
  size_t n;   /* bytes in use */
  size_t cap; /* bytes allocated */
} ld_buf;

/* Make room for `more` bytes; aborts the process on out-of-memory, which the
** loader treats as fatal (nothing is committed, so the DB is unchanged). */
void ld_buf_reserve(ld_buf *b, size_t more);
void ld_buf_free(ld_buf *b);
/* NUL-terminate (not counted in n) and return the bytes. */
const char *ld_buf_cstr(ld_buf *b);

static inline void ld_buf_put(ld_buf *b, const void *p, size_t n) {
  if (n == 0) return; /* p may be NULL: memcpy must not see it */
  if (b->cap - b->n < n) ld_buf_reserve(b, n);
  memcpy(b->p + b->n, p, n);
  b->n += n;
}
static inline void ld_buf_putc(ld_buf *b, char c) {
  if (b->cap == b->n) ld_buf_reserve(b, 1);
  b->p[b->n++] = c;
}
void ld_buf_put_i64(ld_buf *b, int64_t v);

/* Append s[0..n) as a JSON string literal (quotes and escapes added;
** invalid UTF-8, such as a file name in another encoding, as U+FFFD). */
void ld_buf_put_json_string(ld_buf *b, const char *s, size_t n);

/* ---- compact JSON writer ------------------------------------------------ */

typedef struct ld_jw {
  ld_buf *out;   /* where text goes */
  ld_buf levels; /* one byte per open container: 1 once it holds a value */
  int after_key; /* a key was written; its value comes next */
} ld_jw;

/* Start writing a new value into out; keeps the level stack's memory. */
void jw_init(ld_jw *w, ld_buf *out);
void jw_free(ld_jw *w);
void jw_open(ld_jw *w, char bracket);  /* '{' or '[' */
void jw_close(ld_jw *w, char bracket); /* '}' or ']' */
void jw_key(ld_jw *w, const char *k, size_t n);
void jw_raw(ld_jw *w, const char *text, size_t n); /* number/true/false/null */
void jw_string(ld_jw *w, const char *s, size_t n);

#endif
