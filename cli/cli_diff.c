/*
** cli_diff.c — `profdb diff`: compare two runs.
**
**   profdb diff before.db after.db                   Markdown to stdout
**   profdb diff before.db after.db --md d.md --json d.json
**   profdb diff before.json.gz after.json.gz         load each first
**   profdb diff before.db after.db --fail-if 'step_time > +5%'   gate (cli_gate.c)
**   profdb diff run1.db run2.db run3.db --md trend.md  a series (cli_trend.c)
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
    "       profdb diff RUN1 RUN2 RUN3... [options]     a series in order (trend)\n"
    "\n"
    "Compare two runs: BEFORE and AFTER are profdb databases, Parquet datasets of\n"
    "profdb export, or a trace / memory snapshot file (or a folder of them) each,\n"
    "loaded into a temporary database first.  The verdict comes first, then one section per "
    "file of\n"
    "queries/diff/diff.list.  Markdown goes to stdout unless --md, --json or --html\n"
    "is given.  With more than two runs: one row per run (step time, GPU\n"
    "utilization, peak memory), each run gated against the one before it, and\n"
    "with --md an SVG line chart (FILE.trend.svg); the first run failing a check\n"
    "is flagged.\n"
    "\n"
    "options:\n"
    "  --md FILE          write Markdown to FILE\n"
    "  --json FILE        write JSON to FILE ('-' for stdout)\n"
    "  --html FILE        write one self-contained HTML file\n"
    "  --csv DIR          write one CSV file per section into DIR (SECTION.csv,\n"
    "                     verdict.csv, gate.csv; header row, raw ns and bytes, RFC 4180);\n"
    "                     '-': the one --section's CSV to stdout\n"
    "  --list             print the section ids with their titles, and exit\n"

    "  --section ID       only this section (repeatable): an ID of queries/diff/diff.list,\n"
    "                     or 'verdict'\n";
/* then the diff's options (report_params.c), then these */
static const char diff_usage_end[] =
    "  --run NAME         a dataset's run (--run BEFORE_RUN --run AFTER_RUN: one\n"
    "                     each; once: the same name on both sides)\n"
    "  --queries DIR      query files to use (default: $PROFDB_QUERIES, else the\n"
    "                     installed share/profdb/queries next to this profdb)\n"
    "  --progress         show the progress line even when stderr is not a terminal\n"
    "                     (else a plain line every 10 s there, for a log:\n"
    "                     $PROFDB_PROGRESS_SECONDS)\n"
    "  --no-progress      never show progress\n"
    "  -q, --quiet        no progress (warnings and errors only)\n"
    "\n"
    "gate (exit 10 when a check fails; README, \"Gating a pull request\"):\n"
    "  --fail-if CHECK    fail when CHECK holds (repeatable): METRIC OP LIMIT [significant]\n"
    "                       'step_time > +5%'        mean step time grew by more than 5%\n"
    "                       'gpu_util < -3pt'        utilization fell by more than 3 points\n"
    "                       'peak_allocated > +10%'  'ooms > 0'  'step_time_p95 > +20ms'\n"
    "                       'kernel[NAME] > +10% significant' (step_time* only: beyond noise)\n"
    "                       'busbw[all_reduce] < -10%'  all-reduce bus bandwidth fell by >10%\n"
    "                     metrics: step_time step_time_median step_time_p95 gpu_util\n"
    "                     category[NAME] kernel[NAME] memcpy_bytes comm_exposed\n"
    "                     peak_allocated peak_reserved ooms busbw[KIND] (GB/s)\n"
    "  --gate FILE        the checks of FILE, one a line ('#' comments)\n"
    "  --allow-missing    let a category[NAME], kernel[NAME] or busbw[KIND] check\n"
    "                     whose NAME is in neither run pass unevaluated (default:\n"
    "                     exit 2, naming the closest names)\n"
    "a failing gate prints one line on stderr: profdb: diff: gate FAIL: ...\n";

static void usage(FILE *f) {
  fputs(diff_usage, f);
  rpo_write_help(f, RPO_DIFF);
  fputs(diff_usage_end, f);
}

