/*
** cli_export_chrome.c — `profdb export DB --format chrome`: a slice of a
** database as a Chrome trace-event JSON file (export/export_chrome.c).
**
**   profdb export run.db --format chrome --step 12 -o step12.json
**   profdb export run.db --format chrome --rank 3 --rank 5 --from +1.2s --to +1.4s -o w.json
**
** Exit codes: 0 ok, 6 the slice would pass --max-mb (nothing written), 75
** an I/O error a retry may cure, 2 usage or any other error.
*/
#include "cli.h"
#include "export.h"

#include "export_chrome.h"
#include "oom.h"
#include "profdb/profdb.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Run the report on db (db_path's connection), as `profdb report` runs it
** (cli_report_run), and select finding `which` (its number from 1, or its
** rule id): its ranks, at most f->max_ranks, and step into f (f->meta,
** malloc'd).  The report's TEMP tables stay on db, so that the export
** picks a step the report analysed (export/chrome/_longest_step.sql).
** 0, or -1 with a message. */
static int finding_select(sqlite3 *db, const char *db_path, const char *which, ec_finding *f) {
  int rc = -1;
  rp_report r = {0};
  if (!(r.queries_dir = cli_find_queries(NULL, "export: --finding"))) return -1;
  rpo_values defaults; /* the report's options as `profdb report DB` has them */
  rp_param params[RPO_MAX_PARAMS];
  rpo_defaults(&defaults);
  r.kind = &rp_kind_report;
  r.db = db;
  r.with_findings = 1;
  if (cli_report_run(&r, &defaults, params, db_path) == 0) {
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
      f->rule = rp_text_of(&r.findings, row, "rule");
      f->subjects = rp_text_of(&r.findings, row, "subjects");
      f->evidence = rp_text_of(&r.findings, row, "evidence");
      rc = ec_finding_select(db, f);
    }
  }
  f->rule = f->subjects = f->evidence = NULL; /* r's, freed here */
  rp_free(&r);
  free((char *)r.queries_dir);
  return rc;
}

