/*
** utf8.c — UTF-8 validation and repair (see utf8.h).  Follows the
** well-formed byte sequences of Unicode 15 table 3-7: no overlong forms,
** no surrogates, nothing above U+10FFFF.
*/
#include "utf8.h"

#include <stdint.h>
#include <string.h>

int utf8_repair(const char *s, size_t n, ld_buf *scratch, const char **out, size_t *outn) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  *out = s;
  *outn = n;
  /* Fast path: ASCII runs, eight bytes at a time, then full checks only
  ** where needed. */
  while (i < n) {
    uint64_t w;
    if (n - i >= 8 && (memcpy(&w, u + i, 8), !(w & 0x8080808080808080ULL))) {
      i += 8;
      continue;
    }
    if (u[i] < 0x80) {
      i++;
      continue;
    }
    size_t l = utf8_seq_len(u, i, n);
    if (!l) break;
    i += l;
  }
  if (i == n) return 0;
  scratch->n = 0;
  ld_buf_put(scratch, s, i);
  while (i < n) {
    size_t l = utf8_seq_len(u, i, n);
    if (l) {
      ld_buf_put(scratch, s + i, l);
      i += l;
    } else {
      ld_buf_put(scratch, "\xEF\xBF\xBD", 3); /* U+FFFD */
      i++;
    }
  }
  *out = scratch->p;
  *outn = scratch->n;
  return 1;
}

void utf8_put_visible(ld_buf *b, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t start = 0;
  for (size_t i = 0; i < n;) {
    size_t l = u[i] < 0x80 ? 1 : utf8_seq_len(u, i, n);
    int control = l == 1 ? (u[i] < 0x20 && u[i] != '\n' && u[i] != '\t') || u[i] == 0x7F
                         : l == 2 && u[i] == 0xC2 && u[i + 1] < 0xA0; /* C1: U+0080..9F */
    if (l && !control) {
      i += l;
      continue;
    }
    ld_buf_put(b, s + start, i - start);
    ld_buf_put(b, "\xEF\xBF\xBD", 3); /* U+FFFD */
    i += l ? l : 1;
    start = i;
  }
  ld_buf_put(b, s + start, n - start);
}
