/*
** cli_report.c — `profdb report`: run the canned SQL report.
**
**   profdb report run1.db                           Markdown to stdout
**   profdb report run1.db --md r.md --json r.json   files (+ SVG next to r.md)
**   profdb report run1.db --section gpu_kernel_sum --top 30
**   profdb report trace.json.gz memory_snapshot.json   load into a temporary
**                                                      database, then report
**
** The sections are the files listed in queries/report.list; the runner
** binds :top, :include_warmup, :gpu_bytes, :trace_id, :snapshot_id.
*/
#include "cli.h"
#include "report.h"

#include "profdb/profdb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
  "usage: profdb report DB | INPUT... [options]\n"
  "\n"
  "Write the resource report of a profdb database (or of traces and memory\n"
  "snapshots, loaded into a temporary database first): findings first, then\n"
  "one section per file of queries/report.list.  Markdown goes to stdout\n"
  "unless --md is given.\n"
  "\n"
  "options:\n"
  "  --md FILE          write Markdown to FILE, and SVG charts next to it\n"
  "  --json FILE        write JSON to FILE ('-' for stdout)\n"
  "  --html FILE        write one self-contained HTML file (charts inline)\n"
  "  --section ID       only this section (repeatable): an ID of queries/report.list,\n"
  "                     or 'findings'\n"
  "  --top N            rows of the top-N tables (default 15)\n"
  "  --include-warmup   analyse the first ProfilerStep too (default: excluded)\n"
  "  --gpu-gb X         device memory in GB (1e9 bytes), for OOM risk; default:\n"
  "                     the trace's deviceProperties\n"
  "  --trace ID         only this trace (default: all)\n"
  "  --snapshot ID      only this snapshot (default: all)\n"
  "  --queries DIR      query files to use (default: installed, else source tree)\n";

/* "label: steps 3-7 analysed (5), step 2 excluded as warm-up; ..." */
static char *scope_note(sqlite3 *db) {
  sqlite3_stmt *st;
  ld_buf b = {0};
  const char *sql =
      "SELECT w.label, w.steps, w.warmup_excluded,"
      " (SELECT min(step) FROM report_step s WHERE s.trace_id = w.trace_id),"
      " (SELECT max(step) FROM report_step s WHERE s.trace_id = w.trace_id),"
      " (SELECT group_concat(step, ', ') FROM report_step_all s WHERE s.trace_id = w.trace_id"
      "   AND s.warmup AND NOT s.empty),"
      " (SELECT group_concat(step, ', ') FROM report_step_all s WHERE s.trace_id = w.trace_id"
      "   AND s.empty), w.all_steps"
      " FROM report_window w ORDER BY w.rank, w.trace_id";
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return NULL;
  while (sqlite3_step(st) == SQLITE_ROW) {
    char line[1024];
    const char *label = (const char *)sqlite3_column_text(st, 0);
    int steps = sqlite3_column_int(st, 1), excluded = sqlite3_column_int(st, 2);
    const char *warm = (const char *)sqlite3_column_text(st, 5);
    const char *empty = (const char *)sqlite3_column_text(st, 6);
    int n = 0;
    if (sqlite3_column_int(st, 7) == 0)
      n = snprintf(line, sizeof line, "%s: no ProfilerStep ranges, the whole trace is analysed", label);
    else if (steps == 0)
      n = snprintf(line, sizeof line, "%s: no step analysed", label);
    else
      n = snprintf(line, sizeof line, "%s: steps %d-%d analysed (%d)", label,
                   sqlite3_column_int(st, 3), sqlite3_column_int(st, 4), steps);
    if (excluded && warm && n < (int)sizeof line)
      n += snprintf(line + n, sizeof line - (size_t)n, ", step %s excluded as warm-up", warm);
    if (empty && n < (int)sizeof line)
      snprintf(line + n, sizeof line - (size_t)n,
               ", step %s skipped (no time of its own: cut short while earlier GPU work ran)", empty);
    if (b.n) ld_buf_put(&b, "; ", 2);
    ld_buf_put(&b, line, strlen(line));
  }
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(db, "SELECT s.label, group_concat(d.device, ', ') FROM report_mem_device d"
                         " JOIN snapshot s USING (snapshot_id) GROUP BY d.snapshot_id"
                         " ORDER BY d.snapshot_id", -1, &st, NULL) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      char line[512];
      snprintf(line, sizeof line, "snapshot %s: device(s) %s",
               (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
      if (b.n) ld_buf_put(&b, "; ", 2);
      ld_buf_put(&b, line, strlen(line));
    }
    sqlite3_finalize(st);
  }
  if (!b.n) return NULL;
  ld_buf_cstr(&b);
  return b.p;
}

