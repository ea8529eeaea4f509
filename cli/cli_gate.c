/*
** cli_gate.c — the regression gate of `profdb diff`: parse the checks of
** --fail-if and --gate FILE, hand them to queries/diff/gate.sql (through
** the TEMP table gate_rule of queries/diff/lib/40_gate_rule.sql) and say
** whether all passed.
**
** A check states when to FAIL (README, "Gating a pull request"):
**
**   METRIC OP LIMIT [significant]
**     step_time > +5%           the mean step time grew by more than 5%
**     gpu_util < -3pt           GPU utilization fell by more than 3 points
**     peak_allocated > +512MiB  the peak grew by more than 512 MiB
**     ooms > 0                  the after run has an OOM (no sign: the after value)
**     kernel[ampere_sgemm_128x64_tn] > +10% significant
**     busbw[all_reduce] < -10%  all-reduce bus bandwidth fell by more than 10%
**
** The judging is SQL (gate.sql), so every verdict can be reproduced with
** plain SQL; this file only checks the syntax and converts units.
*/
#include "cli.h"
#include "oom.h"
#include "buf.h"

#include "profdb/profdb.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The metrics a check can name, their unit, and whether the noise test
** (queries/diff/lib/30_noise.sql, step times) applies. */
static const struct gate_metric {
  const char *name, *unit;
  int takes_arg, noise_tested;
} metrics[] = {
    {"step_time", "ns", 0, 1},         {"step_time_median", "ns", 0, 1},
    {"step_time_p95", "ns", 0, 1},     {"gpu_util", "%", 0, 0},
    {"category", "ns", 1, 0},          {"kernel", "ns", 1, 0},
    {"memcpy_bytes", "bytes", 0, 0},   {"comm_exposed", "ns", 0, 0},
    {"peak_allocated", "bytes", 0, 0}, {"peak_reserved", "bytes", 0, 0},
    {"ooms", "count", 0, 0},           {"busbw", "GB/s", 1, 0},
};

/* The collective kinds busbw[KIND] names (report_coll_call.kind, those
** with a busbw factor); 'allreduce' or 'all-reduce' read as all_reduce. */
static const char *const coll_kinds[] = {"all_reduce", "all_gather", "reduce_scatter",
                                         "all_to_all", "broadcast",  "reduce",
                                         "send_recv"};

/* The kind arg[0..n) names, ignoring case, '_' and '-', or NULL. */
static const char *coll_kind(const char *arg, size_t n) {
  for (size_t k = 0; k < sizeof coll_kinds / sizeof coll_kinds[0]; k++) {
    const char *a = arg, *end = arg + n, *b = coll_kinds[k];
    for (;;) {
      while (a < end && (*a == '_' || *a == '-')) a++;
      while (*b == '_') b++;
      if (a == end || !*b) break;
      if (tolower((unsigned char)*a) != *b) break;
      a++, b++;
    }
    if (a == end && !*b) return coll_kinds[k];
  }
  return NULL;
}

/* Units a limit may carry, per metric unit, with their factor to it. */
static const struct gate_unit {
  const char *metric_unit, *suffix;
  double factor;
} units[] = {
    {"ns", "ns", 1},
    {"ns", "us", 1e3},
    {"ns", "ms", 1e6},
    {"ns", "s", 1e9},
    {"bytes", "B", 1},
    {"bytes", "KB", 1e3},
    {"bytes", "MB", 1e6},
    {"bytes", "GB", 1e9},
    {"bytes", "KiB", 1024.0},
    {"bytes", "MiB", 1048576.0},
    {"bytes", "GiB", 1073741824.0},
    {"count", "", 1},
    {"GB/s", "GB/s", 1},
};

