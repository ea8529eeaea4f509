/* humanize.test.c — the one formatting of durations and sizes, shared by
** the SQL functions and the Markdown report.  The report's former copy
** stopped at PiB (2^60 bytes read "1024.00 PiB"); both now go to EiB. */
#include "humanize.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check(const char *what, void (*fmt)(char *, size_t, double), double v,
                  const char *want) {
  char got[64];
  fmt(got, sizeof got, v);
  if (strcmp(got, want)) {
    printf("FAIL %s(%.17g) = \"%s\", want \"%s\"\n", what, v, got, want);
    failures++;
  }
}

int main(void) {
  check("bytes", profdb_humanize_bytes, 0, "0 B");
  check("bytes", profdb_humanize_bytes, 1023, "1023 B");
  check("bytes", profdb_humanize_bytes, 1536, "1.50 KiB");
  check("bytes", profdb_humanize_bytes, 85029158912.0, "79.19 GiB");
  check("bytes", profdb_humanize_bytes, -1048576, "-1.00 MiB");
  check("bytes", profdb_humanize_bytes, 1125899906842624.0, "1.00 PiB");
  check("bytes", profdb_humanize_bytes, 1152921504606846976.0, "1.00 EiB");
  check("bytes", profdb_humanize_bytes, 9223372036854775807.0, "8.00 EiB");
  check("ns", profdb_humanize_ns, 999, "999 ns");
  check("ns", profdb_humanize_ns, 12345, "12.35 us");
  check("ns", profdb_humanize_ns, -4200, "-4.20 us");
  check("ns", profdb_humanize_ns, 1500000, "1.50 ms");
  check("ns", profdb_humanize_ns, 2500000000.0, "2.50 s");
  return failures ? 1 : 0;
}
