/*
** numtext.c — exact JSON numeral -> scaled int64 (see numtext.h).
**
** HOW IT WORKS
**   The numeral is split into its significant digits D (leading zeros
**   dropped) and a decimal exponent E, so value = D * 10^E.  The result is
**   D * 10^(E+scale): when that exponent k is >= 0 the digits are followed by
**   k zeros; when k < 0 the last -k digits are dropped and the kept part is
**   rounded half to even from the dropped digits.  Only digit characters are
**   manipulated until the final accumulation, which checks for overflow, so
**   no intermediate value can lose precision.
*/
#include "numtext.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* More significant digits than this cannot fit an int64 after scaling up,
** but may still round to one after scaling down; digits past the limit are
** folded into a "sticky" flag that only matters for rounding. */
#define NT_MAX_DIGITS 40

typedef struct nt_digits {
  char d[NT_MAX_DIGITS]; /* significant digits, most significant first */
  int n;                 /* number of digits stored in d */
  int sticky;            /* a non-zero digit was dropped past d[] */
  long long exp10;       /* value = 0.d[0..n) digits as integer * 10^exp10 */
  int negative;          /* leading '-' seen */
} nt_digits;

/* Split a JSON numeral into digits and exponent.  Returns 0 on success. */
static int split_numeral(const char *s, size_t n, nt_digits *out) {
  size_t i = 0;
  int seen_digit = 0;
  long long frac_digits = 0; /* digits after '.', kept or dropped */
  long long dropped_int = 0; /* integer-part digits dropped past the limit */
  memset(out, 0, sizeof *out);
  if (i < n && s[i] == '-') {
    out->negative = 1;
    i++;
  }
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    seen_digit = 1;
    if (out->n == 0 && s[i] == '0') continue; /* leading zero */
    if (out->n < NT_MAX_DIGITS)
      out->d[out->n++] = s[i];
    else {
      dropped_int++;
      if (s[i] != '0') out->sticky = 1;
    }
  }
  if (i < n && s[i] == '.') {
    i++;
    int frac_seen = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      frac_seen = 1;
      if (out->n == 0 && s[i] == '0') {
        frac_digits++;
        continue;
      }
      if (out->n < NT_MAX_DIGITS) {
        out->d[out->n++] = s[i];
        frac_digits++;
      } else if (s[i] != '0')
        out->sticky = 1;
    }
    if (!frac_seen) return -1;
  }
  if (!seen_digit) return -1;
  long long e = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    int eneg = 0, eseen = 0;
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
      eneg = s[i] == '-';
      i++;
    }
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      eseen = 1;
      if (e < 100000)
        e = e * 10 + (s[i] - '0'); /* saturate: 1e100000 is
                                                 ** already far out of range */
    }
    if (!eseen) return -1;
    if (eneg) e = -e;
  }
  if (i != n) return -1;
  out->exp10 = e - frac_digits + dropped_int;
  return 0;
}

/* The common numeral, [-]digits[.digits] with no more fraction digits
** than scale and at most 18 digits once scaled, converted in one pass: the
** value is below 10^18, so it is exact and fits.  Returns 0 when s is not
** of that form (the general path below decides). */
static int fast_scaled(const char *s, size_t n, int scale, int64_t *out) {
  size_t i = s[0] == '-', start = i;
  uint64_t mag = 0;
  while (i < n && (unsigned)(s[i] - '0') < 10) mag = mag * 10 + (uint64_t)(s[i++] - '0');
  size_t int_digits = i - start;
  if (int_digits == 0 || int_digits + (size_t)scale > 18) return 0;
  int frac = 0;
  if (i < n && s[i] == '.') {
    for (i++; i < n && (unsigned)(s[i] - '0') < 10 && frac < scale; i++, frac++)
      mag = mag * 10 + (uint64_t)(s[i] - '0');
    if (frac == 0) return 0;
  }
  if (i != n) return 0; /* more fraction digits, an exponent, or not a number */
  for (; frac < scale; frac++) mag *= 10;
  *out = s[0] == '-' ? -(int64_t)mag : (int64_t)mag;
  return 1;
}

nt_status nt_parse_scaled(const char *s, size_t n, int scale, int64_t *out) {
  if (n && scale >= 0 && scale <= 18 && fast_scaled(s, n, scale, out)) return NT_OK;
  nt_digits nd;
  if (split_numeral(s, n, &nd)) return NT_INVALID;
  *out = 0;
  if (nd.n == 0) return nd.sticky ? NT_ROUNDED : NT_OK; /* zero */

  long long k = nd.exp10 + scale;
  int keep = nd.n; /* digits of d[] that form the integer part */
  int round_up = 0;
  int inexact = nd.sticky; /* sticky digits are always below the kept part */
  if (k < 0) {
    long long drop = -k;
    if (drop > nd.n) {
      /* D < 10^n and drop > n, so the value is below 0.1 unit: it rounds
      ** to zero. */
      keep = 0;
      inexact = 1;
    } else {
      keep = nd.n - (int)drop;
      char first = nd.d[keep];
      int rest_nonzero = nd.sticky;
      for (int j = keep + 1; j < nd.n && !rest_nonzero; j++)
        if (nd.d[j] != '0') rest_nonzero = 1;
      if (first != '0' || rest_nonzero) inexact = 1;
      if (first > '5')
        round_up = 1;
      else if (first == '5') {
        if (rest_nonzero)
          round_up = 1;
        else {
          int last = keep > 0 ? nd.d[keep - 1] - '0' : 0;
          round_up = last & 1; /* ties to even */
        }
      }
    }
    k = 0;
  }
  if (k > 19) return NT_OVERFLOW; /* non-zero digits times >= 10^20 */

  /* Accumulate the magnitude in uint64 with overflow checks. */
  uint64_t mag = 0;
  for (int j = 0; j < keep; j++) {
    if (__builtin_mul_overflow(mag, 10u, &mag)) return NT_OVERFLOW;
    if (__builtin_add_overflow(mag, (uint64_t)(nd.d[j] - '0'), &mag)) return NT_OVERFLOW;
  }
  for (long long j = 0; j < k; j++)
    if (__builtin_mul_overflow(mag, 10u, &mag)) return NT_OVERFLOW;
  if (round_up && __builtin_add_overflow(mag, 1u, &mag)) return NT_OVERFLOW;

  if (nd.negative) {
    if (mag > (uint64_t)INT64_MAX + 1u) return NT_OVERFLOW;
    *out = mag == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)mag;
  } else {
    if (mag > (uint64_t)INT64_MAX) return NT_OVERFLOW;
    *out = (int64_t)mag;
  }
  return inexact ? NT_ROUNDED : NT_OK;
}

nt_status nt_parse_int64(const char *s, size_t n, int64_t *out) {
  nt_status st = nt_parse_scaled(s, n, 0, out);
  return st == NT_ROUNDED ? NT_INVALID : st;
}

nt_status nt_parse_double(const char *s, size_t n, double *out) {
  char buf[64];
  char *end;
  nt_digits nd;
  if (split_numeral(s, n, &nd)) return NT_INVALID;
  if (n < sizeof buf) {
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    *out = strtod(buf, &end);
  } else { /* very long numerals are legal JSON; strtod copes with them */
    char *tmp = malloc(n + 1);
    if (!tmp) return NT_INVALID;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    *out = strtod(tmp, &end);
    free(tmp);
  }
  if (isinf(*out)) return NT_OVERFLOW;
  return NT_OK;
}
