/*
** humanize.h — numbers as people read them: durations and byte sizes.
**
** One copy for everything that prints them: the SQL functions
** profdb_fmt_ns / profdb_fmt_bytes (format.c) and the Markdown report
** (report_md.c), so a figure reads the same in both.  Plain C, no SQLite.
*/
#ifndef PROFDB_HUMANIZE_H
#define PROFDB_HUMANIZE_H

#include <stddef.h>

/* v nanoseconds: 950 -> "950 ns", 12345 -> "12.35 us", 1500000 -> "1.50 ms",
** 2500000000 -> "2.50 s".  Negative values keep their sign. */
void profdb_humanize_ns(char *out, size_t n, double v);

/* v bytes in binary units with two decimals: 512 -> "512 B",
** 1536 -> "1.50 KiB", 85029158912 -> "79.19 GiB".  Units go up to EiB,
** which covers every 64-bit byte count (2^63 bytes = 8 EiB). */
void profdb_humanize_bytes(char *out, size_t n, double v);

#endif
