/*
** format.c — human-readable sizes and durations, and the version.
**
** SQL Function: profdb_fmt_bytes(N)
**   N bytes with binary units and two decimals: 512 -> '512 B',
**   1536 -> '1.50 KiB', 85029158912 -> '79.19 GiB'; negative values keep
**   their sign.  NULL for NULL.
** SQL Function: profdb_fmt_ns(N)
**   N nanoseconds: 950 -> '950 ns', 12345 -> '12.35 us',
**   1500000 -> '1.50 ms', 2500000000 -> '2.50 s'.  NULL for NULL.
** SQL Function: profdb_version()
**   The profdb version, e.g. '0.1.0'.
** SQL Function: profdb_display_name(S)
**   S as the report shows it: unchanged up to 64 KiB; a longer S is
**   cut at a character boundary at most 65536 bytes in, and
**   '…[cut: N bytes, fnv1a HHHHHHHHHHHHHHHH]' appended (N the full length,
**   H the FNV-1a 64-bit hash of all of S), so two different long names
**   stay different after the cut, and one name gives the same text in
**   every database.  The database keeps the full value: the cut bounds
**   what the report copies into its sorts, tables and files (a 30 MiB
**   kernel name is read once per use, never copied per row).  NULL and
**   non-text values are returned unchanged.
**
** Arguments that are not numbers are an error naming the function.
** Flags: DETERMINISTIC | INNOCUOUS (pure functions).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"
#include "humanize.h"

#include "profdb/version.h"

#include <math.h>

/* The numeric argument, or 0 with *ok = 0 (error or NULL handled). */
static double number_arg(sqlite3_context *ctx, const char *fn, sqlite3_value *v, int *ok) {
  int t = sqlite3_value_numeric_type(v);
  *ok = 0;
  if (t == SQLITE_NULL) return 0;
  if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
    char *msg = sqlite3_mprintf("%s(): 1st argument must be a number", fn);
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
    return 0;
  }
  double d = sqlite3_value_double(v);
  if (!isfinite(d)) {
    char *msg = sqlite3_mprintf("%s(): 1st argument must be finite", fn);
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
    return 0;
  }
  *ok = 1;
  return d;
}

static void fmt_bytes(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int ok;
  double n = number_arg(ctx, "profdb_fmt_bytes", argv[0], &ok);
  if (!ok) return;
  char buf[64];
  profdb_humanize_bytes(buf, sizeof buf, n);
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static void fmt_ns(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int ok;
  double n = number_arg(ctx, "profdb_fmt_ns", argv[0], &ok);
  if (!ok) return;
  char buf[64];
  profdb_humanize_ns(buf, sizeof buf, n);
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

/* Names longer than this many bytes are cut where the report shows them. */
#define DISPLAY_NAME_MAX 65536

static void display_name(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
    sqlite3_result_value(ctx, argv[0]);
    return;
  }
  const unsigned char *s = sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (n <= DISPLAY_NAME_MAX) {
    sqlite3_result_value(ctx, argv[0]);
    return;
  }
  unsigned long long h = 14695981039346656037ULL; /* FNV-1a 64 offset basis */
  for (int i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
  int cut = DISPLAY_NAME_MAX;
  while (cut > 0 && (s[cut] & 0xC0) == 0x80) cut--; /* not inside a character */
  char *r = sqlite3_mprintf("%.*s\xe2\x80\xa6[cut: %d bytes, fnv1a %016llx]", cut, s, n, h);
  if (!r) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, r, -1, sqlite3_free);
}

static void version_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, PROFDB_VERSION, -1, SQLITE_STATIC);
}

int profdb_format_init(sqlite3 *db) {
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc =
      sqlite3_create_function(db, "profdb_fmt_bytes", 1, flags, NULL, fmt_bytes, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "profdb_fmt_ns", 1, flags, NULL, fmt_ns, NULL, NULL);
  if (rc == SQLITE_OK)
    rc =
        sqlite3_create_function(db, "profdb_version", 0, flags, NULL, version_func, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "profdb_display_name", 1, flags, NULL, display_name, NULL,
                                 NULL);
  return rc;
}
