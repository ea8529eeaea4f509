/*
** cli_export_chrome.c — `profdb export DB --format chrome`: a slice of a
** database as a Chrome trace-event JSON file (export/export_chrome.c).
**
**   profdb export run.db --format chrome --step 12 -o step12.json
**   profdb export run.db --format chrome --rank 3 --rank 5 --from +1.2s --to +1.4s -o w.json
**
** Exit codes: 0 ok, 2 usage or any other error.
*/
#include "cli.h"
#include "export.h"

#include "export_chrome.h"
#include "profdb/profdb.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The subjects (JSON text, malloc'd) of finding `which` (its number from
** 1, or its rule id) of the report on db_path: the findings of queries/
** findings.sql, run as `profdb report` runs them (cli_report_run). */
static char *finding_subjects(const char *db_path, const char *which, char **rule) {
  char *subjects = NULL;
  rp_report r = {0};
  if (!(r.queries_dir = cli_find_queries(NULL, "export: --finding"))) return NULL;
  sqlite3 *db = cli_open_db(db_path, 1);
  rpo_values defaults; /* the report's options as `profdb report DB` has them */
  rp_param params[RPO_MAX_PARAMS];
  rpo_defaults(&defaults);
  r.kind = &rp_kind_report;
  r.db = db;
  r.with_findings = 1;
  if (db && cli_report_run(&r, &defaults, params, db_path) == 0) {
    char *end;
    long k = strtol(which, &end, 10);
    int row = -1;
    if (*which && !*end)
      row = k >= 1 && k <= r.findings.nrows ? (int)k - 1 : -1;
    else
      for (int i = 0; i < r.findings.nrows && row < 0; i++)
        if (!strcmp(rp_text_of(&r.findings, i, "rule"), which)) row = i;
    if (row < 0)
      fprintf(stderr, "profdb: export: --finding %s: the report on %s has %d findings%s\n",
              which, db_path, r.findings.nrows, *end ? " and none of that rule" : "");
    else {
      subjects = strdup(rp_text_of(&r.findings, row, "subjects"));
      *rule = strdup(rp_text_of(&r.findings, row, "rule"));
    }
  }
  rp_free(&r);
  free((char *)r.queries_dir);
  if (db) sqlite3_close(db);
  return subjects;
}

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
    "  --finding K          the ranks and step that finding K of `profdb report DB`\n"
    "                       names (its subjects; K: its number, or its rule id);\n"
    "                       no step named: the longest step of those ranks\n"
    "  -q, --quiet          no summary line\n";

/* An option of --format chrome that takes a value: into o (ranks: the
** --rank list), *finding; -1 (printed) when it is not valid. */
static int chrome_option(const char *a, const char *v, ec_options *o, long long *ranks,
                         const char **finding) {
  char *end;
  if (!strcmp(a, "-o") || !strcmp(a, "--output"))
    o->out = v;
  else if (!strcmp(a, "--format")) {
    if (strcmp(v, "chrome")) return -1;
  } else if (!strcmp(a, "--run"))
    o->run = v;
  else if (!strcmp(a, "--finding"))
    *finding = v;
  else if (!strcmp(a, "--step") || !strcmp(a, "--rank")) {
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || errno || n < 0) {
      fprintf(stderr, "profdb: export: %s %s: not a number\n", a, v);
      return -1;
    }
    if (a[2] == 's') {
      o->step = n;
      o->have_step = 1;
    } else
      ranks[o->nranks++] = n;
  } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
    int from = a[2] == 'f';
    if (ec_parse_window_option(a, v, from ? &o->from_ns : &o->to_ns,
                               from ? &o->from_rel : &o->to_rel,
                               from ? &o->have_from : &o->have_to))
      return -1;
  } else {
    fprintf(stderr, "profdb: export: --format chrome: unknown option %s\n\n%s", a,
            chrome_usage);
    return -1;
  }
  return 0;
}

int cli_export_chrome(int argc, char **argv) {
  ec_options o = {0};
  long long *ranks =
      calloc((size_t)argc + EC_MAX_FINDING_RANKS, sizeof *ranks); /* + a finding's */
  const char *db_path = NULL, *finding = NULL;
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
    if (chrome_option(a, v, &o, ranks, &finding)) goto usage;
    i++;
  }
  if (!db_path || !o.out) {
    fprintf(stderr, "profdb: export: --format chrome needs DB and -o FILE\n\n%s", chrome_usage);
    goto usage;
  }
  if (ex_is_dataset(db_path)) { /* its summaries hold not every event */
    fprintf(stderr,
            "profdb: export: %s: a dataset: --format chrome needs a database of the traces\n"
            "  (profdb load TRACES -o run.db && profdb export run.db --format chrome ...;\n"
            "  profdb report %s --html gives that command for each finding)\n",
            db_path, db_path);
    free(ranks);
    return PROFDB_EXIT_USAGE;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  sqlite3 *db = cli_open_db(db_path, 1);
  int rc = PROFDB_EXIT_OK;
  ec_result res = {0};
  if (!db || cli_check_schema(db, db_path)) rc = PROFDB_EXIT_USAGE;
  if (rc == PROFDB_EXIT_OK && finding) {
    char *rule = NULL, *subjects = finding_subjects(db_path, finding, &rule);
    int n = 0;
    if (!subjects || ec_finding_subjects(db, subjects, ranks + o.nranks, EC_MAX_FINDING_RANKS,
                                         &n, &o.have_step, &o.step))
      rc = PROFDB_EXIT_USAGE;
    else {
      if (!o.nranks) o.nranks = n; /* --rank given: those ranks */
      o.longest_step = 1;
      if (!quiet)
        fprintf(stderr, "profdb: export: finding %s (%s): %s\n", finding, rule, subjects);
    }
    free(subjects);
    free(rule);
  }
  if (rc == PROFDB_EXIT_OK && ec_export(db, &o, &res))
    rc = res.retryable ? EX_EXIT_RETRY : PROFDB_EXIT_USAGE;
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
