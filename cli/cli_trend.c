/*
** cli_trend.c — `profdb diff RUN1 RUN2 RUN3 ...`: a series of runs in
** order (a nightly series).  Each run is diffed with the run before it
** (queries/diff/lib builds the pair's tables; the gate's checks, if any,
** are judged on the pair); the run-level metrics (diff_metric) and the
** checks' verdicts go into a private in-memory database
** (queries/diff/trend/trend_run.sql), which queries/diff/trend/ reports
** on: the per-run table, the verdict and an SVG line chart.
*/
#include "cli.h"

#include "profdb/ext.h"
#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy one pair's metrics (side 'after' as run, and 'before' as run - 1
** for the first pair) and its checks into the trend database. */
static int collect(sqlite3 *pair, const rp_section *gate, sqlite3 *trend, int run) {
  sqlite3_stmt *get = NULL, *put = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(pair, "SELECT side, metric, value FROM diff_metric", -1, &get, NULL) ||
      sqlite3_prepare_v2(trend, "INSERT OR REPLACE INTO trend_metric VALUES (?1, ?2, ?3)", -1,
                         &put, NULL))
    goto done;
  while (sqlite3_step(get) == SQLITE_ROW) {
    int before = !strcmp((const char *)sqlite3_column_text(get, 0), "before");
    if (before && run > 2) continue; /* already there, from the pair before */
    sqlite3_reset(put);
    sqlite3_bind_int(put, 1, before ? run - 1 : run);
    sqlite3_bind_value(put, 2, sqlite3_column_value(get, 1));
    sqlite3_bind_value(put, 3, sqlite3_column_value(get, 2));
    if (sqlite3_step(put) != SQLITE_DONE) goto done;
  }
  sqlite3_finalize(put);
  put = NULL;
  if (sqlite3_prepare_v2(trend, "INSERT INTO trend_check VALUES (?1, ?2, ?3, ?4, ?5)", -1, &put,
                         NULL))
    goto done;
  int rule = rp_col_index(gate, "rule"), measured = rp_col_index(gate, "measured"),
      passed = rp_col_index(gate, "passed");
  for (int i = 0; i < gate->nrows; i++) {
    const rp_value *m = rp_cell(gate, i, measured), *p = rp_cell(gate, i, passed);
    sqlite3_reset(put);
    /* A check not evaluated has NULL measured and passed: no binding of
    ** the check before may stay (it was listed as failed with that
    ** check's measurement). */
    sqlite3_clear_bindings(put);
    sqlite3_bind_int(put, 1, run);
    sqlite3_bind_int(put, 2, i + 1);
    sqlite3_bind_text(put, 3, rp_cell(gate, i, rule)->s, -1, SQLITE_STATIC);
    if (m->type == SQLITE_TEXT) sqlite3_bind_text(put, 4, m->s, -1, SQLITE_STATIC);
    if (p->type == SQLITE_INTEGER) sqlite3_bind_int64(put, 5, p->i);
    if (sqlite3_step(put) != SQLITE_DONE) goto done;
  }
  rc = 0;
done:
  if (rc) fprintf(stderr, "profdb: diff: trend: %s\n", sqlite3_errmsg(put ? trend : pair));
  sqlite3_finalize(get);
  sqlite3_finalize(put);
  return rc;
}

/* Diff runs[run - 2] -> runs[run - 1] and collect it.  Returns an exit
** code; *failed is set when a check failed. */
static int pair(const char *before, const char *after, int run, cli_gate *gate,
                const char *qdir, rp_param *params, int nparams, sqlite3 *trend, int *failed) {
  int rc;
  sqlite3 *db = cli_open_pair(before, after, &rc);
  rp_report r = {0};
  if (!db) return rc;
  rc = PROFDB_EXIT_USAGE;
  r.kind = &rp_kind_diff;
  r.db = db;
  r.queries_dir = qdir;
  r.params = params;
  r.nparams = nparams;
  if (cli_diff_coll(&r) || rp_run(&r) ||
      (gate->n && (cli_gate_run(gate, &r) || cli_gate_find_missing(gate, &r) < 0)) ||
      collect(db, &r.gate, trend, run))
    goto done;
  if (gate->n && !cli_gate_passed(&r)) {
    char where[4300];
    snprintf(where, sizeof where, "at run %d (%s) against run %d", run, after, run - 1);
    if (!*failed) cli_gate_fail_line(&r.gate, where); /* the first failure, in the job log */
    *failed = 1;
  }
  rc = PROFDB_EXIT_OK;
done:
  rp_free(&r);
  sqlite3_close(db);
  return rc;
}

int cli_trend(rp_cli *o, const char **runs, int nruns, cli_gate *gate, const char *qdir,
              rp_param *params, int nparams) {
  sqlite3 *trend = NULL;
  rp_report r = {0};
  int rc = PROFDB_EXIT_USAGE, failed = 0;
  char path[4200];
  /* Databases first: loading files into temporary ones may fail early. */
  const char **dbs = calloc((size_t)nruns, sizeof *dbs);
  if (!dbs) goto done;
  for (int i = 0; i < nruns; i++) {
    dbs[i] = rp_cli_database(o, &runs[i], 1, 0, &rc);
    if (!dbs[i]) goto done;
    rc = PROFDB_EXIT_USAGE;
  }
  snprintf(path, sizeof path, "%s/diff/trend/trend_run.sql", qdir);
  if (sqlite3_open(":memory:", &trend) != SQLITE_OK) goto done;
  r.kind = &rp_kind_trend;
  r.db = trend;
  r.queries_dir = qdir;
  char *err = NULL;
  if (profdb_ext_register(trend, &err) != SQLITE_OK) {
    fprintf(stderr, "profdb: diff: trend: %s\n", err ? err : "cannot register SQL functions");
    sqlite3_free(err);
    goto done;
  }
  if (rp_exec_script(&r, path)) goto done;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(trend, "INSERT INTO trend_input VALUES (?1, ?2)", -1, &st, NULL))
    goto done;
  for (int i = 0; i < nruns; i++) {
    sqlite3_reset(st);
    sqlite3_bind_int(st, 1, i + 1);
    sqlite3_bind_text(st, 2, runs[i], -1, SQLITE_STATIC);
    sqlite3_step(st);
  }
  sqlite3_finalize(st);
  for (int i = 1; i < nruns; i++) {
    rc = pair(dbs[i - 1], dbs[i], i + 1, gate, qdir, params, nparams, trend, &failed);
    if (rc != PROFDB_EXIT_OK) goto done;
  }
  rc = PROFDB_EXIT_USAGE;
  if (cli_gate_report_missing(gate, nruns - 1)) goto done; /* names in no run: exit 2 */
  r.inputs = (char **)runs;
  r.ninputs = nruns;
  if (rp_cli_sections(&r, o) || rp_run(&r)) goto done;
  rc = rp_cli_output(&r, o, 1);
  if (rc == PROFDB_EXIT_OK && failed) rc = PROFDB_EXIT_GATE_FAILED;
done:
  rp_free(&r);
  if (trend) sqlite3_close(trend);
  free(dbs);
  return rc;
}
