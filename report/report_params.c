/*
** report_params.c — the report's and the diff's options, defined once
** (report_params.h says who reads the table).  Adding an option here adds
** it to `profdb report`/`profdb diff` and their --help, to the MCP tools'
** schema and to the Python keywords (tests/python/inner.py checks that the
** three agree); what it does to the queries goes into rpo_bind.
*/
#include "report_params.h"

#include <stdlib.h>
#include <string.h>

static const char *const scopes[] = {"steps", "trace", "hta", NULL};

const rpo_def rpo_table[RPO_COUNT] = {
    [RPO_TOP] = {.name = "top",
                 .flag = "--top",
                 .metavar = "N",
                 .type = RPO_INT,
                 .min = 1,
                 .mcp_max = 10000,
                 .dflt = 15,
                 .need = "a whole number of rows >= 1",
                 .help = "rows of the top-N tables (default 15)",
                 .commands = RPO_REPORT | RPO_DIFF},
    [RPO_INCLUDE_WARMUP] = {.name = "include_warmup",
                            .flag = "--include-warmup",
                            .metavar = "",
                            .type = RPO_FLAG,
                            .need = "true or false",
                            .help = "analyse the first ProfilerStep too (default: excluded)",
                            .help_diff =
                                "compare the first ProfilerStep too (default: excluded)",
                            .commands = RPO_REPORT | RPO_DIFF},
    [RPO_SCOPE] = {.name = "scope",
                   .flag = "--scope",
                   .metavar = "S",
                   .type = RPO_CHOICE,
                   .choices = scopes,
                   .need = "steps, trace or hta",
                   .help = "steps: the analysed steps (default); trace: the whole trace,\n"
                           "every event inside or outside ProfilerSteps; hta: the whole\n"
                           "trace, GPU work only when launched before the last\n"
                           "ProfilerStep starts (HolisticTraceAnalysis' scope)",
                   .commands = RPO_REPORT},
    [RPO_GPU_GB] = {.name = "gpu_gb",
                    .flag = "--gpu-gb",
                    .metavar = "X",
                    .type = RPO_NUMBER,
                    .min = 0,
                    .min_exclusive = 1,
                    .dflt = -1,
                    .need = "a size in GB > 0",
                    .help = "device memory in GB (1e9 bytes), for OOM risk; default:\n"
                            "the trace's deviceProperties",
                    .commands = RPO_REPORT},
    [RPO_TRACE] = {.name = "trace",
                   .flag = "--trace",
                   .metavar = "ID",
                   .type = RPO_INT,
                   .min = 1,
                   .dflt = -1,
                   .need = "a trace_id >= 1",
                   .help = "only this trace (default: all)",
                   .commands = RPO_REPORT},
    [RPO_SNAPSHOT] = {.name = "snapshot",
                      .flag = "--snapshot",
                      .metavar = "ID",
                      .type = RPO_INT,
                      .min = 1,
                      .dflt = -1,
                      .need = "a snapshot_id >= 1",
                      .help = "only this snapshot (default: all)",
                      .commands = RPO_REPORT},
    [RPO_LINE_TOLERANCE] = {.name = "line_tolerance",
                            .flag = "--line-tolerance",
                            .metavar = "N",
                            .type = RPO_INT,
                            .min = 0,
                            .dflt = 0,
                            .need = "a whole number of lines >= 0",
                            .help = "match allocation sources whose lines are at most N apart\n"
                                    "(default 0: same line; files match by path suffix)",
                            .commands = RPO_DIFF},
    [RPO_LINK_GBPS] = {.name = "link_gbps",
                       .flag = "--link-gbps",
                       .metavar = "X",
                       .type = RPO_NUMBER,
                       .min = 0,
                       .min_exclusive = 1,
                       .dflt = -1,
                       .need = "a bandwidth in GB/s > 0",
                       .help = "the link's peak bus bandwidth in GB/s (1e9 bytes/s, as\n"
                               "nccl-tests' busbw), for coll_sum's peak_pct and findings",
                       .commands = RPO_REPORT},
};

void rpo_defaults(rpo_values *v) {
  memset(v, 0, sizeof *v);
  for (int k = 0; k < RPO_COUNT; k++) {
    v->i[k] = rpo_table[k].type == RPO_INT ? rpo_table[k].dflt : 0;
    v->d[k] = -1;
  }
}

