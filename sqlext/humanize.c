/*
** humanize.c — durations and byte sizes as text (see humanize.h).
*/
#include "humanize.h"

#include <math.h>
#include <stdio.h>

void profdb_humanize_ns(char *out, size_t n, double v) {
  double a = fabs(v);
  const char *sign = v < 0 ? "-" : "";
  if (a < 1e3)
    snprintf(out, n, "%.0f ns", v);
  else if (a < 1e6)
    snprintf(out, n, "%s%.2f us", sign, a / 1e3);
  else if (a < 1e9)
    snprintf(out, n, "%s%.2f ms", sign, a / 1e6);
  /* beyond 1e24 ns: an exponent, so the text stays short and keeps its unit */
  else
    snprintf(out, n, a < 1e24 ? "%s%.2f s" : "%s%.3e s", sign, a / 1e9);
}

void profdb_humanize_bytes(char *out, size_t n, double v) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  const int last = (int)(sizeof units / sizeof units[0]) - 1;
  double a = fabs(v);
  int u = 0;
  while (a >= 1024.0 && u < last) {
    a /= 1024.0;
    u++;
  }
  if (u == 0) snprintf(out, n, "%.0f B", v);
  /* beyond 2^110 B: an exponent, keeping the unit (1e308 stays readable) */
  else
    snprintf(out, n, a < 1e15 ? "%s%.2f %s" : "%s%.3e %s", v < 0 ? "-" : "", a, units[u]);
}
