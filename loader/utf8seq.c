/*
** utf8seq.c — the length of one well-formed UTF-8 sequence (utf8seq.h).
** Follows the well-formed byte sequences of Unicode 15 table 3-7: no
** overlong forms, no surrogates, nothing above U+10FFFF.
*/
#include "utf8seq.h"

/* Length of the valid sequence at s[i..n), or 0 when it is invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t i, size_t n) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF)
    need = 1;
  else if (c == 0xE0) {
    need = 2;
    lo = 0xA0;
  } else if (c >= 0xE1 && c <= 0xEC)
    need = 2;
  else if (c == 0xED) {
    need = 2;
    hi = 0x9F;
  } else if (c >= 0xEE && c <= 0xEF)
    need = 2;
  else if (c == 0xF0) {
    need = 3;
    lo = 0x90;
  } else if (c >= 0xF1 && c <= 0xF3)
    need = 3;
  else if (c == 0xF4) {
    need = 3;
    hi = 0x8F;
  } else
    return 0;
  if (n - i <= need) return 0; /* sequence cut by the end of the string */
  if (s[i + 1] < lo || s[i + 1] > hi) return 0;
  for (size_t k = 2; k <= need; k++)
    if (s[i + k] < 0x80 || s[i + k] > 0xBF) return 0;
  return need + 1;
}
