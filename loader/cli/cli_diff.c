/*
** cli_diff.c — `profdb diff`: compare two runs.
**
**   profdb diff before.db after.db                   Markdown to stdout
**   profdb diff before.db after.db --md d.md --json d.json
**   profdb diff before.json.gz after.json.gz         load each first
**
** The newer run is the main database and the older one is ATTACHed as
** base; the files of queries/diff/lib build side-by-side tables, the sections of
** queries/diff/diff.list compare them, and queries/diff/verdict.sql sums up.
*/
#include "cli.h"
#include "report.h"

#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char diff_usage[] =
  "usage: profdb diff BEFORE AFTER [options]\n"
  "\n"
  "Compare two runs: BEFORE and AFTER are profdb databases, or a trace /\n"
  "memory snapshot file (or a folder of them) each, loaded into a temporary\n"
  "database first.  The verdict comes first, then one section per file of\n"
  "queries/diff/diff.list.  Markdown goes to stdout unless --md, --json or --html is given.\n"
  "\n"
  "options:\n"
  "  --md FILE          write Markdown to FILE\n"
  "  --json FILE        write JSON to FILE ('-' for stdout)\n"
  "  --html FILE        write one self-contained HTML file\n"
  "  --section ID       only this section (repeatable): an ID of queries/diff/diff.list,\n"
  "                     or 'verdict'\n"
  "  --top N            rows of the top-N tables (default 15)\n"
  "  --include-warmup   compare the first ProfilerStep too (default: excluded)\n"
  "  --queries DIR      query files to use (default: installed, else source tree)\n";

/* ATTACH the older database as base (read-only, like main). */
static int attach_base(sqlite3 *db, const char *path) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, "ATTACH ?1 AS base", -1, &st, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_finalize(st);
  }
  if (rc != SQLITE_OK) {
    fprintf(stderr, "profdb: %s: cannot attach: %s\n", path, sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

int cli_diff(int argc, char **argv) {
  rp_cli o;
  const char *pos[2] = {NULL, NULL};
  int npos = 0, rc = PROFDB_EXIT_USAGE;
  sqlite3 *db = NULL, *check = NULL;
  rp_report r = {0};
  if (rp_cli_init(&o, argc)) goto done;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int common = rp_cli_option(&o, argc, argv, &i);
    if (common < 0) goto bad;
    if (common) continue;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(diff_usage, stdout);
      rc = PROFDB_EXIT_OK;
      goto done;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "profdb: diff: unknown option '%s'\n", a);
      goto bad;
    } else if (npos == 2) {
      fprintf(stderr, "profdb: diff: give exactly two runs, BEFORE and AFTER\n");
      goto bad;
    } else pos[npos++] = a;
  }
  if (npos != 2) {
    fprintf(stderr, "profdb: diff: give two runs, BEFORE and AFTER (got %d)\n", npos);
    goto bad;
  }
  const char *qdir = rp_find_queries(o.queries);
  if (!qdir) {
    fprintf(stderr, "profdb: diff: cannot find the query files%s%s; give --queries DIR\n",
            o.queries ? " in " : "", o.queries ? o.queries : "");
    goto done;
  }
  const char *before = rp_cli_database(&o, &pos[0], 1, &rc);
  if (!before) goto done;
  const char *after = rp_cli_database(&o, &pos[1], 1, &rc);
  if (!after) goto done;
  rc = PROFDB_EXIT_USAGE;
  /* Both must be databases of this schema version. */
  check = cli_open_db(before, 1);
  if (!check) goto done;
  if (cli_check_schema(check, before)) {
    rc = PROFDB_EXIT_DATA;
    goto done;
  }
  db = cli_open_db(after, 1);
  if (!db) goto done;
  if (cli_check_schema(db, after)) {
    rc = PROFDB_EXIT_DATA;
    goto done;
  }
  if (attach_base(db, before)) goto done;
  rp_param params[] = {
      {"top", SQLITE_INTEGER, o.top, 0},
      {"include_warmup", SQLITE_INTEGER, o.include_warmup, 0},
  };
  r.kind = &rp_kind_diff;
  r.db = db;
  /* With a second core, a second connection runs half of the sections. */
  const char *both[2] = {before, after};
  if (rp_cli_two_connections(both, 2) && (r.db2 = cli_open_db(after, 1)) &&
      attach_base(r.db2, before)) {
    sqlite3_close(r.db2);
    r.db2 = NULL;
  }
  r.queries_dir = qdir;
  r.params = params;
  r.nparams = (int)(sizeof params / sizeof params[0]);
  r.inputs = (char **)pos;
  r.ninputs = 2;
  if (rp_cli_sections(&r, &o) || rp_run(&r)) goto done;
  rc = rp_cli_output(&r, &o, 0);
  goto done;
bad:
  fputs(diff_usage, stderr);
  rc = PROFDB_EXIT_USAGE;
done:
  rp_free(&r);
  if (r.db2) sqlite3_close(r.db2);
  if (db) sqlite3_close(db);
  if (check) sqlite3_close(check);
  rp_cli_free(&o);
  return rc;
}
