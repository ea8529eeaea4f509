/*
** frame_rank.h — how far a Python stack frame's file is from the user's
** code (header only: the SQL function frame_rank() in frames.c and the
** loader's nesting pass, which picks each operator's source frame in
** postpass.c, use the same rule).
**
**   0  a .py file of the user's (not in an installed package, not PyTorch)
**   1  an installed package or the standard library (site-packages,
**      dist-packages, lib/python3.x, <frozen ...>, <string>)
**   2  PyTorch itself (a path with a torch/ directory)
**   3  not Python (C++ frames, NULL)
*/
#ifndef PROFDB_FRAME_RANK_H
#define PROFDB_FRAME_RANK_H

#include <ctype.h>
#include <stddef.h>
#include <string.h>

/* Case-insensitive search of needle (lower case) in s[0..n). */
static inline int frame_rank_contains(const char *s, size_t n, const char *needle) {
  size_t m = strlen(needle);
  for (size_t i = 0; i + m <= n; i++) {
    size_t k = 0;
    while (k < m && tolower((unsigned char)s[i + k]) == needle[k]) k++;
    if (k == m) return 1;
  }
  return 0;
}

/* The rank of file name s[0..n) (NULL: 3). */
static inline int frame_rank_of(const char *s, size_t n) {
  if (!s || !(n >= 3 && s[n - 3] == '.' && tolower((unsigned char)s[n - 2]) == 'p' &&
              tolower((unsigned char)s[n - 1]) == 'y')) {
    /* "<frozen runpy>" and "<string>" are Python without a .py name */
    return s && n && s[0] == '<' ? 1 : 3;
  }
  /* Separators may be '/' or '\' (Windows paths): test both spellings. */
  if (frame_rank_contains(s, n, "/torch/") || frame_rank_contains(s, n, "\\torch\\") ||
      !strncmp(s, "torch/", 6) || !strncmp(s, "torch\\", 6))
    return 2;
  if (frame_rank_contains(s, n, "site-packages") ||
      frame_rank_contains(s, n, "dist-packages") || frame_rank_contains(s, n, "/lib/python3") ||
      frame_rank_contains(s, n, "\\lib\\python3") || s[0] == '<')
    return 1;
  return 0;
}

#endif
