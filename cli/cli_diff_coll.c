/*
** cli_diff_coll.c — the collective calls of each side of a diff
** (diff_coll_call), by the report's own definition: the report prelude's
** files that build report_coll_call (queries/lib/51_coll_call.sql, with
** the cross-rank matching of 50_collectives.sql) run on each database
** with that database as main, on a connection of their own (their SQL
** reads main's tables unqualified), and the rows are copied, with a side
** column, into the TEMP table diff_coll_call of the diff's connection(s).
** queries/diff/lib/50_coll.sql compares the sides; nothing of the
** bandwidth arithmetic is written twice.
*/
#include "cli.h"
#include "buf.h"
#include "oom.h"
#include "report_params.h"

#include <stdio.h>
#include <string.h>

/* The report prelude's files report_coll_call needs, in order: the steps
** (report_trace, report_step_all), the scope (report_gpu, report_step),
** the runs (report_run), the spans' timeline (report_clip_gpu), the
** matching across ranks, the calls. */
static const char *const coll_lib[] = {"05_steps.sql",       "10_trace_scope.sql",
                                       "12_runs.sql",        "15_timeline.sql",
                                       "50_collectives.sql", "51_coll_call.sql"};

/* CREATE TEMP TABLE diff_coll_call(side, <the columns of st>) on db. */
static int create_table(sqlite3 *db, sqlite3_stmt *st) {
  ld_buf b = {0};
  static const char head[] = "CREATE TEMP TABLE diff_coll_call(side TEXT";
  ld_buf_put(&b, head, sizeof head - 1);
  for (int c = 0; c < sqlite3_column_count(st); c++) {
    char *col = sqlite3_mprintf(", \"%w\"", sqlite3_column_name(st, c));
    if (!col) ld_oom();
    ld_buf_put(&b, col, strlen(col));
    sqlite3_free(col);
  }
  ld_buf_put(&b, ")", 1);
  ld_buf_cstr(&b);
  int rc = sqlite3_exec(db, b.p, NULL, NULL, NULL);
  ld_buf_free(&b);
  return rc == SQLITE_OK ? 0 : -1;
}

/* Copy the rows of st (report_coll_call on a side's connection) into
** diff_coll_call of each of the n connections dbs, with side. */
static int copy_rows(sqlite3_stmt *st, const char *side, sqlite3 **dbs, int n) {
  int ncol = sqlite3_column_count(st), rc = 0;
  for (int k = 0; k < n && rc == 0; k++) {
    ld_buf b = {0};
    static const char head[] = "INSERT INTO temp.diff_coll_call VALUES (?";
    ld_buf_put(&b, head, sizeof head - 1);
    for (int c = 0; c < ncol; c++) ld_buf_put(&b, ", ?", 3);
    ld_buf_put(&b, ")", 1);
    ld_buf_cstr(&b);
    sqlite3_stmt *put = NULL;
    rc = sqlite3_prepare_v2(dbs[k], b.p, -1, &put, NULL) == SQLITE_OK ? 0 : -1;
    ld_buf_free(&b);
    sqlite3_reset(st);
    int step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
      sqlite3_reset(put);
      sqlite3_bind_text(put, 1, side, -1, SQLITE_STATIC);
      for (int c = 0; c < ncol; c++)
        sqlite3_bind_value(put, c + 2, sqlite3_column_value(st, c));
      if (sqlite3_step(put) != SQLITE_DONE) rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE) rc = -1;
    if (rc) fprintf(stderr, "profdb: diff: collectives: %s\n", sqlite3_errmsg(dbs[k]));
    sqlite3_finalize(put);
  }
  return rc;
}

/* Whether s's database has a collective kernel (queries/diff/coll_probe.sql):
** 1, 0, or -1 with why printed. */
static int has_coll(rp_report *s) {
  char path[4200];
  snprintf(path, sizeof path, "%s/diff/coll_probe.sql", s->queries_dir);
  rp_section sec;
  int rc =
      rp_sandbox(s->db) || rp_parse_file(path, "coll_probe", &sec) || rp_run_section(s, &sec)
          ? -1
      : sec.nrows == 1 && rp_cell(&sec, 0, 0)->type == SQLITE_INTEGER
          ? rp_cell(&sec, 0, 0)->i != 0
          : 0;
  rp_section_free(&sec);
  return rc;
}

/* One side: the database attached as schema on r->db, its calls into
** dbs.  The first side also creates the table (from report_coll_call's
** columns: on a side without collectives the prelude files run on no
** trace, which is quicker); a later side without collectives adds
** nothing and runs nothing. */
static int one_side(rp_report *r, const char *schema, const char *side, sqlite3 **dbs, int n,
                    int create) {
  const char *path = sqlite3_db_filename(r->db, schema);
  if (!path || !*path) { /* never for profdb's inputs: each is a file */
    fprintf(stderr, "profdb: diff: collectives: the %s run is not a database file\n", side);
    return -1;
  }
  sqlite3 *db = cli_open_db(path, 1);
  if (!db) return -1;
  /* the diff's parameters, then :trace_id (last: it wins) for a side
  ** without collectives */
  rp_param params[RPO_MAX_PARAMS + 1];
  int np = r->nparams < RPO_MAX_PARAMS ? r->nparams : RPO_MAX_PARAMS;
  memcpy(params, r->params, (size_t)np * sizeof *params);
  rp_report s = {.kind = &rp_kind_report,
                 .db = db,
                 .queries_dir = r->queries_dir,
                 .params = params,
                 .nparams = np};
  sqlite3_stmt *st = NULL;
  int rc = -1, has = has_coll(&s);
  if (has < 0) goto done; /* has_coll sandboxed db */
  if (!has && !create) {  /* no rows to add, the table is there */
    rc = 0;
    goto done;
  }
  if (!has)
    params[s.nparams++] = (rp_param){.name = "trace_id", .type = SQLITE_INTEGER, .i = -1};
  if (rp_run_lib_files(&s, coll_lib, (int)(sizeof coll_lib / sizeof coll_lib[0]))) goto done;
  if (sqlite3_prepare_v2(db, "SELECT * FROM report_coll_call ORDER BY event_id", -1, &st,
                         NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: %s\n", path, sqlite3_errmsg(db));
    goto done;
  }
  rc = 0;
  for (int k = 0; create && k < n && rc == 0; k++)
    if (create_table(dbs[k], st)) {
      fprintf(stderr, "profdb: diff: collectives: %s\n", sqlite3_errmsg(dbs[k]));
      rc = -1;
    }
  if (rc == 0) rc = copy_rows(st, side, dbs, n);
done:
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rc;
}

int cli_diff_coll(rp_report *r) {
  sqlite3 *dbs[2] = {r->db, r->db2};
  int n = r->db2 ? 2 : 1;
  for (int k = 0; k < n; k++) rp_lib_pragmas(dbs[k]); /* later, they would drop the table */
  if (one_side(r, "base", "before", dbs, n, 1) || one_side(r, "main", "after", dbs, n, 0))
    return -1;
  return 0;
}
