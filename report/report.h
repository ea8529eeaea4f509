/*
** report.h — the canned SQL report (profdb report) and the diff (profdb
** diff): running the query files, and writing their results (internal).
**
**   report_sql.c   find and parse query files, bind parameters, run them
**   report_findings.c  the finding rules and their measures (report_finding)
**   report_format.c  column order, units, headers, short names (for people)
**   report_md.c    Markdown output
**   report_html.c  one self-contained HTML file
**   report_json.c  JSON output (docs/report-schema.md)
**   report_svg.c   SVG charts (files next to the Markdown, inline in HTML)
*/
#ifndef PROFDB_REPORT_H
#define PROFDB_REPORT_H

#include "buf.h"

#include <sqlite3.h>
#include <stdio.h>

/* One cell of a result. */
typedef struct rp_value {
  int type; /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_NULL */
  long long i;
  double d;
  char *s; /* owned, NUL-terminated */
} rp_value;

/* A column as declared in the query file's header. */
typedef struct rp_column {
  char *name;
  char *unit; /* 'ns', 'bytes', '%', 'count', ... or "" */
  char *doc;  /* description */
} rp_column;

/* One section: a query file and what it returned. */
typedef struct rp_section {
  char *id;                      /* file name without .sql */
  char *path;                    /* the query file */
  char *group;                   /* heading it appears under (from report.list) */
  char *title;                   /* -- Title: */
  char *question;                /* -- Question: */
  char *requires;                /* -- Requires: table names, space separated */
  char *empty;                   /* -- Empty: why it can be empty and what fills it */
  char *brief;                   /* -- Brief: the columns the Markdown table shows (the
                   ** others are in the HTML and JSON); NULL: all */
  char *chart;                   /* -- Chart: KIND key=value... (report_svg.c), or NULL */
  struct rp_section *chart_data; /* rows of the chart's data= query file */
  char *sql;                     /* the statement(s) after the header */
  rp_column *cols;               /* declared columns, in result order */
  int ncols;
  rp_value *cells; /* rows * ncols values */
  int nrows;
  int skipped; /* no data: `note` says why */
  char *note;  /* skip reason, or NULL */
} rp_section;

/* Named parameter values (:top, :include_warmup, ...). */
typedef struct rp_param {
  const char *name; /* without the ':' */
  int type;         /* SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_NULL */
  long long i;
  double d;
} rp_param;

/* What is being run: the report or the diff.  Paths are relative to the
** queries directory. */
typedef struct rp_kind {
  const char *title;       /* Markdown title: "profdb report" */
  const char *list;        /* the section list: "report.list" */
  const char *sections;    /* folder of the section files: "" or "diff/" */
  const char *lib;         /* folder of the prelude: "lib", or NULL */
  const char *summary;     /* the summary query: "findings.sql" */
  const char *summary_key; /* its JSON key and id: "findings" or "verdict" */
  const char *scope;       /* the scope query (rows of one note): "scope.sql" */
  int bullets;             /* 1: summary rows (topic, statement) as bullets;
                            ** 0: findings (observation, hypothesis, ...) */
  const char *rules;       /* folder of the finding rules ("findings"), or NULL */
  const char *measures;    /* folder of their measure modules ("lib/findings") */
} rp_kind;

extern const rp_kind rp_kind_report, rp_kind_diff, rp_kind_trend;

/* The traces a finding's slice is loaded again from, for the HTML report
** of a dataset (profdb report DIR, whose database holds its summaries, not
** every event): its "Open it" is `profdb export DIR --finding K`, which
** loads them; none: no command (a rule about missing data, or an error). */
typedef struct rp_open {
  char **paths; /* the traces, as their export recorded them */
  int npaths;
} rp_open;

typedef struct rp_report {
  const rp_kind *kind;
  sqlite3 *db;
  sqlite3 *db2; /* optional second connection to the same databases:
                        ** sections then run on both (two cores), each with
                        ** its own copy of the prelude's TEMP tables */
  const char *queries_dir;
  rp_param *params;
  int nparams;
  rp_section *sections;
  int nsections;
  rp_section findings; /* the summary query (findings or verdict), run last */
  int with_findings;   /* run and write it */
  rp_section gate;     /* profdb diff --fail-if: the checks (queries/diff/gate.sql) */
  int with_gate;       /* write the gate: PASS/FAIL first, and JSON "gate" */
  char **inputs;       /* what was reported on (paths) */
  int ninputs;
  const char *db_path;    /* the database reported on, as the user named it;
                       ** NULL when the inputs were loaded into a temporary
                       ** one (the HTML then names run.db in its commands) */
  rp_open *opens;         /* per finding, set by the CLI for a dataset (an
                          ** entry without paths: none), or NULL: the HTML
                          ** composes each command from db_path / inputs */
  char *scope_note;       /* one line on steps analysed / warm-up */
  const char *time_scope; /* report: "steps", "trace" or "hta" (--scope), stated in
                          ** every section; NULL for the diff */
} rp_report;

