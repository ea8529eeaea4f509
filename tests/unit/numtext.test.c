/* numtext.test.c — exact decimal -> scaled integer conversion. */
#include "numtext.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check_scaled(const char *text, int scale, nt_status want_st, long long want) {
  int64_t v = 0;
  nt_status st = nt_parse_scaled(text, strlen(text), scale, &v);
  int ok = st == want_st && (st == NT_OVERFLOW || st == NT_INVALID || v == want);
  if (!ok) {
    printf("FAIL nt_parse_scaled(\"%s\", %d) = %d, %lld; want %d, %lld\n", text, scale, st,
           (long long)v, want_st, want);
    failures++;
  }
}

int main(void) {
  /* microseconds -> nanoseconds */
  check_scaled("0", 3, NT_OK, 0);
  check_scaled("-0", 3, NT_OK, 0);
  check_scaled("167", 3, NT_OK, 167000);
  check_scaled("1212075548353.304", 3, NT_OK, 1212075548353304LL);
  check_scaled("1712195495519689.047", 3, NT_OK, 1712195495519689047LL);
  check_scaled("9223372036854775.807", 3, NT_OK, 9223372036854775807LL);
  check_scaled("9223372036854775.808", 3, NT_OVERFLOW, 0);
  check_scaled("-9223372036854775.808", 3, NT_OK, (-9223372036854775807LL - 1));
  check_scaled("-9223372036854775.809", 3, NT_OVERFLOW, 0);
  check_scaled("0.001", 3, NT_OK, 1);
  check_scaled("0.0005", 3, NT_ROUNDED, 0); /* 0.5 ns: ties to even (0) */
  check_scaled("0.0015", 3, NT_ROUNDED, 2); /* 1.5 ns: ties to even (2) */
  check_scaled("0.0025", 3, NT_ROUNDED, 2); /* 2.5 ns: ties to even (2) */
  check_scaled("0.00250001", 3, NT_ROUNDED, 3);
  check_scaled("0.0004999", 3, NT_ROUNDED, 0);
  check_scaled("-0.0015", 3, NT_ROUNDED, -2);
  check_scaled("-1.2345", 3, NT_ROUNDED, -1234); /* -1234.5 -> -1234 */
  check_scaled("0.00000000000000000000001", 3, NT_ROUNDED, 0);
  check_scaled("1.5e3", 3, NT_OK, 1500000);
  check_scaled("25E-3", 3, NT_OK, 25);
  check_scaled("1e-4", 3, NT_ROUNDED, 0);
  check_scaled("1e16", 3, NT_OVERFLOW, 0);
  check_scaled("1e15", 3, NT_OK, 1000000000000000000LL);
  check_scaled("1e999", 3, NT_OVERFLOW, 0);
  check_scaled("1e-999", 3, NT_ROUNDED, 0);
  check_scaled("0e999", 3, NT_OK, 0);
  check_scaled("123456789012345678901234567890e-30", 3, NT_ROUNDED, 123);
  check_scaled("00012", 0, NT_OK, 12); /* leading zeros (not JSON, tolerated) */
  /* the fast path's edges (numtext.c, fast_scaled): 18 digits once scaled
  ** or fewer, at most scale fraction digits; anything else the general path */
  check_scaled("999999999999999.999", 3, NT_OK, 999999999999999999LL);
  check_scaled("-999999999999999.9", 3, NT_OK, -999999999999999900LL);
  check_scaled("1000000000000000.001", 3, NT_OK, 1000000000000000001LL);
  check_scaled("12.30", 3, NT_OK, 12300);
  check_scaled("1.0000", 3, NT_OK, 1000);
  check_scaled("1.0005", 3, NT_ROUNDED, 1000);
  check_scaled("999999999999999999", 0, NT_OK, 999999999999999999LL);
  check_scaled("-7", 0, NT_OK, -7);
  check_scaled("1.5", 0, NT_ROUNDED, 2);
  check_scaled("1.x", 3, NT_INVALID, 0);
  check_scaled("12a", 3, NT_INVALID, 0);
  check_scaled("--1", 3, NT_INVALID, 0);
  /* plain integers */
  check_scaled("9223372036854775807", 0, NT_OK, 9223372036854775807LL);
  check_scaled("9223372036854775808", 0, NT_OVERFLOW, 0);
  check_scaled("10159970886766084423", 0, NT_OVERFLOW, 0);
  check_scaled("-9223372036854775808", 0, NT_OK, (-9223372036854775807LL - 1));
  /* not numbers */
  check_scaled("", 3, NT_INVALID, 0);
  check_scaled("-", 3, NT_INVALID, 0);
  check_scaled("1.", 3, NT_INVALID, 0);
  check_scaled(".5", 3, NT_INVALID, 0);
  check_scaled("1e", 3, NT_INVALID, 0);
  check_scaled("1e+", 3, NT_INVALID, 0);
  check_scaled("12a", 3, NT_INVALID, 0);
  check_scaled("soon", 3, NT_INVALID, 0);
  check_scaled("NaN", 3, NT_INVALID, 0);
  check_scaled("Infinity", 3, NT_INVALID, 0);
  check_scaled(" 1", 3, NT_INVALID, 0);

  int64_t v;
  if (nt_parse_int64("3.0", 3, &v) != NT_OK || v != 3) {
    puts("FAIL int64 3.0");
    failures++;
  }
  if (nt_parse_int64("3.5", 3, &v) != NT_INVALID) {
    puts("FAIL int64 3.5");
    failures++;
  }
  if (nt_parse_int64("3e2", 3, &v) != NT_OK || v != 300) {
    puts("FAIL int64 3e2");
    failures++;
  }
  double d;
  if (nt_parse_double("0.8", 3, &d) != NT_OK || d != 0.8) {
    puts("FAIL double 0.8");
    failures++;
  }
  if (nt_parse_double("1e999", 5, &d) != NT_OVERFLOW) {
    puts("FAIL double 1e999");
    failures++;
  }
  if (nt_parse_double("inf", 3, &d) != NT_INVALID) {
    puts("FAIL double inf");
    failures++;
  }
  if (failures)
    printf("%d failures\n", failures);
  else
    puts("numtext: all passed");
  return failures != 0;
}
