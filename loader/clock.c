/*
** clock.c — the monotonic clock (see clock.h).
*/
#include "clock.h"

#include <stdlib.h>
#include <time.h>

double ld_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double ld_query_deadline(void) {
  const char *env = getenv("PROFDB_QUERY_TIMEOUT");
  double limit = env && *env ? strtod(env, NULL) : 3600;
  return limit > 0 ? ld_seconds() + limit : 0;
}