static const char *skip_space(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

void cli_gate_free(cli_gate *g) {
  for (int i = 0; i < g->n; i++) {
    free(g->rules[i].text);
    free(g->rules[i].arg);
    free(g->rules[i].where);
    free(g->rules[i].suggest);
  }
  free(g->rules);
  memset(g, 0, sizeof *g);
}

/* Parse one check into r (text and arg owned).  On error writes why into
** err and returns -1. */
/* The metric at *pp, with its [argument] (*arg, *alen; NULL when none);
** *pp moves past them.  Returns the metric, or NULL with err set. */
static const struct gate_metric *parse_metric(const char **pp, const char **arg, size_t *alen,
                                              char *err, size_t errlen) {
  const char *p = *pp, *name = p;
  while (isalnum((unsigned char)*p) || *p == '_') p++;
  size_t nlen = (size_t)(p - name);
  const struct gate_metric *m = NULL;
  for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
    if (strlen(metrics[i].name) == nlen && !strncmp(metrics[i].name, name, nlen))
      m = &metrics[i];
  if (!m && nlen == 14 && !strncmp(name, "step_time_mean", 14)) m = &metrics[0];
  if (!m) {
    snprintf(err, errlen,
             "unknown metric '%.*s' (metrics: step_time, step_time_median, "
             "step_time_p95, gpu_util, category[NAME], kernel[NAME], memcpy_bytes, "
             "comm_exposed, peak_allocated, peak_reserved, ooms, busbw[KIND])",
             (int)nlen, name);
    return NULL;
  }
  *arg = NULL;
  *alen = 0;
  if (m->takes_arg) {
    if (*p != '[') {
      snprintf(err, errlen, "%s needs a name in brackets: %s[NAME]", m->name, m->name);
      return NULL;
    }
    /* The argument runs to the first ']' followed by the operator, so
    ** kernel names may hold brackets. */
    *arg = p + 1;
    const char *close = NULL;
    for (const char *q = *arg; *q && !close; q++) {
      const char *after = skip_space(q + 1);
      if (*q == ']' && (*after == '<' || *after == '>')) close = q;
    }
    if (!close || close == *arg) {
      snprintf(err, errlen, "%s[NAME] needs a name and a closing ']' before the operator",
               m->name);
      return NULL;
    }
    *alen = (size_t)(close - *arg);
    p = close + 1;
  } else if (*p == '[') {
    snprintf(err, errlen, "%s takes no [argument]", m->name);
    return NULL;
  }
  *pp = p;
  return m;
}

/* How the limit's number v (signed when sign) and its unit suffix[0..slen)
** are read for metric m: *mode "relative", "change" or "value" and the
** factor to the metric's unit.  Returns 0, or -1 with err set. */
static int limit_unit(const struct gate_metric *m, int sign, double v, const char *suffix,
                      size_t slen, const char **mode, double *factor, char *err,
                      size_t errlen) {
  if (slen == 1 && *suffix == '%') {
    if (sign)
      *mode = "relative", *factor = 1;
    else if (!strcmp(m->unit, "%"))
      *mode = "value", *factor = 1;
    else {
      snprintf(err, errlen, "a %% limit needs a sign: +%g%% (grew by more than %g%%) or -%g%%",
               v, v, v);
      return -1;
    }
  } else if (slen == 2 && !strncmp(suffix, "pt", 2)) {
    if (strcmp(m->unit, "%")) {
      snprintf(err, errlen,
               "'pt' (percentage points) applies to gpu_util only; "
               "use %% for a relative change of %s",
               m->name);
      return -1;
    }
    if (!sign) {
      snprintf(err, errlen, "a change in points needs a sign: -%gpt or +%gpt", v, v);
      return -1;
    }
    *mode = "change", *factor = 1;
  } else {
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
      if (!strcmp(units[i].metric_unit, m->unit) && strlen(units[i].suffix) == slen &&
          !strncmp(units[i].suffix, suffix, slen))
        *factor = units[i].factor;
    if (!*factor && !strcmp(m->unit, "%") && slen == 0) {
      if (sign) {
        snprintf(err, errlen, "say what the %g is: %+gpt (points) or %+g%% (relative)", v, v,
                 v);
        return -1;
      }
      *factor = 1;
    }
    if (!*factor) {
      snprintf(err, errlen, "%s is in %s: '%.*s' is not a unit of it (%s)", m->name, m->unit,
               (int)slen, suffix,
               !strcmp(m->unit, "ns")      ? "ns, us, ms, s, or % with a sign"
               : !strcmp(m->unit, "bytes") ? "B, KB, MB, GB, KiB, MiB, GiB, or % with a sign"
               : !strcmp(m->unit, "%")     ? "pt with a sign, or %"
               : !strcmp(m->unit, "GB/s")  ? "GB/s, or % with a sign"
                                           : "no unit, or % with a sign");
      return -1;
    }
    *mode = sign ? "change" : "value";
  }
  return 0;
}

static int parse_rule(const char *text, cli_gate_rule *r, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  const char *p = skip_space(text);
  const char *arg;
  size_t alen;
  const struct gate_metric *m = parse_metric(&p, &arg, &alen, err, errlen);
  if (!m) return -1;
  p = skip_space(p);
  const char *op;
  if (!strncmp(p, ">=", 2))
    op = ">=", p += 2;
  else if (!strncmp(p, "<=", 2))
    op = "<=", p += 2;
  else if (*p == '>')
    op = ">", p++;
  else if (*p == '<')
    op = "<", p++;
  else {
    snprintf(err, errlen, "expected an operator (>, >=, <, <=) after %s", m->name);
    return -1;
  }
  p = skip_space(p);
  int sign = *p == '+' || *p == '-';
  const char *num = p;
  if (sign) p++;
  if (!isdigit((unsigned char)*p) && *p != '.') {
    snprintf(err, errlen, "expected a number after '%s' (e.g. +5%%, -3pt, 250ms, 0)", op);
    return -1;
  }
  char *end;
  errno = 0;
  double v = strtod(num, &end);
  int plain = 1; /* decimal digits, a point, an exponent: no hex floats */
  for (const char *q = num + sign; q < end; q++)
    if (!isdigit((unsigned char)*q) && !strchr(".eE+-", *q)) plain = 0;
  if (end == num || errno || !isfinite(v) || !plain) {
    snprintf(err, errlen, "'%.*s' is not a number", (int)(end - num), num);
    return -1;
  }
  p = end;
  const char *suffix = p;
  while (isalpha((unsigned char)*p) || *p == '%' || *p == '/') p++;
  size_t slen = (size_t)(p - suffix);
  const char *mode = NULL;
  double factor = 0;
  if (limit_unit(m, sign, v, suffix, slen, &mode, &factor, err, errlen)) return -1;
  p = skip_space(p);
  int significant = 0;
  if (!strncmp(p, "significant", 11)) {
    if (!m->noise_tested) {
      snprintf(err, errlen,
               "'significant' applies to step_time metrics only (the noise test "
               "compares the steps' times)");
      return -1;
    }
    significant = 1;
    p = skip_space(p + 11);
  }
  if (*p) {
    snprintf(err, errlen, "unexpected '%s' after the limit", p);
    return -1;
  }
  const char *kind = NULL;
  if (!strcmp(m->name, "busbw") && !(kind = coll_kind(arg, alen))) {
    snprintf(err, errlen,
             "busbw[%.*s]: not a collective kind (all_reduce, all_gather, reduce_scatter, "
             "all_to_all, broadcast, reduce, send_recv)",
             (int)alen, arg);
    return -1;
  }
  r->text = strdup(text);
  r->arg = kind ? strdup(kind) : arg ? strndup(arg, alen) : NULL;
  if (!r->text || (arg && !r->arg)) ld_oom();
  r->metric = m->name;
  r->unit = m->unit;
  r->op = op;
  r->mode = mode;
  r->limit = v * factor;
  r->significant = significant;
  return 0;
}

static int add_rule(cli_gate *g, const char *text, const char *where, char *err,
                    size_t errlen) {
  cli_gate_rule r;
  if (parse_rule(text, &r, err, errlen)) return -1;
  if (!(r.where = strdup(where))) ld_oom();
  if (g->n == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 8;
    g->rules = realloc(g->rules, (size_t)g->cap * sizeof *g->rules);
    if (!g->rules) ld_oom();
  }
  g->rules[g->n++] = r;
  return 0;
}

int cli_gate_add(cli_gate *g, const char *text) {
  char err[512];
  if (add_rule(g, text, "--fail-if", err, sizeof err) == 0) return 0;
  fprintf(stderr, "profdb: diff: --fail-if '%s': %s\n", text, err);
  return -1;
}

int cli_gate_read_file(cli_gate *g, const char *path) {
  /* A gate that cannot be read fails closed: a regular file of bounded
  ** size, never /dev/zero or a FIFO read until memory runs out (exit 2). */
  size_t len;
  char *text = rp_read_text(path, RP_MAX_TEXT_FILE, "the gate file", &len);
  if (!text) return PROFDB_EXIT_USAGE;
  if (memchr(text, 0, len)) {
    fprintf(stderr, "profdb: %s: a NUL byte: not a text file of checks\n", path);
    free(text);
    return PROFDB_EXIT_DATA;
  }
  int lineno = 0, rc = PROFDB_EXIT_OK;
  char *save = NULL;
  for (char *line = text; rc == PROFDB_EXIT_OK && line; line = save) {
    char *eol = strchr(line, '\n');
    save = eol ? eol + 1 : NULL;
    if (eol) *eol = 0;
    if (!eol && !*line) break;
    lineno++;
    char *hash = strchr(line, '#'); /* comments; kernel names hold no '#' */
    if (hash) *hash = 0;
    size_t n = strlen(line);
    while (n && isspace((unsigned char)line[n - 1])) line[--n] = 0;
    const char *rule = skip_space(line);
    if (!*rule) continue;
    char err[512], where[4200];
    snprintf(where, sizeof where, "%s:%d", path, lineno);
    if (add_rule(g, rule, where, err, sizeof err)) {
      fprintf(stderr, "profdb: %s:%d: '%s': %s\n", path, lineno, rule, err);
      rc = PROFDB_EXIT_DATA;
    }
  }
  free(text);
  return rc;
}

int cli_gate_run(const cli_gate *g, rp_report *r) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(r->db,
                         "INSERT INTO gate_rule VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                         -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: diff: gate: %s\n", sqlite3_errmsg(r->db));
    return -1;
  }
  for (int i = 0; i < g->n; i++) {
    const cli_gate_rule *x = &g->rules[i];
    sqlite3_reset(st);
    sqlite3_bind_int(st, 1, i + 1);
    sqlite3_bind_text(st, 2, x->text, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, x->metric, -1, SQLITE_STATIC);
    if (x->arg)
      sqlite3_bind_text(st, 4, x->arg, -1, SQLITE_STATIC);
    else
      sqlite3_bind_null(st, 4);
    sqlite3_bind_text(st, 5, x->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, x->mode, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 7, x->limit);
    sqlite3_bind_text(st, 8, x->unit, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 9, x->significant);
    if (sqlite3_step(st) != SQLITE_DONE) {
      fprintf(stderr, "profdb: diff: gate: %s\n", sqlite3_errmsg(r->db));
      sqlite3_finalize(st);
      return -1;
    }
  }
  sqlite3_finalize(st);
  char path[4200];
  snprintf(path, sizeof path, "%s/%sgate.sql", r->queries_dir, r->kind->sections);
  if (rp_parse_file(path, "gate", &r->gate) || rp_run_section(r, &r->gate)) return -1;
  r->with_gate = 1;
  return 0;
}

