/*
** numtext.h — exact conversion of JSON number text to scaled integers.
**
** Trace timestamps are microseconds written as integers or fixed-point
** decimals with up to 19 significant digits ("1712195495519689.047").  A
** double holds 15-16 digits, so they are never converted through floating
** point: the digits are scaled by a power of ten and rounded in decimal.
*/
#ifndef PROFDB_NUMTEXT_H
#define PROFDB_NUMTEXT_H

#include <stddef.h>
#include <stdint.h>

typedef enum nt_status {
  NT_OK = 0,   /* *out holds the exact (or correctly rounded) value */
  NT_ROUNDED,  /* *out holds the value rounded half-to-even: digits
                    ** beyond the target precision were dropped */
  NT_OVERFLOW, /* the value does not fit a signed 64-bit integer */
  NT_INVALID   /* the text is not a JSON number */
} nt_status;

/*
** Parse the JSON numeral s[0..n) and return round(value * 10^scale) in *out,
** rounding half to even.  scale is 3 for microseconds -> nanoseconds and 0
** for plain integers.  Exponents ("1.5e3") are handled exactly.
*/
nt_status nt_parse_scaled(const char *s, size_t n, int scale, int64_t *out);

/*
** Parse an integer-valued numeral exactly.  Returns NT_OK, NT_OVERFLOW, or
** NT_INVALID when the text has a non-zero fraction (so "3.0" and "3e2" are
** integers, "3.5" is not).
*/
nt_status nt_parse_int64(const char *s, size_t n, int64_t *out);

/* Parse a numeral as a double (for ratios such as "warps per SM").  Returns
** NT_OK, NT_OVERFLOW for infinities ("1e999"), NT_INVALID otherwise. */
nt_status nt_parse_double(const char *s, size_t n, double *out);

#endif
