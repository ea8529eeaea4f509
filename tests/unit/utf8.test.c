/* utf8.test.c — UTF-8 validation and U+FFFD repair. */
#include "utf8.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check_n(const char *in, size_t n, int want_repaired, const char *want,
                    size_t want_n) {
  ld_buf scratch = {0};
  const char *out;
  size_t outn;
  int r = utf8_repair(in, n, &scratch, &out, &outn);
  if (r != want_repaired || outn != want_n || memcmp(out, want, outn)) {
    printf("FAIL utf8_repair case \"%s\": repaired=%d\n", want, r);
    failures++;
  }
  ld_buf_free(&scratch);
}

static void check(const char *in, size_t n, int want_repaired, const char *want) {
  check_n(in, n, want_repaired, want, strlen(want));
}

int main(void) {
  check("plain", 5, 0, "plain");
  check("caf\xc3\xa9", 5, 0, "caf\xc3\xa9");
  check("\xe2\x82\xac euro", 8, 0, "\xe2\x82\xac euro");
  check("\xf0\x9f\x98\x80", 4, 0, "\xf0\x9f\x98\x80");
  check(
      "a\xff"
      "b",
      3, 1,
      "a\xef\xbf\xbd"
      "b");
  check("\xc0\xaf", 2, 1, "\xef\xbf\xbd\xef\xbf\xbd");                 /* overlong */
  check("\xed\xa0\x80", 3, 1, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
  check("\xf4\x90\x80\x80", 4, 1,
        "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* > U+10FFFF */
  check("end\xe2\x82", 5, 1, "end\xef\xbf\xbd\xef\xbf\xbd"); /* cut sequence */
  check_n("nul\0byte", 8, 0, "nul\0byte", 8);                /* NUL is valid UTF-8 */
  if (!failures) puts("utf8: all passed");
  return failures != 0;
}