int cli_gate_passed(const rp_report *r) {
  int col = rp_col_index(&r->gate, "passed");
  for (int i = 0; col >= 0 && i < r->gate.nrows; i++) {
    const rp_value *v = rp_cell(&r->gate, i, col);
    if (v->type == SQLITE_INTEGER && v->i == 0) return 0;
  }
  return 1;
}

/* ---- names in neither run (Requirement: a check never passes silently) ----
** A category[NAME] or kernel[NAME] check whose NAME is in neither run would
** compare 0 with 0 and pass: a typo or a renamed kernel turns the gate
** off.  It fails the command instead (exit 2), naming the closest names
** the runs have; --allow-missing keeps it as "not evaluated". */

#define NAME_CMP_MAX 256 /* characters compared of a name */

static int lower(int c) {
  return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* How far candidate c is from the name a, case-insensitively: 0 to 1 when
** one contains the other (the closer their lengths the lower), else 1 +
** their Levenshtein distance (over the first NAME_CMP_MAX characters). */
static double name_distance(const char *a, const char *c) {
  size_t n = strlen(a), m = strlen(c);
  if (n > NAME_CMP_MAX) n = NAME_CMP_MAX;
  if (m > NAME_CMP_MAX) m = NAME_CMP_MAX;
  char x[NAME_CMP_MAX + 1], y[NAME_CMP_MAX + 1];
  for (size_t i = 0; i < n; i++) x[i] = (char)lower((unsigned char)a[i]);
  for (size_t j = 0; j < m; j++) y[j] = (char)lower((unsigned char)c[j]);
  x[n] = y[m] = 0;
  if (n && m && (strstr(x, y) || strstr(y, x)))
    return (double)(n > m ? n - m : m - n) / (double)(n + m);
  int row[NAME_CMP_MAX + 1];
  for (size_t j = 0; j <= m; j++) row[j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      int up = row[j], best = diag + (x[i - 1] != y[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return 1.0 + row[m];
}

#define SUGGEST_MAX 3

/* The closest candidates of rows [from, to) of the section as text:
** "'a', 'b' or 'c'" (NULL when there is none).  Ties keep the query's
** order (the most GPU time first). */
static char *closest_names(const rp_section *s, int from, int to, const char *arg) {
  int col = rp_col_index(s, "candidate"), best[SUGGEST_MAX], nbest = 0;
  double dist[SUGGEST_MAX];
  for (int i = from; i < to; i++) {
    const rp_value *v = rp_cell(s, i, col);
    if (v->type != SQLITE_TEXT) continue;
    double d = name_distance(arg, v->s);
    int k = nbest < SUGGEST_MAX ? nbest++ : SUGGEST_MAX;
    for (; k > 0 && dist[k - 1] > d; k--)
      if (k < SUGGEST_MAX) best[k] = best[k - 1], dist[k] = dist[k - 1];
    if (k < SUGGEST_MAX) best[k] = i, dist[k] = d;
  }
  if (!nbest) return NULL;
  ld_buf b = {0};
  for (int k = 0; k < nbest; k++) {
    const char *sep = k == 0           ? ""
                      : k == nbest - 1 ? " or "
                                       : ", ",
               *name = rp_cell(s, best[k], col)->s;
    ld_buf_put(&b, sep, strlen(sep));
    ld_buf_putc(&b, '\'');
    ld_buf_put(&b, name, strlen(name));
    ld_buf_putc(&b, '\'');
  }
  ld_buf_putc(&b, 0);
  return b.p;
}

int cli_gate_find_missing(cli_gate *g, rp_report *r) {
  rp_section s = {0};
  char path[4200];
  snprintf(path, sizeof path, "%s/%sgate_missing.sql", r->queries_dir, r->kind->sections);
  if (rp_parse_file(path, "gate_missing", &s) || rp_run_section(r, &s)) {
    rp_section_free(&s);
    return -1;
  }
  int ord = rp_col_index(&s, "ord"), nmissing = 0;
  for (int i = 0; i < s.nrows;) {
    int j = i, k = (int)rp_cell(&s, i, ord)->i - 1;
    while (j < s.nrows && rp_cell(&s, j, ord)->i == k + 1) j++;
    if (k >= 0 && k < g->n) {
      cli_gate_rule *x = &g->rules[k];
      x->missing++;
      free(x->suggest);
      x->suggest = closest_names(&s, i, j, x->arg);
      nmissing++;
    }
    i = j;
  }
  rp_section_free(&s);
  return nmissing;
}

int cli_gate_report_missing(const cli_gate *g, int pairs) {
  int n = 0;
  for (int i = 0; !g->allow_missing && i < g->n; i++) {
    const cli_gate_rule *x = &g->rules[i];
    if (pairs <= 0 || x->missing < pairs) continue;
    fprintf(stderr, "profdb: diff: %s '%s': %s '%s' is %s", x->where, x->text, x->metric,
            x->arg, pairs > 1 ? "in no run of the series" : "not in either run");
    if (x->suggest)
      fprintf(stderr, ": did you mean %s?", x->suggest);
    else
      fprintf(stderr, " (the runs have no %s at all)", x->metric);
    fputs(" (--allow-missing lets such a check pass unevaluated)\n", stderr);
    n++;
  }
  return n;
}

void cli_gate_fail_line(const rp_section *gate, const char *prefix) {
  int passed = rp_col_index(gate, "passed"), failed = 0;
  for (int i = 0; passed >= 0 && i < gate->nrows; i++) {
    const rp_value *v = rp_cell(gate, i, passed);
    if (v->type != SQLITE_INTEGER || v->i != 0) continue;
    if (!failed++)
      fprintf(stderr, "profdb: diff: gate FAIL%s%s: ", prefix ? " " : "", prefix ? prefix : "");
    else
      fputs("; ", stderr);
    fprintf(stderr, "`%s` (measured %s)", rp_text_of(gate, i, "rule"),
            rp_text_of(gate, i, "measured"));
  }
  if (failed) fputc('\n', stderr);
}
