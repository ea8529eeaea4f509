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
** binds the parameters of the report's options (report_params.c: :top,
** :include_warmup, :scope_trace, :scope_hta, :gpu_bytes, :trace_id,
** :snapshot_id).
*/
#include "cli.h"
#include "export.h"
#include "export_chrome.h"
#include "oom.h"
#include "report.h"

#include "profdb/profdb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_opens(rp_open *opens, int n) {
  for (int i = 0; opens && i < n; i++) {
    for (int k = 0; k < opens[i].npaths; k++) free(opens[i].paths[k]);
    free(opens[i].paths);
  }
  free(opens);
}

/* The traces of each finding of a dataset's report (rp_open) that its
** HTML's "Open it", `profdb export DIR --format chrome --finding K`, loads
** again (cli_export_chrome.c: at most EC_DEFAULT_MAX_RANKS of its ranks
** where --rank names them as its subjects do, else every trace): whether
** there are any, and whether their paths are relative.  An entry without
** paths: no command (a rule about missing data, or an error). */
static rp_open *dataset_opens(sqlite3 *db, const rp_section *f) {
  rp_open *opens = calloc((size_t)f->nrows + 1, sizeof *opens);
  ec_options all = {0};
  char **every = NULL;
  int nevery = 0, plain = 0;
  if (!opens) ld_oom();
  if (ec_select(db, &all) || ec_selected_traces(db, &every, &nevery, &plain)) nevery = 0;
  long long *ranks = malloc(EC_MAX_FINDING_RANKS * sizeof *ranks);
  if (!ranks) ld_oom();
  for (int i = 0; nevery && i < f->nrows; i++) {
    const char *rule = rp_text_of(f, i, "rule"), *subjects = rp_text_of(f, i, "subjects");
    if (!*rule || !strncmp(rule, "need_", 5)) continue;
    rp_open *o = &opens[i];
    int ignored;
    if (!plain) { /* every trace */
      o->paths = calloc((size_t)nevery + 1, sizeof *o->paths);
      if (!o->paths) ld_oom();
      for (o->npaths = 0; o->npaths < nevery; o->npaths++)
        if (!(o->paths[o->npaths] = strdup(every[o->npaths]))) ld_oom();
      continue;
    }
    ec_finding ef = {.rule = rule,
                     .subjects = subjects,
                     .evidence = rp_text_of(f, i, "evidence"),
                     .max_ranks = EC_DEFAULT_MAX_RANKS,
                     .ranks = ranks};
    int bad = ec_finding_select(db, &ef);
    ec_options eo = {.ranks = ranks, .nranks = ef.nranks};
    free(ef.meta);
    if (!bad && ec_select(db, &eo) == 0)
      ec_selected_traces(db, &o->paths, &o->npaths, &ignored);
  }
  free(ranks);
  for (int k = 0; k < nevery; k++) free(every[k]);
  free(every);
  return opens;
}

static const char report_usage[] =
    "usage: profdb report DB | DATASET | INPUT... [options]\n"
    "\n"
    "Write the resource report of a profdb database (or of a Parquet dataset of\n"
    "profdb export, from its summaries, or of traces and memory snapshots,\n"
    "loaded into a temporary database first): findings first, then\n"
    "one section per file of queries/report.list.  Markdown goes to stdout\n"
    "unless --md is given.\n"
    "\n"
    "options:\n"
    "  --md FILE          write Markdown to FILE, and SVG charts next to it\n"
    "  --json FILE        write JSON to FILE ('-' for stdout)\n"
    "  --html FILE        write one self-contained HTML file (charts inline)\n"
    "  --csv DIR          write one CSV file per section into DIR (SECTION.csv,\n"
    "                     findings.csv; header row, raw ns and bytes, RFC 4180);\n"
    "                     '-': the one --section's CSV to stdout\n"
    "  --list             print the section ids with their titles, and exit\n"

    "  --section ID       only this section (repeatable): an ID of queries/report.list,\n"
    "                     or 'findings'\n";
/* then the report's options (report_params.c), then these */
static const char report_usage_end[] =
    "  --run NAME         a DATASET's run (its run=NAME folders; default: every\n"
    "                     run, with a warning when there are several); the run\n"
    "                     of the INPUT files (as profdb load --run)\n"
    "  --rank N           the rank of the one INPUT file when its distributedInfo\n"
    "                     has none (default: the number after 'rank' or 'worker'\n"
    "                     in its file name, else its folder's, else 0; as profdb\n"
    "                     load --rank: docs/definitions.md#ranks)\n"
    "  --queries DIR      query files to use (default: $PROFDB_QUERIES, else the\n"
    "                     installed share/profdb/queries next to this profdb)\n"
    "  --progress         show the progress line even when stderr is not a terminal\n"
    "                     (else a plain line every 10 s there, for a log:\n"
    "                     $PROFDB_PROGRESS_SECONDS)\n"
    "  --no-progress      never show progress\n"
    "  -q, --quiet        no progress (warnings and errors only)\n";

static void usage(FILE *f) {
  fputs(report_usage, f);
  rpo_write_help(f, RPO_REPORT);
  fputs(report_usage_end, f);
}

