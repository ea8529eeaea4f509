/*
** cli_export_chrome.c — `profdb export DB --format chrome`: a slice of a
** database as a Chrome trace-event JSON file (loader/export_chrome.c).
**
**   profdb export run.db --format chrome --step 12 -o step12.json
**   profdb export run.db --format chrome --rank 3 --rank 5 --from +1.2s --to +1.4s -o w.json
**
** Exit codes: 0 ok, 2 usage or any other error.
*/
#include "cli.h"

#include "export_chrome.h"
#include "profdb/profdb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char chrome_usage[] =
    "usage: profdb export DB --format chrome -o FILE.json [options]\n"
    "\n"
    "Write a slice of DB as a Chrome trace-event JSON file that Perfetto UI and\n"
    "chrome://tracing open (docs/export.md): one process per rank, its CPU\n"
    "threads and GPU streams; events crossing the window's edges kept whole,\n"
    "marked with args \"profdb.cut\".\n"
    "\n"
    "  -o, --output FILE    the JSON file ('-': standard output)\n"
    "  --step N             step N on every rank (its span: CPU range and GPU work)\n"
    "  --rank R             only rank R (repeatable)\n"
    "  --from T, --to T     a window in the trace's own clock: 1694128201427.5ms;\n"
    "                       '+' for relative to the first event: +12.5ms\n"
    "                       (units ns, us, ms, s; none: us)\n"
    "  --run NAME           only the run NAME (as profdb export names runs)\n"
    "  -q, --quiet          no summary line\n";

int cli_export_chrome(int argc, char **argv) {
  ec_options o = {0};
  long long *ranks = calloc((size_t)argc + 1, sizeof *ranks);
  const char *db_path = NULL;
  int quiet = 0;
  o.ranks = ranks;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(chrome_usage, stdout);
      free(ranks);
      return PROFDB_EXIT_OK;
    }
    if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = 1;
      continue;
    }
    if (a[0] != '-' || !a[1]) {
      if (db_path) {
        fprintf(stderr, "profdb: export: --format chrome reads one database\n");
        goto usage;
      }
      db_path = a;
      continue;
    }
    if (!v) {
      fprintf(stderr, "profdb: export: %s needs a value\n\n%s", a, chrome_usage);
      goto usage;
    }
    char *end;
    if (!strcmp(a, "-o") || !strcmp(a, "--output"))
      o.out = v;
    else if (!strcmp(a, "--format")) {
      if (strcmp(v, "chrome")) goto usage;
    } else if (!strcmp(a, "--run"))
      o.run = v;
    else if (!strcmp(a, "--step") || !strcmp(a, "--rank")) {
      errno = 0;
      long long n = strtoll(v, &end, 10);
      if (!*v || *end || errno || n < 0) {
        fprintf(stderr, "profdb: export: %s %s: not a number\n", a, v);
        goto usage;
      }
      if (a[2] == 's') {
        o.step = n;
        o.have_step = 1;
      } else
        ranks[o.nranks++] = n;
    } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
      int from = a[2] == 'f';
      if (ec_parse_time(v, from ? &o.from_ns : &o.to_ns, from ? &o.from_rel : &o.to_rel)) {
        fprintf(stderr,
                "profdb: export: %s %s: not a time (a number with ns, us, ms or s;"
                " '+' for relative)\n",
                a, v);
        goto usage;
      }
      *(from ? &o.have_from : &o.have_to) = 1;
    } else {
      fprintf(stderr, "profdb: export: --format chrome: unknown option %s\n\n%s", a,
              chrome_usage);
      goto usage;
    }
    i++;
  }
  if (!db_path || !o.out) {
    fprintf(stderr, "profdb: export: --format chrome needs DB and -o FILE\n\n%s", chrome_usage);
    goto usage;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  sqlite3 *db = cli_open_db(db_path, 1);
  int rc = PROFDB_EXIT_OK;
  ec_result res;
  if (!db || cli_check_schema(db, db_path) || ec_export(db, &o, &res)) rc = PROFDB_EXIT_USAGE;
  sqlite3_close(db);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (!quiet && rc == PROFDB_EXIT_OK)
    fprintf(stderr, "profdb: export: %s: %lld ranks, %lld events, %.1f MB in %.2f s\n", o.out,
            (long long)res.ranks, (long long)res.events, res.bytes / 1e6,
            (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
  free(ranks);
  return rc;
usage:
  free(ranks);
  return PROFDB_EXIT_USAGE;
}