int rpo_find_flag(const char *flag, unsigned command) {
  for (int k = 0; k < RPO_COUNT; k++)
    if ((rpo_table[k].commands & command) && !strcmp(flag, rpo_table[k].flag)) return k;
  return -1;
}

int rpo_find_name(const char *name, unsigned command) {
  for (int k = 0; k < RPO_COUNT; k++)
    if ((rpo_table[k].commands & command) && !strcmp(name, rpo_table[k].name)) return k;
  return -1;
}

/* Whether x lies in the option's range. */
static int in_range(const rpo_def *o, double x) {
  if (o->min_exclusive ? !(x > o->min) : !(x >= o->min)) return 0;
  return o->max == 0 || x <= o->max;
}

int rpo_parse(rpo_values *v, int id, const char *text, char *why, size_t n) {
  const rpo_def *o = &rpo_table[id];
  char *end = NULL;
  int ok = 0;
  if (o->type == RPO_INT) {
    long long x = strtoll(text, &end, 10);
    ok = *text && !*end && in_range(o, (double)x);
    v->i[id] = x;
  } else if (o->type == RPO_NUMBER) {
    double x = strtod(text, &end);
    ok = *text && !*end && in_range(o, x);
    v->d[id] = x;
  } else if (o->type == RPO_CHOICE) {
    for (int c = 0; o->choices[c] && !ok; c++)
      if (!strcmp(text, o->choices[c])) ok = 1, v->i[id] = c;
  } else {
    ok = !strcmp(text, "true") || !strcmp(text, "1") || !strcmp(text, "false") ||
         !strcmp(text, "0");
    v->i[id] = !strcmp(text, "true") || !strcmp(text, "1");
  }
  v->set[id] = ok;
  if (!ok) snprintf(why, n, "needs %s, got '%s'", o->need, text);
  return ok ? 0 : -1;
}

static rp_param integer(const char *name, long long i) {
  rp_param p = {name, SQLITE_INTEGER, i, 0};
  return p;
}

/* A value that is NULL (the trace's, or all) when not given. */
static rp_param integer_or_null(const char *name, int given, long long i) {
  rp_param p = {name, given ? SQLITE_INTEGER : SQLITE_NULL, i, 0};
  return p;
}

int rpo_bind(const rpo_values *v, unsigned command, rp_param *out) {
  int n = 0;
  out[n++] = integer("top", v->i[RPO_TOP]);
  out[n++] = integer("include_warmup", v->i[RPO_INCLUDE_WARMUP]);
  if (command == RPO_DIFF) {
    out[n++] = integer("line_tolerance", v->i[RPO_LINE_TOLERANCE]);
    return n;
  }
  out[n++] = integer("scope_trace", v->i[RPO_SCOPE] != 0);
  out[n++] = integer("scope_hta", v->i[RPO_SCOPE] == 2);
  double gb = v->set[RPO_GPU_GB] ? v->d[RPO_GPU_GB] : -1;
  out[n++] = integer_or_null("gpu_bytes", gb > 0, (long long)(gb * 1e9));
  out[n++] = integer_or_null("trace_id", v->set[RPO_TRACE], v->i[RPO_TRACE]);
  out[n++] = integer_or_null("snapshot_id", v->set[RPO_SNAPSHOT], v->i[RPO_SNAPSHOT]);
  rp_param link = {"link_gbps", v->set[RPO_LINK_GBPS] ? SQLITE_FLOAT : SQLITE_NULL, 0,
                   v->d[RPO_LINK_GBPS]};
  out[n++] = link;
  return n;
}

const char *rpo_scope(const rpo_values *v) {
  return scopes[v->i[RPO_SCOPE]];
}

void rpo_write_help(FILE *f, unsigned command) {
  for (int k = 0; k < RPO_COUNT; k++) {
    const rpo_def *o = &rpo_table[k];
    if (!(o->commands & command)) continue;
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", o->flag, *o->metavar ? " " : "", o->metavar);
    const char *help = command == RPO_DIFF && o->help_diff ? o->help_diff : o->help;
    fprintf(f, "  %-18s ", left);
    for (const char *p = help; *p; p++) {
      fputc(*p, f);
      if (*p == '\n') fprintf(f, "%21s", "");
    }
    fputc('\n', f);
  }
}

