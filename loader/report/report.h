/*
** report.h — the canned SQL report (profdb report) and the diff (profdb
** diff): running the query files, and writing their results (internal).
**
**   report_sql.c   find and parse query files, bind parameters, run them
**   report_md.c    Markdown output
**   report_json.c  JSON output (docs/report-schema.md)
**   report_svg.c   SVG charts next to the Markdown
*/
#ifndef PROFDB_REPORT_H
#define PROFDB_REPORT_H

#include "buf.h"

#include <sqlite3.h>
#include <stdio.h>

/* One cell of a result. */
typedef struct rp_value {
  int type;        /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_NULL */
  long long i;
  double d;
  char *s;         /* owned, NUL-terminated */
} rp_value;

/* A column as declared in the query file's header. */
typedef struct rp_column {
  char *name;
  char *unit;      /* 'ns', 'bytes', '%', 'count', ... or "" */
  char *doc;       /* description */
} rp_column;

/* One section: a query file and what it returned. */
typedef struct rp_section {
  char *id;        /* file name without .sql */
  char *path;      /* the query file */
  char *group;     /* heading it appears under (from report.list) */
  char *title;     /* -- Title: */
  char *question;  /* -- Question: */
  char *requires;  /* -- Requires: table names, space separated */
  char *empty;     /* -- Empty: why it can be empty and what fills it */
  char *sql;       /* the statement(s) after the header */
  rp_column *cols; /* declared columns, in result order */
  int ncols;
  rp_value *cells; /* rows * ncols values */
  int nrows;
  int skipped;     /* no data: `note` says why */
  char *note;      /* skip reason, or NULL */
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
  const char *title;        /* Markdown title: "profdb report" */
  const char *list;         /* the section list: "report.list" */
  const char *sections;     /* folder of the section files: "" or "diff/" */
  const char *lib;          /* folder of the prelude: "lib", or NULL */
  const char *summary;      /* the summary query: "findings.sql" */
  const char *summary_key;  /* its JSON key and id: "findings" or "verdict" */
  int bullets;              /* 1: summary rows (topic, statement) as bullets;
                            ** 0: findings (observation, hypothesis, ...) */
} rp_kind;

extern const rp_kind rp_kind_report, rp_kind_diff, rp_kind_trend;

typedef struct rp_report {
  const rp_kind *kind;
  sqlite3 *db;
  sqlite3 *db2;         /* optional second connection to the same databases:
                        ** sections then run on both (two cores), each with
                        ** its own copy of the prelude's TEMP tables */
  const char *queries_dir;
  rp_param *params;
  int nparams;
  rp_section *sections;
  int nsections;
  rp_section findings;  /* the summary query (findings or verdict), run last */
  int with_findings;    /* run and write it */
  rp_section gate;      /* profdb diff --fail-if: the checks (queries/diff/gate.sql) */
  int with_gate;        /* write the gate: PASS/FAIL first, and JSON "gate" */
  char **inputs;        /* what was reported on (paths) */
  int ninputs;
  char *scope_note;     /* one line on steps analysed / warm-up */
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

/* Read the kind's section list and parse the section files it names
** (only those in `only` when only[0] exists).  Prints and returns -1 on
** error. */
int rp_load_sections(rp_report *r, const char *const *only, int nonly);

/* Restrict the SQL of a query pack on db to reading and TEMP tables
** (report_sandbox.c); rp_run() applies it to both connections. */
int rp_sandbox(sqlite3 *db);

/* Run the lib/ prelude, the sections and the summary (findings). */
int rp_run(rp_report *r);

/* Parse one query file (header + SQL).  Returns -1 with a message. */
int rp_parse_file(const char *path, const char *id, rp_section *s);

/* Run a section's SQL with the report's parameters; fills cells. */
int rp_run_section(rp_report *r, rp_section *s);

/* Execute every statement of a file (preludes) with parameters bound. */
int rp_exec_script(rp_report *r, const char *path);

void rp_free(rp_report *r);
void rp_section_free(rp_section *s);

/* Writers.  Output is deterministic: the same database and options give
** byte-identical files. */
void rp_write_markdown(const rp_report *r, FILE *out, const char *const *charts, int ncharts);
void rp_write_json(const rp_report *r, FILE *out);

/* Charts next to md_path (report.md -> report.<chart>.svg); returns the
** number written and their file names (relative to the .md) in names. */
int rp_write_charts(rp_report *r, const char *md_path, char names[][256], int max);

/* Cell accessors. */
const rp_value *rp_cell(const rp_section *s, int row, int col);
int rp_col_index(const rp_section *s, const char *name);

/* Write bytes to path atomically (temporary file + rename). */
int rp_write_file(const char *path, const char *data, size_t n);

#endif
