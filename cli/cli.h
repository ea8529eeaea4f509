/*
** cli.h — the profdb command-line tool's subcommands (internal).
*/
#ifndef PROFDB_CLI_H
#define PROFDB_CLI_H

#include "report.h"
#include "report_params.h"

#include <sqlite3.h>
#include <stdio.h>

/* Replace stderr by a stream that shows control characters as \xHH, so
** nothing quoted from a trace or a file name can command the terminal
** (cli_term.c).  Called once, first thing in main(). */
void cli_safe_stderr(void);

/* profdb's commands (cli_commands.c), NULL-name terminated. */
typedef struct cli_command {
  const char *name;                  /* "report" */
  int (*run)(int argc, char **argv); /* argv[0] is the name; a profdb_exit code */
  const char *args;                  /* "DB|INPUT..." */
  const char *help;                  /* one line ('\n' to wrap) for profdb --help */
} cli_command;
extern const cli_command *cli_commands;
/* profdb --help, from the table. */
void cli_usage(FILE *f);
/* Run the command argv[0] (or --help, --version); its exit code. */
int cli_main(int argc, char **argv);

/* Each returns a profdb_exit code. */
int cli_load(int argc, char **argv);
int cli_query(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_diff(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_export_chrome(int argc, char **argv);
int cli_export_memviz(int argc, char **argv);
/* profdb mcp: the Model Context Protocol server (mcp_server.c). */
int cli_mcp(int argc, char **argv);

/* --rank N of profdb load, export and report (cli_load.c): *rank, 0; or
** -1 with "profdb: COMMAND: --rank S: not a rank" printed. */
int cli_parse_rank(const char *command, const char *s, long long *rank);

/* Open a database read-only with the profdb SQL functions registered.
** Prints "profdb: PATH: why" and returns NULL on failure. */
sqlite3 *cli_open_db(const char *path, int readonly);

/* 0 when db is a profdb database of this profdb's schema version, else
** prints why not (with what to do) and returns -1. */
int cli_check_schema(sqlite3 *db, const char *path);

/* Output formats of query results. */
typedef enum cli_format { FMT_TABLE, FMT_CSV, FMT_JSON } cli_format;

/* Run every statement of sql, printing rows in fmt.  Returns 0 or -1. */
int cli_print_query(sqlite3 *db, const char *sql, cli_format fmt, FILE *out);

/* ---- what `profdb report` and `profdb diff` share (cli_runner.c) ------ */

typedef struct rp_cli {
  const char *md, *json, *html, *queries; /* --md, --json, --html, --queries */
  const char *csv;                        /* --csv DIR: one SECTION.csv per section */
  int list;                               /* --list: print the section ids, run nothing */
  char *queries_dir;                      /* the query files found (rp_cli_queries) */
  const char **only;                      /* --section IDs */
  int nonly;
  unsigned command;   /* RPO_REPORT or RPO_DIFF: which options it takes */
  rpo_values opts;    /* --top, --scope, ... (report_params.h) */
  const char *run[2]; /* --run NAME (a diff: once for both sides, or
                         ** BEFORE's then AFTER's): a dataset's run */
  int nrun;
  int have_rank;         /* report --rank N: the rank of the one input */
  long long rank;        /* (profdb_load_options.rank) */
  int quiet;             /* -q, --quiet: no progress (warnings and errors only) */
  int progress;          /* --progress 1, --no-progress 0, else -1:
                                   ** a load's progress when stderr is a
                                   ** terminal */
  char tmpdir[16][4096]; /* temporary databases made from inputs */
  char tmpdb[16][4200];
  int ntmp;
} rp_cli;

int rp_cli_init(rp_cli *o, int argc, unsigned command);
/* 1 when argv[*i] is a common option or one of the command's report
** options (consumed, *i advanced), 0 when not, -1 when its value is
** invalid (said). */
int rp_cli_option(rp_cli *o, int argc, char **argv, int *i);
/* The database to read: inputs[0] when it is one SQLite file, else a
** temporary database the inputs were loaded into (a dataset: its
** summaries, of the run --run names, which is run NAME of trace inputs).
** side: 0, or a diff's AFTER 1.  NULL with *rc set. */
const char *rp_cli_database(rp_cli *o, const char *const *inputs, int n, int side, int *rc);
/* The two databases of profdb diff BEFORE AFTER (pos[0], pos[1]), each as
** rp_cli_database makes it; two datasets are merged at the same time, the
** before side's on a second thread (a merge keeps one core busy).  0, or
** -1 with *rc set and why printed. */
int rp_cli_database_pair(rp_cli *o, const char *const *pos, const char *db[2], int *rc);
/* Find the query files (rp_find_queries) into o->queries_dir.  Prints
** where it looked and returns -1 when they are nowhere. */
int rp_cli_queries(rp_cli *o, const char *command);
/* Select the sections (--section; the summary by its id) and parse them. */
int rp_cli_sections(rp_report *r, rp_cli *o);
/* Write --md (with SVG charts when with_charts) and --json, or Markdown to
** stdout.  Returns an exit code. */
int rp_cli_output(rp_report *r, rp_cli *o, int with_charts);
/* --list: the kind's section ids (the summary's first) with their titles,
** one a line, to stdout.  Returns an exit code. */
int rp_cli_list(const rp_kind *kind, rp_cli *o);
/* The report of r->db (at db_path; its kind, sections and inputs set)
** with options v, as `profdb report` runs it: a --trace / --snapshot that
** is not there is said (-1); params (RPO_MAX_PARAMS) get the queries'
** parameters; then rp_run.  The MCP's report tools run it too
** (cli_report.c). */
int cli_report_run(rp_report *r, const rpo_values *v, rp_param *params, const char *db_path);
/* rp_run of the diff r (its sections chosen), then the checks of gate:
** 0, or -1 with why printed (cli_diff.c; the MCP's diff tool too). */
struct cli_gate;
int cli_diff_run(rp_report *r, struct cli_gate *gate);
/* The progress of the report's or diff's sections on stderr (on 1) from
** now on, as --progress, --no-progress, -q and stderr ask
** (progress_mode); on 0: stop it. */
void rp_cli_progress(rp_cli *o, int on);
/* Before rp_run of a diff: each side's collective calls (the report's
** report_coll_call) into TEMP diff_coll_call of r->db and r->db2, for
** queries/diff/lib/50_coll.sql; 0, or -1 with why printed
** (cli_diff_coll.c). */
int cli_diff_coll(rp_report *r);
/* Remove the temporary databases. */
void rp_cli_free(rp_cli *o);
/* Whether to run the sections on two connections (rp_report.db2): only
** when PROFDB_CONNECTIONS=2 asks for it, on two cores or more and free
** memory above 4x the databases' size.  Each connection builds its own
** copy of the library's TEMP tables, which cost more than the sections
** since the attribution is stored by the load (docs/performance.md): one
** connection is about as fast and holds half the memory. */
int rp_cli_two_connections(const char *const *db_paths, int n);

/* cli_db.c: ATTACH the older database as base, as profdb diff reads it.
** Prints why and returns -1 on failure. */
int cli_attach_base(sqlite3 *db, const char *path);
/* The after database with the before one attached as base, both checked to
** be profdb databases of this schema version; NULL with *rc set (and why
** printed) when not. */
sqlite3 *cli_open_pair(const char *before, const char *after, int *rc);
/* The query files' folder (rp_find_queries: given, else the default
** places; malloc'd), or NULL with "profdb: WHO: cannot find the query
** files; looked in: ..." printed. */
char *cli_find_queries(const char *given, const char *who);

/* profdb diff with more than two runs (cli_trend.c): each run diffed with
** the one before; the per-run table, verdict and chart.  An exit code. */
struct cli_gate;
int cli_trend(rp_cli *o, const char **runs, int nruns, struct cli_gate *gate, const char *qdir,
              rp_param *params, int nparams);

/* ---- the regression gate of `profdb diff` (cli_gate.c) ------------- */

/* One check: METRIC OP LIMIT [significant], parsed. */
typedef struct cli_gate_rule {
  char *text;         /* as written */
  const char *metric; /* step_time, gpu_util, category, kernel, ... */
  char *arg;          /* category or kernel name, or NULL */
  const char *op;     /* ">", ">=", "<", "<=" */
  const char *mode;   /* "relative", "change" or "value" (gate_rule.mode) */
  double limit;       /* in the metric's unit (%, points, ns, bytes, count) */
  const char *unit;   /* the metric's unit */
  int significant;    /* fail only beyond the step-to-step spread */
  char *where;        /* where it was given: "--fail-if" or "FILE:LINE" */
  int missing;        /* pairs of runs in which its category/kernel NAME is in neither run */
  char *suggest;      /* the closest names of that kind ("'a', 'b' or 'c'"), or NULL */
} cli_gate_rule;

typedef struct cli_gate {
  cli_gate_rule *rules;
  int n, cap;
  int allow_missing; /* --allow-missing: a NAME in neither run leaves its check unevaluated */
} cli_gate;

/* Add a --fail-if check; prints "profdb: diff: --fail-if 'TEXT': why" and
** returns -1 when malformed. */
int cli_gate_add(cli_gate *g, const char *text);
/* Add the checks of a rules file (one a line, '#' comments); returns an
** exit code (1 with "profdb: FILE:LINE: why" for a malformed line). */
int cli_gate_read_file(cli_gate *g, const char *path);
/* After rp_run: judge the checks with queries/diff/gate.sql into r->gate. */
int cli_gate_run(const cli_gate *g, rp_report *r);
/* 1 when no check failed (checks without data do not fail). */
int cli_gate_passed(const rp_report *r);
/* After cli_gate_run: count, per check, the pairs in which its
** category[NAME] or kernel[NAME] names nothing in either run
** (queries/diff/gate_missing.sql), with the closest names there are.
** Returns the number of such checks in this pair, or -1 on error. */
int cli_gate_find_missing(cli_gate *g, rp_report *r);
/* Without --allow-missing: print "profdb: diff: WHERE 'CHECK': no kernel
** named 'X' in either run: did you mean ..." for each check missing in
** all `pairs` pairs and return how many were printed (the caller exits 2). */
int cli_gate_report_missing(const cli_gate *g, int pairs);
/* A failing gate's one line on stderr (the job log), whatever the outputs:
** "profdb: diff: gate FAIL: `CHECK` (measured X); ..." (prefix: the
** trend's run). */
void cli_gate_fail_line(const rp_section *gate, const char *prefix);
void cli_gate_free(cli_gate *g);

#endif