/* Whether trace (or snapshot) id exists; if not, says which do. */
static int artifact_exists(sqlite3 *db, const char *path, const char *table, long long id) {
  char *sql = sqlite3_mprintf("SELECT %s_id, label FROM %s ORDER BY 1", table, table);
  sqlite3_stmt *st;
  int found = 0;
  ld_buf known = {0};
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      char item[320];
      found |= sqlite3_column_int64(st, 0) == id;
      snprintf(item, sizeof item, "%s%lld (%s)", known.n ? ", " : "",
               (long long)sqlite3_column_int64(st, 0),
               (const char *)sqlite3_column_text(st, 1));
      ld_buf_put(&known, item, strlen(item));
    }
    sqlite3_finalize(st);
  }
  sqlite3_free(sql);
  if (!found)
    fprintf(stderr, "profdb: %s: no %s %lld; %ss: %s\n", path, table, id, table,
            known.n ? ld_buf_cstr(&known) : "none");
  ld_buf_free(&known);
  return found;
}

/* Warns about each truncated trace or snapshot the report covers (all, or
** only id when id > 0) and returns how many there are: a report of a cut
** input exits 3 as its load did (docs/reliability.md). */
static int truncated_inputs(sqlite3 *db, const char *path, const char *table, long long id) {
  char *sql = sqlite3_mprintf(
      "SELECT %s_id, label, truncated_at FROM %s"
      " WHERE status = 'truncated' AND (?1 <= 0 OR %s_id = ?1)"
      " ORDER BY 1",
      table, table, table);
  sqlite3_stmt *st;
  int n = 0;
  if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, id);
    for (; sqlite3_step(st) == SQLITE_ROW; n++)
      fprintf(stderr,
              "profdb: %s: warning: %s %lld (%s) ends early at byte %lld (decompressed): the"
              " report covers the events before the cut\n",
              path, table, (long long)sqlite3_column_int64(st, 0),
              (const char *)sqlite3_column_text(st, 1), (long long)sqlite3_column_int64(st, 2));
    sqlite3_finalize(st);
  }
  sqlite3_free(sql);
  return n;
}

int cli_report_run(rp_report *r, const rpo_values *v, rp_param *params, const char *db_path) {
  if ((v->set[RPO_TRACE] && !artifact_exists(r->db, db_path, "trace", v->i[RPO_TRACE])) ||
      (v->set[RPO_SNAPSHOT] &&
       !artifact_exists(r->db, db_path, "snapshot", v->i[RPO_SNAPSHOT])))
    return -1;
  r->time_scope = rpo_scope(v);
  r->params = params;
  r->nparams = rpo_bind(v, RPO_REPORT, params);
  return rp_run(r);
}

int cli_report(int argc, char **argv) {
  rp_cli o;
  const char **pos = calloc((size_t)argc + 1, sizeof *pos);
  int npos = 0, rc = PROFDB_EXIT_USAGE;
  rp_param params[RPO_MAX_PARAMS];
  sqlite3 *db = NULL;
  rp_report r = {0};
  if (rp_cli_init(&o, argc, RPO_REPORT) || !pos) goto done;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int common = rp_cli_option(&o, argc, argv, &i);
    if (common < 0) goto bad;
    if (common) continue;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      rc = PROFDB_EXIT_OK;
      goto done;
    } else if (!strcmp(a, "--rank") && i + 1 < argc) {
      if (cli_parse_rank("report", argv[++i], &o.rank)) goto bad;
      o.have_rank = 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "profdb: report: unknown option '%s'\n", a);
      goto bad;
    } else
      pos[npos++] = a;
  }
  if (o.list) {
    rc = rp_cli_queries(&o, "report") ? PROFDB_EXIT_USAGE : rp_cli_list(&rp_kind_report, &o);
    goto done;
  }
  if (npos == 0) {
    fprintf(stderr, "profdb: report: give a profdb database, or trace / snapshot files\n");
    goto bad;
  }
  if (rp_cli_queries(&o, "report")) goto done;
  const char *db_path = rp_cli_database(&o, pos, npos, 0, &rc);
  if (!db_path) goto done;
  rc = PROFDB_EXIT_USAGE;
  db = cli_open_db(db_path, 1);
  if (!db) goto done;
  if (cli_check_schema(db, db_path)) {
    rc = PROFDB_EXIT_DATA;
    goto done;
  }
  r.kind = &rp_kind_report;
  r.db = db;
  /* With a second core, a second connection runs half of the sections. */
  if (rp_cli_two_connections(&db_path, 1)) r.db2 = cli_open_db(db_path, 1);
  r.queries_dir = o.queries_dir;
  r.inputs = (char **)pos;
  r.ninputs = npos;
  r.db_path = db_path == pos[0] ? db_path : NULL; /* else a temporary database */
  rp_cli_progress(&o, 1);
  int failed = rp_cli_sections(&r, &o) || cli_report_run(&r, &o.opts, params, db_path);
  rp_cli_progress(&o, 0);
  if (failed) goto done;
  if (o.html && npos == 1 && ex_is_dataset(pos[0])) r.opens = dataset_opens(db, &r.findings);
  rc = rp_cli_output(&r, &o, 1);
  long long trace = o.opts.set[RPO_TRACE] ? o.opts.i[RPO_TRACE] : -1,
            snapshot = o.opts.set[RPO_SNAPSHOT] ? o.opts.i[RPO_SNAPSHOT] : -1;
  if (rc == PROFDB_EXIT_OK && (truncated_inputs(db, pos[0], "trace", trace) +
                                   truncated_inputs(db, pos[0], "snapshot", snapshot) >
                               0))
    rc = PROFDB_EXIT_TRUNCATED;
  goto done;
bad:
  usage(stderr);
  rc = PROFDB_EXIT_USAGE;
done:
  free_opens(r.opens, r.findings.nrows);
  rp_free(&r);
  if (r.db2) sqlite3_close(r.db2);
  if (db) sqlite3_close(db);
  rp_cli_free(&o);
  free(pos);
  return rc;
}