static void put(ld_buf *b, const char *s) {
  ld_buf_put(b, s, strlen(s));
}

static void put_string(ld_buf *b, const char *s) {
  ld_buf_put_json_string(b, s, strlen(s));
}

/* The help text on one line (JSON descriptions have no line breaks). */
static void put_help(ld_buf *b, const char *help) {
  char *one = strdup(help);
  if (!one) return;
  for (char *p = one; *p; p++)
    if (*p == '\n') *p = ' ';
  put_string(b, one);
  free(one);
}

static void put_number(ld_buf *b, const char *key, double x) {
  char num[64];
  snprintf(num, sizeof num, ", \"%s\": %.17g", key, x);
  put(b, num);
}

static const char *json_type(rpo_type t) {
  return t == RPO_INT      ? "integer"
         : t == RPO_NUMBER ? "number"
         : t == RPO_CHOICE ? "string"
                           : "boolean";
}

void rpo_put_schema(ld_buf *b, unsigned command) {
  int first = 1;
  for (int k = 0; k < RPO_COUNT; k++) {
    const rpo_def *o = &rpo_table[k];
    if (!(o->commands & command)) continue;
    put(b, first ? "" : ", ");
    first = 0;
    put_string(b, o->name);
    put(b, ": {\"type\": ");
    put_string(b, json_type(o->type));
    if (o->type == RPO_INT || o->type == RPO_NUMBER)
      put_number(b, o->min_exclusive ? "exclusiveMinimum" : "minimum", o->min);
    if (o->mcp_max || o->max) put_number(b, "maximum", o->mcp_max ? o->mcp_max : o->max);
    for (int c = 0; o->choices && o->choices[c]; c++) {
      put(b, c ? ", " : ", \"enum\": [");
      put_string(b, o->choices[c]);
      if (!o->choices[c + 1]) put(b, "]");
    }
    put(b, ", \"description\": ");
    put_help(b, command == RPO_DIFF && o->help_diff ? o->help_diff : o->help);
    put(b, "}");
  }
}

char *rpo_table_json(void) {
  ld_buf b = {0};
  for (int k = 0; k < RPO_COUNT; k++) {
    const rpo_def *o = &rpo_table[k];
    put(&b, k ? ",\n {\"name\": " : "[{\"name\": ");
    put_string(&b, o->name);
    put(&b, ", \"flag\": ");
    put_string(&b, o->flag);
    put(&b, ", \"type\": ");
    put_string(&b, json_type(o->type));
    put_number(&b, "min", o->min);
    put_number(&b, "max", o->max);
    put_number(&b, "min_exclusive", o->min_exclusive);
    put(&b, ", \"choices\": [");
    for (int c = 0; o->choices && o->choices[c]; c++) {
      put(&b, c ? ", " : "");
      put_string(&b, o->choices[c]);
    }
    put(&b, "], \"need\": ");
    put_string(&b, o->need);
    put(&b, ", \"report\": ");
    put(&b, o->commands & RPO_REPORT ? "true" : "false");
    put(&b, ", \"diff\": ");
    put(&b, o->commands & RPO_DIFF ? "true" : "false");
    put(&b, "}");
  }
  put(&b, "]");
  return (char *)ld_buf_cstr(&b);
}

/* See report.h. */
void rp_bind_params(rp_report *r, sqlite3_stmt *st) {
  int n = sqlite3_bind_parameter_count(st);
  for (int i = 1; i <= n; i++) {
    const char *name = sqlite3_bind_parameter_name(st, i);
    if (!name) continue;
    for (int k = 0; k < r->nparams; k++) {
      const rp_param *p = &r->params[k];
      if (strcmp(name + 1, p->name)) continue;
      if (p->type == SQLITE_INTEGER)
        sqlite3_bind_int64(st, i, p->i);
      else if (p->type == SQLITE_FLOAT)
        sqlite3_bind_double(st, i, p->d);
      else
        sqlite3_bind_null(st, i);
    }
  }
}