/* --finding on a dataset (profdb export's, whose summaries hold not every
** event): the report of its summaries names the finding's ranks (at most
** f->max_ranks) and step, and only those ranks' traces are loaded again,
** from the paths their export recorded, into a temporary database of c
** (*db_path).  Where --rank names them as the finding does (one run, each
** rank one its path gives again: ec_selected_traces), o gets those ranks,
** the step and f->meta, and *rerun is 0; else every trace is loaded and
** *rerun is 1: the finding is taken again from their database.  0 or an
** exit code (said). */
static int dataset_traces(rp_cli *c, const char *dir, const char *which, ec_finding *f,
                          ec_options *o, const char **db_path, int *rerun) {
  int rc = PROFDB_EXIT_USAGE, plain = 0, npaths = 0;
  char **paths = NULL;
  const char *sum = rp_cli_database(c, &dir, 1, 0, &rc);
  sqlite3 *db = sum ? cli_open_db(sum, 1) : NULL;
  if (db && finding_select(db, dir, which, f) == 0) {
    ec_options sel = {.ranks = o->nranks ? o->ranks : f->ranks,
                      .nranks = o->nranks ? o->nranks : f->nranks,
                      .have_step = f->have_step,
                      .step = f->step,
                      .longest_step = 1};
    if (ec_select(db, &sel) == 0 && ec_selected_traces(db, &paths, &npaths, &plain) == 0 &&
        !plain) { /* every trace, and the finding on their database */
      while (npaths) free(paths[--npaths]);
      free(paths);
      ec_options all = {0};
      if (ec_select(db, &all) || ec_selected_traces(db, &paths, &npaths, &plain)) npaths = 0;
      plain = 0;
    }
    f->have_step = sel.have_step;
    f->step = sel.step;
  }
  if (db) sqlite3_close(db);
  if (npaths) {
    *db_path = rp_cli_database(c, (const char *const *)paths, npaths, 0, &rc);
    rc = *db_path ? PROFDB_EXIT_OK : rc;
  }
  for (int k = 0; k < npaths; k++) free(paths[k]);
  free(paths);
  if (rc == PROFDB_EXIT_OK && (*rerun = !plain) == 0) {
    if (!o->nranks) o->nranks = f->nranks;
    o->have_step = f->have_step;
    o->step = f->step;
    o->finding = f->meta;
  }
  return rc;
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
    "                       no step named: the longest step the report analysed\n"
    "                       (never a warm-up step it excluded)\n"
    "  --max-ranks N        --finding: show at most N of its ranks (default 8; a\n"
    "                       straggler's latest, median and earliest arrivals); the\n"
    "                       others are named in the slice's metadata\n"
    "  --max-mb N           refuse (exit 6, nothing written) a slice to a file past\n"
    "                       N MB (default 100; 0: no limit)\n"
    "  -q, --quiet          no summary line\n";

/* An option of --format chrome that takes a value: into o (ranks: the
** --rank list), *finding, *max_ranks; -1 (printed) when it is not valid. */
static int chrome_option(const char *a, const char *v, ec_options *o, long long *ranks,
                         const char **finding, int *max_ranks) {
  char *end;
  if (!strcmp(a, "-o") || !strcmp(a, "--output"))
    o->out = v;
  else if (!strcmp(a, "--format")) {
    if (strcmp(v, "chrome")) return -1;
  } else if (!strcmp(a, "--run"))
    o->run = v;
  else if (!strcmp(a, "--finding"))
    *finding = v;
  else if (!strcmp(a, "--step") || !strcmp(a, "--rank") || !strcmp(a, "--max-ranks") ||
           !strcmp(a, "--max-mb")) {
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || errno || n < 0 || (a[6] == 'r' && (n < 1 || n > 4096)) ||
        (a[6] == 'm' && n > 1000000)) {
      fprintf(stderr, "profdb: export: %s %s: not a number%s\n", a, v,
              a[6] == 'r'   ? " from 1 to 4096"
              : a[6] == 'm' ? " from 0 to 1000000"
                            : "");
      return -1;
    }
    if (a[6] == 'r')
      *max_ranks = (int)n;
    else if (a[6] == 'm')
      o->max_bytes = n * 1000000;
    else if (a[2] == 's') {
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
  int quiet = 0, max_ranks = EC_DEFAULT_MAX_RANKS;
  o.ranks = ranks;
  o.max_bytes = EC_DEFAULT_MAX_BYTES;
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
    if (chrome_option(a, v, &o, ranks, &finding, &max_ranks)) goto usage;
    i++;
  }
  if (!db_path || !o.out) {
    fprintf(stderr, "profdb: export: --format chrome needs DB and -o FILE\n\n%s", chrome_usage);
    goto usage;
  }
  if (ex_is_dataset(db_path) && !finding) { /* its summaries hold not every event */
    fprintf(stderr,
            "profdb: export: %s: a dataset: --format chrome reads it with --finding K only;\n"
            "  else it needs a database of the traces (profdb load TRACES -o run.db &&\n"
            "  profdb export run.db --format chrome ...)\n",
            db_path);
    free(ranks);
    return PROFDB_EXIT_USAGE;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = PROFDB_EXIT_OK, rerun = 1;
  ec_finding f = {.max_ranks = max_ranks, .ranks = ranks + o.nranks};
  rp_cli *c = calloc(1, sizeof *c); /* a dataset's temporary databases */
  if (!c || rp_cli_init(c, 1, RPO_REPORT)) ld_oom();
  f.have_step = o.have_step; /* --step given: that step */
  f.step = o.step;
  if (ex_is_dataset(db_path))
    rc = dataset_traces(c, db_path, finding, &f, &o, &db_path, &rerun);
  sqlite3 *db = rc == PROFDB_EXIT_OK ? cli_open_db(db_path, 1) : NULL;
  ec_result res = {0};
  if (rc == PROFDB_EXIT_OK && (!db || cli_check_schema(db, db_path))) rc = PROFDB_EXIT_USAGE;
  if (rc == PROFDB_EXIT_OK && finding && rerun) {
    free(f.meta);
    f.meta = NULL;
    if (finding_select(db, db_path, finding, &f))
      rc = PROFDB_EXIT_USAGE;
    else {
      if (!o.nranks) o.nranks = f.nranks; /* --rank given: those ranks */
      o.have_step = f.have_step;
      o.step = f.step;
      o.longest_step = 1;
      o.finding = f.meta;
    }
  }
  if (rc == PROFDB_EXIT_OK && o.finding && !quiet) {
    fprintf(stderr, "profdb: export: finding %s: rank%s", finding, o.nranks == 1 ? "" : "s");
    for (int k = 0; k < o.nranks; k++) fprintf(stderr, "%s %lld", k ? "," : "", o.ranks[k]);
    if (!o.nranks) fputs(" all", stderr);
    if (f.not_shown)
      fprintf(stderr, " (%d more it names: in the slice's profdb.export.finding)", f.not_shown);
    fputc('\n', stderr);
  }
  if (rc == PROFDB_EXIT_OK && ec_export(db, &o, &res))
    rc = res.too_big ? PROFDB_EXIT_TOO_BIG : res.retryable ? EX_EXIT_RETRY : PROFDB_EXIT_USAGE;
  free(f.meta);
  sqlite3_close(db);
  rp_cli_free(c);
  free(c);
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
