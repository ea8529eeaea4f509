/*
** buf.c — growable buffer and compact JSON writer (see buf.h).
*/
#include "buf.h"
#include "oom.h"
#include "utf8seq.h"

#include <stdio.h>
#include <stdlib.h>

void ld_buf_reserve(ld_buf *b, size_t more) {
  if (b->cap - b->n >= more) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->n < more) {
    if (cap > SIZE_MAX / 2) {
      ld_oom();
    }
    cap *= 2;
  }
  char *p = realloc(b->p, cap);
  if (!p) {
    ld_oom();
  }
  b->p = p;
  b->cap = cap;
}

void ld_buf_free(ld_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

const char *ld_buf_cstr(ld_buf *b) {
  ld_buf_reserve(b, 1);
  b->p[b->n] = 0;
  return b->p;
}

void ld_buf_put_i64(ld_buf *b, int64_t v) {
  char tmp[24];
  int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
  ld_buf_put(b, tmp, (size_t)n);
}

void ld_buf_put_json_string(ld_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  ld_buf_reserve(b, n + 2);
  ld_buf_putc(b, '"');
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) { /* JSON is UTF-8: an invalid byte becomes U+FFFD */
      size_t l = utf8_seq_len((const unsigned char *)s, i, n);
      if (l) {
        i += l - 1;
        continue;
      }
      ld_buf_put(b, s + start, i - start);
      ld_buf_put(b, "\xEF\xBF\xBD", 3);
      start = i + 1;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    ld_buf_put(b, s + start, i - start);
    start = i + 1;
    switch (c) {
      case '"': ld_buf_put(b, "\\\"", 2); break;
      case '\\': ld_buf_put(b, "\\\\", 2); break;
      case '\n': ld_buf_put(b, "\\n", 2); break;
      case '\r': ld_buf_put(b, "\\r", 2); break;
      case '\t': ld_buf_put(b, "\\t", 2); break;
      default: {
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        ld_buf_put(b, esc, 6);
      }
    }
  }
  ld_buf_put(b, s + start, n - start);
  ld_buf_putc(b, '"');
}

/* ---- compact JSON writer ------------------------------------------------ */

void jw_init(ld_jw *w, ld_buf *out) {
  w->out = out;
  w->levels.n = 0;
  w->after_key = 0;
}

void jw_free(ld_jw *w) {
  ld_buf_free(&w->levels);
}

/* Write the separator a new value needs at the current level. */
static void jw_sep(ld_jw *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (w->levels.n > 0) {
    char *has_elem = &w->levels.p[w->levels.n - 1];
    if (*has_elem) ld_buf_putc(w->out, ',');
    *has_elem = 1;
  }
}

void jw_open(ld_jw *w, char bracket) {
  jw_sep(w);
  ld_buf_putc(w->out, bracket);
  ld_buf_putc(&w->levels, 0);
}

void jw_close(ld_jw *w, char bracket) {
  ld_buf_putc(w->out, bracket);
  if (w->levels.n > 0) w->levels.n--;
}

void jw_key(ld_jw *w, const char *k, size_t n) {
  jw_sep(w);
  ld_buf_put_json_string(w->out, k, n);
  ld_buf_putc(w->out, ':');
  w->after_key = 1;
}

void jw_raw(ld_jw *w, const char *text, size_t n) {
  jw_sep(w);
  ld_buf_put(w->out, text, n);
}

void jw_string(ld_jw *w, const char *s, size_t n) {
  jw_sep(w);
  ld_buf_put_json_string(w->out, s, n);
}