/* What a section covers: "snapshot" for memory-snapshot sections (their
** Requires: names a report_mem table), else r->time_scope; NULL for the
** diff. */
const char *rp_section_scope(const rp_report *r, const rp_section *s);

/* Where the query files are: the folder `option` (--queries) when given,
** else $PROFDB_QUERIES when set, else share/profdb/queries of the install
** tree the executable runs from (found from /proc/self/exe, so a copied or
** moved install works), else, for an executable in its build folder only,
** the source tree's queries/.  Returns the folder (malloc'd), or NULL with
** *looked (malloc'd, when looked is not NULL) listing the places tried,
** one per line. */
char *rp_find_queries(const char *option, char **looked);

/* The most bytes of a query file, a section list or a gate file. */
#define RP_MAX_TEXT_FILE ((size_t)8 << 20)

/* The text of a regular file of at most max bytes (NUL-terminated,
** malloc'd; its length in *len).  A FIFO, a device or a larger file is
** refused: prints "profdb: PATH: cannot read [WHAT]: why" and returns NULL
** (what: e.g. "the gate file", or NULL). */
char *rp_read_text(const char *path, size_t max, const char *what, size_t *len);

/* 1 when a pack's data= path stays inside the pack: relative, no '..'. */
int rp_pack_relative(const char *file);

/* Read the kind's section list and parse the section files it names
** (only those in `only` when only[0] exists).  Prints and returns -1 on
** error. */
int rp_load_sections(rp_report *r, const char *const *only, int nonly);

/* Restrict the SQL of a query pack on db to reading and TEMP tables
** (report_sandbox.c); rp_run() applies it to both connections. */
int rp_sandbox(sqlite3 *db);
/* The tables a statement reads, as SQLite's authorizer reports them while
** it is prepared (report_findings.c checks them against a file's Reads:). */
typedef struct rp_reads {
  char **names; /* distinct table names */
  int n;
} rp_reads;
/* Record into w the tables read by what db prepares from now on (w NULL:
** stop); the sandbox's rules still hold. */
void rp_sandbox_watch(sqlite3 *db, rp_reads *w);
void rp_reads_free(rp_reads *w);

/* Start the report's SQL deadline (PROFDB_QUERY_TIMEOUT) again at the next
** rp_sandbox(): a long-lived process (profdb mcp) gives each call its own. */
void rp_sandbox_reset_deadline(void);

/* Run these files of the kind's prelude folder (lib/), in this order, on
** r->db: a part of the prelude, for the tables of one definition another
** command reuses (cli/cli_diff_coll.c).  0, or -1 with why printed. */
int rp_run_lib_files(rp_report *r, const char *const *names, int n);
/* The pragmas a connection gets before a prelude runs (temporary tables in
** a file, bounded caches).  Changing temp_store drops the TEMP tables, so
** a caller that fills one before rp_run applies them first. */
void rp_lib_pragmas(sqlite3 *db);

/* Run the lib/ prelude, the sections and the summary (findings). */
int rp_run(rp_report *r);

/* Parse one query file (header + SQL).  Returns -1 with a message. */
int rp_parse_file(const char *path, const char *id, rp_section *s);

/* Run a section's SQL with the report's parameters; fills cells. */
int rp_run_section(rp_report *r, rp_section *s);

/* Execute every statement of a file (preludes) with parameters bound. */
int rp_exec_script(rp_report *r, const char *path);
/* Binds the report's parameters (:scope_hta, :include_warmup, ...) that st
** names; the others stay NULL. */
void rp_bind_params(rp_report *r, sqlite3_stmt *st);
/* Build report_finding on r->db: the measure modules and the rules of
** r->kind (report_findings.c); run before the findings section. */
int rp_build_findings(rp_report *r);
/* With PROFDB_TIMING set, how long one query file took (stderr). */
void rp_timing(const char *what, double since);
/* With PROFDB_TIMING set: count db's SQL steps (rp_timing_watch), print
** the sum over every watched connection (rp_timing_steps). */
void rp_timing_watch(sqlite3 *db);
void rp_timing_steps(void);

