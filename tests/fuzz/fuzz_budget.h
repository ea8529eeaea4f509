/*
** fuzz_budget.h — a CPU-time budget per fuzz input that grows linearly
** with its size.  Work that grows faster (a quadratic lexer, a join
** without an index) overruns it on inputs a few hundred KB long, and the
** harness aborts: libFuzzer saves the input as a crash.  CPU time, not
** wall time, so a busy machine does not raise false alarms; the constants
** leave a wide margin over what the sanitizer build needs (about 2 us per
** input byte).
*/
#ifndef PROFDB_FUZZ_BUDGET_H
#define PROFDB_FUZZ_BUDGET_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FUZZ_BUDGET_BASE_S 1.0       /* fixed cost: database, schema */
#define FUZZ_BUDGET_PER_BYTE_S 40e-6 /* 40 us per input byte */

static inline double fuzz_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void fuzz_check_budget(const char *what, double started, size_t size) {
  double used = fuzz_cpu_seconds() - started;
  double budget = FUZZ_BUDGET_BASE_S + FUZZ_BUDGET_PER_BYTE_S * (double)size;
  if (used > budget) {
    fprintf(stderr,
            "fuzz: %s took %.2f s of CPU for %zu bytes (budget %.2f s):"
            " super-linear work\n",
            what, used, size, budget);
    abort();
  }
}

#endif