int cli_diff_run(rp_report *r, cli_gate *gate) {
  if (cli_diff_coll(r) || rp_run(r)) return -1;
  if (gate->n && (cli_gate_run(gate, r) || cli_gate_find_missing(gate, r) < 0)) return -1;
  return cli_gate_report_missing(gate, 1) ? -1 : 0; /* a check that names nothing: exit 2 */
}

/* The diff of two runs (pos[0], pos[1]) with o's options and gate: what
** `profdb diff BEFORE AFTER` writes; an exit code. */
static int diff_two(rp_cli *o, const char **pos, cli_gate *gate, rp_param *params,
                    int nparams) {
  int rc;
  rp_report r = {0};
  const char *dbs[2];
  if (rp_cli_database_pair(o, pos, dbs, &rc)) return rc;
  const char *before = dbs[0], *after = dbs[1];
  sqlite3 *db = cli_open_pair(before, after, &rc);
  if (!db) return rc;
  rc = PROFDB_EXIT_USAGE;
  r.kind = &rp_kind_diff;
  r.db = db;
  /* With a second core, a second connection runs half of the sections. */
  const char *both[2] = {before, after};
  if (rp_cli_two_connections(both, 2) && (r.db2 = cli_open_db(after, 1)) &&
      cli_attach_base(r.db2, before)) {
    sqlite3_close(r.db2);
    r.db2 = NULL;
  }
  r.queries_dir = o->queries_dir;
  r.params = params;
  r.nparams = nparams;
  r.inputs = (char **)pos;
  r.ninputs = 2;
  rp_cli_progress(o, 1);
  int failed = rp_cli_sections(&r, o) || cli_diff_run(&r, gate);
  rp_cli_progress(o, 0);
  if (!failed) {
    rc = rp_cli_output(&r, o, 0);
    if (rc == PROFDB_EXIT_OK && gate->n && !cli_gate_passed(&r)) {
      cli_gate_fail_line(&r.gate, NULL); /* the job log has it, whatever the outputs */
      rc = PROFDB_EXIT_GATE_FAILED;
    }
  }
  rp_free(&r);
  if (r.db2) sqlite3_close(r.db2);
  sqlite3_close(db);
  return rc;
}

int cli_diff(int argc, char **argv) {
  rp_cli o;
  const char **pos = calloc((size_t)argc, sizeof *pos);
  int npos = 0, rc = PROFDB_EXIT_USAGE;
  cli_gate gate = {0};
  rp_param params[RPO_MAX_PARAMS];
  if (rp_cli_init(&o, argc, RPO_DIFF) || !pos) goto done;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int common = rp_cli_option(&o, argc, argv, &i);
    if (common < 0) goto bad;
    if (common) continue;
    if (!strcmp(a, "--fail-if") && i + 1 < argc) {
      if (cli_gate_add(&gate, argv[++i])) goto done;
    } else if (!strcmp(a, "--allow-missing")) {
      gate.allow_missing = 1;
    } else if (!strcmp(a, "--gate") && i + 1 < argc) {
      if ((rc = cli_gate_read_file(&gate, argv[++i])) != PROFDB_EXIT_OK) goto done;
      rc = PROFDB_EXIT_USAGE;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      rc = PROFDB_EXIT_OK;
      goto done;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "profdb: diff: unknown option '%s'\n", a);
      goto bad;
    } else
      pos[npos++] = a;
  }
  if (o.list) {
    rc = rp_cli_queries(&o, "diff") ? PROFDB_EXIT_USAGE : rp_cli_list(&rp_kind_diff, &o);
    goto done;
  }
  if (npos < 2) {
    fprintf(stderr, "profdb: diff: give two runs, BEFORE and AFTER (got %d)\n", npos);
    goto bad;
  }
  if (rp_cli_queries(&o, "diff")) goto done;
  int nparams = rpo_bind(&o.opts, RPO_DIFF, params);
  if (npos > 2)
    rc = cli_trend(&o, pos, npos, &gate, o.queries_dir, params, nparams);
  else
    rc = diff_two(&o, pos, &gate, params, nparams);
  goto done;
bad:
  usage(stderr);
  rc = PROFDB_EXIT_USAGE;
done:
  cli_gate_free(&gate);
  rp_cli_free(&o);
  free(pos);
  return rc;
}