void rp_free(rp_report *r);
void rp_section_free(rp_section *s);

/* Writers.  Output is deterministic: the same database and options give
** byte-identical files. */
void rp_write_markdown(const rp_report *r, FILE *out, const char *const *charts, int ncharts);
void rp_write_json(const rp_report *r, FILE *out);

/* CSV (report_csv.c, RFC 4180, raw values as in the JSON): one section
** into b, or every section of r into DIR/ID.csv (the summary as
** findings.csv / verdict.csv, a diff's gate as gate.csv; DIR is created
** when missing).  Returns the number of files, or -1 with why printed. */
void rp_section_csv(const rp_section *s, ld_buf *b);
int rp_write_csv_dir(const rp_report *r, const char *dir);
/* One CSV text field, shown safely (report_csv.c, Requirement 5); also
** profdb query --csv's. */
void rp_csv_field(ld_buf *b, const char *s, size_t n);

/* Charts next to md_path (report.md -> report.<chart>.svg); returns the
** number written and their file names (relative to the .md) in names. */
int rp_write_charts(rp_report *r, const char *md_path, char names[][256], int max);

/* The HTML report: findings, contents, sections with inline charts. */
void rp_write_html(const rp_report *r, FILE *out);

/* Part `part` (0, 1, ...) of a section's chart as SVG into b (inline: no
** background, colours from the page's CSS); part_name gets the part's
** name ("" for a chart of one part).  Returns 1 when drawn, 0 when the
** section has no chart, no data or no such part. */
int rp_chart_svg_part(const rp_section *s, int part, ld_buf *b, int inline_svg, char *part_name,
                      size_t part_n);

/* A chart spec's value for key ("x=label,step" -> "label,step"), copied
** into out; 0 when absent (report_section.c). */
int rp_chart_key(const rp_section *s, const char *key, char *out, size_t n);

/* ---- presentation (report_format.c) ------------------------------------ */

/* How one column is shown: unit chosen from the column's values. */
typedef struct rp_colview {
  int col;     /* index in the section's columns */
  int numeric; /* right-aligned number */
  int delta;   /* signed: '+' on positive values */
  int decimals;
  double scale;     /* value / scale is shown */
  const char *unit; /* "ms", "MiB", "%", ... or "" */
  char header[112]; /* "wall (ms)" */
} rp_colview;

/* Every column, the naming one first.  Returns how many. */
int rp_column_views(const rp_section *s, rp_colview *views, int max);
/* A cell as text by its column's view (no unit: the header names it). */
void rp_format_cell(char *out, size_t n, const rp_colview *v, const rp_value *x);
/* "Not available", one entry per reason: rp_reason_group(r, i, group)
** fills group with the skipped sections sharing section i's reason when i
** is the first of them, and returns their number (0 otherwise). */
const char *rp_skip_reason(const rp_section *s);
int rp_reason_group(const rp_report *r, int i, const rp_section **group);

/* A value of the gate (gate.sql's before / after) in its row's unit
** (ns, bytes, %, count) with the unit: "214.29 ms", "19.00 MiB", "82.10%";
** "" for NULL.  The gate's rows mix units, so its column has none. */
void rp_format_gate_value(char *out, size_t n, const char *unit, const rp_value *x);
/* A gate row's verdict (gate.sql's passed column), and as a word:
** "passed", "FAILED" or "not evaluated".  Code branches on the verdict,
** never on its word. */
typedef enum rp_verdict { RP_NOT_EVALUATED = -1, RP_FAILED = 0, RP_PASSED = 1 } rp_verdict;
rp_verdict rp_gate_outcome(const rp_section *gate, int row);
const char *rp_gate_verdict(const rp_section *gate, int row);