int cli_report(int argc, char **argv) {
  rp_cli o;
  const char **pos = calloc((size_t)argc + 1, sizeof *pos);
  int npos = 0, rc = PROFDB_EXIT_USAGE;
  long long trace_id = -1, snapshot_id = -1;
  double gpu_gb = -1;
  sqlite3 *db = NULL;
  rp_report r = {0};
  if (rp_cli_init(&o, argc) || !pos) goto done;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    char *end = NULL;
    int common = rp_cli_option(&o, argc, argv, &i);
    if (common < 0) goto bad;
    if (common) continue;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(report_usage, stdout);
      rc = PROFDB_EXIT_OK;
      goto done;
    } else if (!strcmp(a, "--trace") && more) {
      trace_id = strtoll(argv[++i], &end, 10);
      if (*end || trace_id < 1) goto bad;
    } else if (!strcmp(a, "--snapshot") && more) {
      snapshot_id = strtoll(argv[++i], &end, 10);
      if (*end || snapshot_id < 1) goto bad;
    } else if (!strcmp(a, "--gpu-gb") && more) {
      gpu_gb = strtod(argv[++i], &end);
      if (*end || !(gpu_gb > 0)) goto bad;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "profdb: report: unknown option '%s'\n", a);
      goto bad;
    } else pos[npos++] = a;
  }
  if (npos == 0) goto bad;
  const char *qdir = rp_find_queries(o.queries);
  if (!qdir) {
    fprintf(stderr, "profdb: report: cannot find the query files%s%s; give --queries DIR\n",
            o.queries ? " in " : "", o.queries ? o.queries : "");
    goto done;
  }
  const char *db_path = rp_cli_database(&o, pos, npos, &rc);
  if (!db_path) goto done;
  rc = PROFDB_EXIT_USAGE;
  db = cli_open_db(db_path, 1);
  if (!db) goto done;
  if (cli_check_schema(db, db_path)) {
    rc = PROFDB_EXIT_DATA;
    goto done;
  }
  rp_param params[] = {
      {"top", SQLITE_INTEGER, o.top, 0},
      {"include_warmup", SQLITE_INTEGER, o.include_warmup, 0},
      {"gpu_bytes", gpu_gb > 0 ? SQLITE_INTEGER : SQLITE_NULL, (long long)(gpu_gb * 1e9), 0},
      {"trace_id", trace_id > 0 ? SQLITE_INTEGER : SQLITE_NULL, trace_id, 0},
      {"snapshot_id", snapshot_id > 0 ? SQLITE_INTEGER : SQLITE_NULL, snapshot_id, 0},
  };
  r.kind = &rp_kind_report;
  r.db = db;
  /* With a second core, a second connection runs half of the sections. */
  if (rp_cli_two_connections(&db_path, 1)) r.db2 = cli_open_db(db_path, 1);
  r.queries_dir = qdir;
  r.params = params;
  r.nparams = (int)(sizeof params / sizeof params[0]);
  r.inputs = (char **)pos;
  r.ninputs = npos;
  if (rp_cli_sections(&r, &o) || rp_run(&r)) goto done;
  r.scope_note = scope_note(db);
  rc = rp_cli_output(&r, &o, 1);
  goto done;
bad:
  fputs(report_usage, stderr);
  rc = PROFDB_EXIT_USAGE;
done:
  rp_free(&r);
  if (r.db2) sqlite3_close(r.db2);
  if (db) sqlite3_close(db);
  rp_cli_free(&o);
  free(pos);
  return rc;
}
