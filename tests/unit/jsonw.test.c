/* jsonw.test.c — the compact JSON writer: commas at every depth (deeper
** than any fixed limit), escapes. */
#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  int failures = 0;
  ld_buf out = {0};
  ld_jw w;
  memset(&w, 0, sizeof w);
  jw_init(&w, &out);
  jw_open(&w, '{');
  jw_key(&w, "a", 1);
  jw_raw(&w, "1", 1);
  jw_key(&w, "b\"", 2);
  jw_open(&w, '[');
  jw_string(&w, "x\n\x01", 3);
  jw_open(&w, '{');
  jw_close(&w, '}');
  jw_raw(&w, "null", 4);
  jw_close(&w, ']');
  jw_close(&w, '}');
  const char *want = "{\"a\":1,\"b\\\"\":[\"x\\n\\u0001\",{},null]}";
  if (out.n != strlen(want) || memcmp(out.p, want, out.n)) {
    printf("FAIL writer: %.*s\n", (int)out.n, out.p);
    failures++;
  }
  /* 10,000 levels: [[[...[1,2]...],3],3] */
  out.n = 0;
  jw_init(&w, &out);
  int depth = 10000;
  for (int i = 0; i < depth; i++) jw_open(&w, '[');
  jw_raw(&w, "1", 1);
  jw_raw(&w, "2", 1);
  for (int i = 0; i < depth; i++) {
    jw_close(&w, ']');
    if (i < depth - 1) jw_raw(&w, "3", 1);
  }
  size_t want_len = (size_t)depth * 2 + 3 + (size_t)(depth - 1) * 2;
  int bad = out.n != want_len;
  for (size_t i = 0; !bad && i < (size_t)depth; i++) bad = out.p[i] != '[';
  if (!bad) bad = memcmp(out.p + depth, "1,2]", 4) != 0;
  if (!bad) bad = memcmp(out.p + out.n - 6, ",3],3]", 6) != 0;
  if (bad) {
    printf("FAIL deep nesting: %zu bytes, want %zu\n", out.n, want_len);
    failures++;
  }
  jw_free(&w);
  ld_buf_free(&out);
  if (!failures) puts("jsonw: all passed");
  return failures != 0;
}
