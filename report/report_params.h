/*
** report_params.h — the options of the report and the diff (--top,
** --scope, ...), defined once: `profdb report` / `profdb diff` parse them
** and print their --help lines from this table, the MCP server generates
** its tools' JSON input schema from it and checks the arguments with it,
** and the Python package builds its command lines and checks its keyword
** arguments from it (rpo_table_json, through the package's C library).
** Each option binds one or more SQL parameters of the queries
** (rpo_bind): its name there is the keyword's, an option's effect on the
** queries lives in rpo_bind alone.
*/
#ifndef PROFDB_REPORT_PARAMS_H
#define PROFDB_REPORT_PARAMS_H

#include "report.h"

#include <stdio.h>

typedef enum rpo_type {
  RPO_INT,    /* a whole number in [min, max] */
  RPO_NUMBER, /* a number > min (min_exclusive) or >= min */
  RPO_CHOICE, /* one of choices; the first is the default */
  RPO_FLAG    /* on or off (default off) */
} rpo_type;

/* Which command takes an option. */
#define RPO_REPORT 1u
#define RPO_DIFF 2u

typedef enum rpo_id {
  RPO_TOP,
  RPO_INCLUDE_WARMUP,
  RPO_SCOPE,
  RPO_GPU_GB,
  RPO_TRACE,
  RPO_SNAPSHOT,
  RPO_LINE_TOLERANCE,
  RPO_LINK_GBPS,
  RPO_COUNT
} rpo_id;

typedef struct rpo_def {
  const char *name;    /* Python keyword and MCP argument: "top" */
  const char *flag;    /* CLI option: "--top" */
  const char *metavar; /* its value in --help: "N" ("" for a flag) */
  rpo_type type;
  double min, max;            /* RPO_INT / RPO_NUMBER; max 0: none */
  int min_exclusive;          /* RPO_NUMBER: > min rather than >= min */
  double mcp_max;             /* the MCP server's bound (its answer's size); 0: max */
  const char *const *choices; /* RPO_CHOICE, NULL-terminated */
  long long dflt;             /* RPO_INT's default; -1: none (NULL in SQL) */
  const char *need;           /* what a bad value is told: "a trace_id >= 1" */
  const char *help;           /* --help text, '\n' between its lines */
  const char *help_diff;      /* the diff's --help text, when it differs */
  unsigned commands;          /* RPO_REPORT | RPO_DIFF */
} rpo_def;

extern const rpo_def rpo_table[RPO_COUNT];

/* The options' values: set[] says which were given. */
typedef struct rpo_values {
  long long i[RPO_COUNT]; /* RPO_INT, RPO_FLAG (0/1), RPO_CHOICE (its index) */
  double d[RPO_COUNT];    /* RPO_NUMBER */
  int set[RPO_COUNT];
} rpo_values;

/* Every option at its default. */
void rpo_defaults(rpo_values *v);

/* The option whose CLI flag is `flag` and that `command` takes, or -1. */
int rpo_find_flag(const char *flag, unsigned command);
/* The option named `name` (keyword / MCP argument), or -1. */
int rpo_find_name(const char *name, unsigned command);

/* Parse text as option id's value into v.  Returns 0, or -1 with
** "needs WHAT, got 'TEXT'" (what to print after the flag or name) in why. */
int rpo_parse(rpo_values *v, int id, const char *text, char *why, size_t n);

/* The SQL parameters of the queries (:top, :include_warmup, :scope_trace,
** ...), for rp_report.params: out holds at least RPO_MAX_PARAMS.  Returns
** their number. */
#define RPO_MAX_PARAMS 10
int rpo_bind(const rpo_values *v, unsigned command, rp_param *out);

/* The report's time scope for its header: "steps", "trace" or "hta". */
const char *rpo_scope(const rpo_values *v);

/* The --help lines of command's options, as `profdb report --help` has
** them ("  --top N            rows of ..."). */
void rpo_write_help(FILE *f, unsigned command);

/* The JSON Schema properties of command's options ("top": {"type":
** "integer", "minimum": 1, ...}, ...: no braces around them), for the MCP
** tools' inputSchema, into b. */
void rpo_put_schema(ld_buf *b, unsigned command);

/* The whole table as a JSON array (name, flag, type, min, max, choices,
** default, help, commands), malloc'd: what the Python package reads. */
char *rpo_table_json(void);

#endif