/* Whether row is a difference row (its first cell reads "change" or
** "delta"): its numbers are signed. */
int rp_row_is_delta(const rp_section *s, int row);
/* 'symbol' or 'source': a column that names rows. */
int rp_is_name_unit(const char *unit);
/* Short names of a column's rows, at most max characters each, told apart
** where the full names differ.  Free with rp_free_names(names, nrows). */
char **rp_short_names(const rp_section *s, int col, size_t max);
void rp_free_names(char **names, int n);
/* The section that text cites at p ("mem_peak_sources", "sync_sum.pct_window",
** "(communication)"; a plain word like "communication" is no citation), or NULL. */
const rp_section *rp_cited_section(const rp_report *r, const char *text, const char *p);

/* One page at any rank count (issue 23): a section whose rows cover more
** than RP_RANKS_MAX ranks is summarized across ranks in the Markdown and
** folded in the HTML; rp_rank_column: its `rank` column (else `label`,
** else `trace`, else `process_group`: coll_group's groups, which a job of
** 1024 ranks has by the hundred), or -1; rp_rank_count: the distinct values in it (rows
** come ordered by rank), 0 without one. */
#define RP_RANKS_MAX 16
int rp_rank_column(const rp_section *s);
int rp_rank_count(const rp_section *s, int rank_col);

/* The cross-rank summary of such a section (report_ranks.c), which the
** Markdown and the HTML both write: per figure (a numeric column; at most
** RP_RANK_FIGURES, the Brief ones when the query lists them) its min,
** median and max and the rows holding them; then the outlying rows (a
** figure further from its median than RP_OUTLIER_MADS median absolute
** deviations and RP_OUTLIER_SHARE of the median), the RP_OUTLIERS_MAX most
** outlying kept.  With a `stream` column: the devices' 'all' rows only. */
#define RP_RANK_FIGURES 12
#define RP_OUTLIERS_MAX 8
#define RP_OUTLIER_MADS 3.0
#define RP_OUTLIER_SHARE 0.1
typedef struct rp_rank_figure {
  const rp_colview *view; /* the column (into rp_rank_summary.views) */
  int lo, mid, hi;        /* rows of the min, the value nearest the median, the max */
  double median;
} rp_rank_figure;
typedef struct rp_rank_summary {
  int rank_col, ranks; /* rp_rank_column, rp_rank_count */
  int is_rank;         /* the column is `rank` (else a trace label) */
  const char *who;     /* what a row's subject is: "rank", "trace", "process group" */
  int has_all;         /* only the devices' 'all' rows were summarized */
  rp_colview *views;   /* every column's view */
  rp_rank_figure fig[RP_RANK_FIGURES];
  int nfig;
  int *outliers; /* outlying rows: the first `kept` in row order, then the
                  ** rest, most outlying first */
  int noutliers, kept;
  int tied; /* rows equally outlying across the cut at RP_OUTLIERS_MAX: not
            ** kept, none picked by row order (0 when the cut falls between
            ** two scores) */
} rp_rank_summary;
void rp_rank_summary_make(const rp_section *s, rp_rank_summary *m);
void rp_rank_summary_free(rp_rank_summary *m);
/* The kept outlying rows as a section sharing s's values (free only its
** cells array). */
rp_section rp_rank_outlier_rows(const rp_section *s, const rp_rank_summary *m);
/* A row's rank (or trace label) as text, in buf. */
const char *rp_rank_text(char *buf, size_t n, const rp_section *s, int row, int rank_col);
/* The line above the outlying rows, in buf: the rule that makes a row
** outlying and how many are, or "none." (the Markdown's and the HTML's). */
const char *rp_rank_outliers_text(char *buf, size_t n, const rp_rank_summary *m);

/* What a job step is, said once above the findings (docs/definitions.md#jobs). */
#define RP_JOB_STEP_NOTE                                                                      \
  "Savings are per job step: job step k is ProfilerStep k on every rank of the job, and it "  \
  "lasts as long as its slowest rank's step. Each saving is the mean over the ranks and job " \
  "steps of what a rank's step would lose, and its percentage is its share of the mean job "  \
  "step, so a job with more ranks that behave alike gives the same findings."

/* Cell accessors (report_section.c).  rp_text_of: the text in column
** `col` of a row, or "". */
const char *rp_text_of(const rp_section *s, int row, const char *col);
const rp_value *rp_cell(const rp_section *s, int row, int col);
int rp_col_index(const rp_section *s, const char *name);

/* Write bytes to path atomically (temporary file, fsync, rename;
** report_section.c, through the loader's one publish: loader/publish.h). */
int rp_write_file(const char *path, const char *data, size_t n);

#endif
