/*
** report_md.c — the report as Markdown.
**
** Values are shown by the unit their query file declares: ns as a duration
** ('12.35 ms'), bytes with binary units ('1.50 GiB'), % with two decimals.
** Text cells are escaped for GitHub tables ('|' and backticks, newlines)
** and shortened by their unit: a 'symbol' (kernel or operator name, 160
** characters) loses its deepest template/argument levels first, a
** 'source' (file:line function, 100) its start, other text its end.  The JSON
** output keeps every value exact and every name whole.
*/
#include "report.h"
#include "humanize.h"

#include <math.h>
#include <stdio.h>
#include <yajl/yajl_tree.h>
#include <stdlib.h>
#include <string.h>

#define CELL_MAX 100   /* characters of a text cell */
#define SYMBOL_MAX 160 /* characters of a symbol cell */

/* Whether '(' at p opens an argument list (after a name or a template),
** not a parenthesized word like "(anonymous namespace)". */
static int opens_args(const char *start, const char *p) {
  if (*p != '(') return 1;
  if (p == start) return 0;
  char b = p[-1];
  return b == '>' || b == '_' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') ||
         (b >= 'A' && b <= 'Z');
}

#define NEST_MAX 64

/* Bracket matching for C++ symbols: '<' and argument-list '(' nest; a ')'
** or '>' closes only the bracket it matches, so "operator>", "->" and
** "(anonymous namespace)" are text.  Calls visit(c, depth_before, kind)
** with kind 1 = opens a level, -1 = closes one, 0 = text. */
typedef struct nest {
  char open[NEST_MAX]; /* '<', '(' or 't' (a '(' that is text) */
  int n;               /* stack size */
  int depth;           /* levels opened ('<' and argument '(') */
} nest;

static int nest_step(nest *st, const char *start, const char *p) {
  char c = *p;
  if ((c == '<' || c == '(') && st->n < NEST_MAX) {
    int level = opens_args(start, p);
    st->open[st->n++] = level ? c : 't';
    if (level) st->depth++;
    return level;
  }
  if ((c == '>' || c == ')') && st->n > 0) {
    char top = st->open[st->n - 1];
    if (c == ')' && top == 't') {
      st->n--;
      return 0;
    }
    if ((c == '>' && top == '<') || (c == ')' && top == '(')) {
      st->n--;
      st->depth--;
      return -1;
    }
  }
  return 0;
}

/* Write s with template/argument lists nested deeper than max_depth
** replaced by an ellipsis ("f<a<b>>(int)" gives "f<...>(...)" at depth 0
** and "f<a<...>>(int)" at depth 1); with flat_args, the top-level argument
** list is always collapsed. */
static void collapse_deeper(const char *s, int max_depth, int flat_args, ld_buf *out) {
  nest st = {{0}, 0, 0};
  int limit = max_depth; /* the depth shown at this point */
  for (const char *p = s; *p; p++) {
    int before = st.depth;
    int kind = nest_step(&st, s, p);
    if (kind == 1) {
      if (before == 0) limit = flat_args && *p == '(' ? 0 : max_depth;
      if (before <= limit) ld_buf_putc(out, *p);
      if (before == limit) ld_buf_put(out, "\xE2\x80\xA6", 3);
    } else if (kind == -1) {
      if (st.depth <= limit) ld_buf_putc(out, *p);
    } else if (before <= limit) {
      ld_buf_putc(out, *p);
    }
  }
}

/* A symbol (kernel or operator name) in at most SYMBOL_MAX bytes where it
** can be: drop a "void " return type, collapse the argument list (it
** repeats the template arguments), then the deepest template levels first,
** so the outer names that tell kernels apart survive
** ("elementwise_kernel<4, BinaryFunctor<...>, Array<...>>(...)"). */
static void shorten_symbol(const char *s, ld_buf *out) {
  if (!strncmp(s, "void ", 5)) s += 5;
  nest st = {{0}, 0, 0};
  int deepest = 0;
  for (const char *p = s; *p; p++)
    if (nest_step(&st, s, p) == 1 && st.depth > deepest) deepest = st.depth;
  for (int d = deepest; d >= 0; d--) {
    out->n = 0;
    collapse_deeper(s, d, 1, out);
    if (out->n <= SYMBOL_MAX) return;
  }
  if (deepest == 0) ld_buf_put(out, s, strlen(s));
}

static size_t utf8_chars(const char *p, size_t n) {
  size_t chars = 0;
  for (size_t i = 0; i < n; i++) chars += ((unsigned char)p[i] & 0xC0) != 0x80;
  return chars;
}

/* Escape for a table cell and shorten to CELL_MAX characters: symbols by
** collapsing template levels, sources (file:line function) by keeping
** their end, other text by cutting its end. */
static void put_cell_text(FILE *out, const char *s, const char *unit) {
  ld_buf tmp = {0};
  size_t len = strlen(s);
  int symbol = !strcmp(unit, "symbol");
  size_t max = symbol ? SYMBOL_MAX : CELL_MAX;
  if (len > max && symbol) shorten_symbol(s, &tmp);
  else ld_buf_put(&tmp, s, len);
  ld_buf_cstr(&tmp);
  size_t from = 0, to = tmp.n;
  if (utf8_chars(tmp.p, tmp.n) > max) {
    if (!strcmp(unit, "source")) {
      size_t drop = utf8_chars(tmp.p, tmp.n) - (max - 1);
      while (drop > 0 && from < tmp.n) { /* skip whole characters */
        from++;
        while (from < tmp.n && ((unsigned char)tmp.p[from] & 0xC0) == 0x80) from++;
        drop--;
      }
      fputs("\xE2\x80\xA6", out);
    } else {
      size_t seen = 0;
      for (size_t i = 0; i < tmp.n; i++)
        if (((unsigned char)tmp.p[i] & 0xC0) != 0x80 && seen++ == max - 1) {
          to = i;
          break;
        }
    }
  }
  for (size_t i = from; i < to; i++) {
    char c = tmp.p[i];
    if (c == '|') fputs("\\|", out);
    else if (c == '`') fputs("\\`", out);
    else if (c == '\n' || c == '\r' || c == '\t') fputc(' ', out);
    else if (c == '<') fputs("&lt;", out); /* keep HTML renderers from eating it */
    else if (c == '>') fputs("&gt;", out);
    else fputc(c, out);
  }
  if (to < tmp.n) fputs("\xE2\x80\xA6", out);
  ld_buf_free(&tmp);
}

static void put_value(FILE *out, const rp_value *v, const char *unit) {
  char buf[64];
  double d = v->type == SQLITE_INTEGER ? (double)v->i : v->d;
  switch (v->type) {
  case SQLITE_NULL: return;
  case SQLITE_TEXT: put_cell_text(out, v->s, unit); return;
  default: break;
  }
  if (!strcmp(unit, "ns")) profdb_humanize_ns(buf, sizeof buf, d);
  else if (!strcmp(unit, "bytes")) profdb_humanize_bytes(buf, sizeof buf, d);
  else if (!strcmp(unit, "%")) snprintf(buf, sizeof buf, "%.2f%%", d);
  else if (v->type == SQLITE_INTEGER) snprintf(buf, sizeof buf, "%lld", v->i);
  else snprintf(buf, sizeof buf, "%.2f", d);
  fputs(buf, out);
}

static int numeric_unit(const char *unit) {
  return !strcmp(unit, "ns") || !strcmp(unit, "bytes") || !strcmp(unit, "%") ||
         !strcmp(unit, "count") || !strcmp(unit, "GB/s");
}

static void write_table(FILE *out, const rp_section *s) {
  fputc('|', out);
  for (int c = 0; c < s->ncols; c++) fprintf(out, " %s |", s->cols[c].name);
  fputs("\n|", out);
  for (int c = 0; c < s->ncols; c++) fputs(numeric_unit(s->cols[c].unit) ? "---:|" : "---|", out);
  fputc('\n', out);
  for (int r = 0; r < s->nrows; r++) {
    fputc('|', out);
    for (int c = 0; c < s->ncols; c++) {
      fputc(' ', out);
      put_value(out, rp_cell(s, r, c), s->cols[c].unit);
      fputs(" |", out);
    }
    fputc('\n', out);
  }
}

static const char *text_of(const rp_section *s, int row, const char *col) {
  int c = rp_col_index(s, col);
  if (c < 0) return "";
  const rp_value *v = rp_cell(s, row, c);
  return v->type == SQLITE_TEXT ? v->s : "";
}

/* A finding's subjects (a JSON array of flat objects, from findings.sql)
** as one line: "rank 7, label worker7, gpu_idle_pct 78.7%; rank 2, ...".
** Names are shortened as in tables, *_ns keys shown as durations. */
static void put_subjects(FILE *out, const char *json) {
  char err[128];
  yajl_val doc = yajl_tree_parse(json, err, sizeof err);
  if (!doc || !YAJL_IS_ARRAY(doc) || doc->u.array.len == 0) {
    yajl_tree_free(doc);
    return;
  }
  fputs("- **Subjects:** ", out);
  for (size_t i = 0; i < doc->u.array.len; i++) {
    yajl_val o = doc->u.array.values[i];
    if (i) fputs("; ", out);
    if (!YAJL_IS_OBJECT(o)) continue;
    for (size_t k = 0; k < o->u.object.len; k++) {
      const char *key = o->u.object.keys[k];
      yajl_val v = o->u.object.values[k];
      size_t n = strlen(key);
      char buf[64];
      fprintf(out, "%s%s ", k ? ", " : "", key);
      if (YAJL_IS_STRING(v)) {
        put_cell_text(out, v->u.string,
                      !strcmp(key, "source") ? "source"
                      : !strcmp(key, "label") ? "" : "symbol");
      } else if (YAJL_IS_NUMBER(v)) {
        double d = YAJL_IS_INTEGER(v) ? (double)YAJL_GET_INTEGER(v) : YAJL_GET_DOUBLE(v);
        if (n > 3 && !strcmp(key + n - 3, "_ns")) profdb_humanize_ns(buf, sizeof buf, d);
        else if (!strcmp(key, "size")) profdb_humanize_bytes(buf, sizeof buf, d);
        else if (n > 4 && !strcmp(key + n - 4, "_pct")) snprintf(buf, sizeof buf, "%.1f%%", d);
        else snprintf(buf, sizeof buf, "%.15g", d);
        fputs(buf, out);
      }
    }
  }
  fputc('\n', out);
  yajl_tree_free(doc);
}

static void write_findings(FILE *out, const rp_section *f) {
  fputs("## Findings, by expected impact\n\n", out);
  if (f->skipped || f->nrows == 0) {
    fputs("No finding: no rule of queries/findings.sql applies to this data.\n\n", out);
    return;
  }
  for (int r = 0; r < f->nrows; r++) {
    const char *conf = text_of(f, r, "confidence");
    fprintf(out, "### %d. %s\n\n", r + 1, text_of(f, r, "title"));
    fprintf(out, "- **Observation:** %s\n", text_of(f, r, "observation"));
    put_subjects(out, text_of(f, r, "subjects"));
    fprintf(out, "- **Hypothesis:** %s\n", text_of(f, r, "hypothesis"));
    fprintf(out, "- **Action:** %s\n", text_of(f, r, "action"));
    fprintf(out, "- **Expected impact:** %s\n", text_of(f, r, "expected_impact"));
    fprintf(out, "- **Validation:** %s\n", text_of(f, r, "validation"));
    fprintf(out, "- **Confidence:** %s (rule `%s`)\n\n", conf, text_of(f, r, "id"));
  }
}

/* The diff's verdict: rows of (topic, statement) as bullets. */
static void write_bullets(FILE *out, const rp_section *f) {
  fputs("## Verdict\n\n", out);
  if (f->skipped || f->nrows == 0) {
    fprintf(out, "%s\n\n", f->note ? f->note : "Nothing to compare.");
    return;
  }
  for (int r = 0; r < f->nrows; r++)
    fprintf(out, "- **%s:** %s\n", text_of(f, r, "topic"), text_of(f, r, "statement"));
  fputc('\n', out);
}

/* The charts drawn from a section, shown after it. */
static const char *chart_key(const char *section) {
  if (!strcmp(section, "step_time")) return ".step_time.";
  if (!strcmp(section, "kernel_category_sum")) return ".kernel_category.";
  if (!strcmp(section, "mem_peak")) return ".mem_timeline.";
  if (!strcmp(section, "trend")) return ".trend.";
  return NULL;
}

/* The gate's verdict, the first line of the diff: PASS, or FAIL with the
** failing checks and what they measured. */
static void write_gate_line(FILE *out, const rp_section *g) {
  int passed = rp_col_index(g, "passed");
  int failed = 0, unjudged = 0;
  for (int i = 0; i < g->nrows; i++) {
    const rp_value *v = rp_cell(g, i, passed);
    if (v->type == SQLITE_NULL) unjudged++;
    else if (v->i == 0)
      fprintf(out, "%s`%s` (measured %s)", failed++ ? "; " : "**FAIL:** ", text_of(g, i, "rule"),
              text_of(g, i, "measured"));
  }
  if (!failed) fprintf(out, "**PASS:** %d of %d checks passed", g->nrows - unjudged, g->nrows);
  if (unjudged) fprintf(out, " (%d not evaluated: no data)", unjudged);
  fputs("\n\n", out);
}

void rp_write_markdown(const rp_report *r, FILE *out, const char *const *charts, int ncharts) {
  if (r->with_gate) write_gate_line(out, &r->gate);
  fprintf(out, "# %s\n\n", r->kind->title);
  if (r->kind == &rp_kind_diff && r->ninputs == 2) {
    fprintf(out, "- Before: `%s` (attached as base)\n- After: `%s` (main)\n", r->inputs[0],
            r->inputs[1]);
  } else {
    fputs("- Inputs:", out);
    for (int i = 0; i < r->ninputs; i++) fprintf(out, " `%s`", r->inputs[i]);
    fputc('\n', out);
  }
  if (r->scope_note) fprintf(out, "- Scope: %s\n", r->scope_note);
  fprintf(out, "- Times are durations on the traces' clocks; sizes in binary units (GiB = 2^30 bytes).\n"
               "  The JSON output has every figure exact (ns, bytes).\n\n");
  if (r->with_findings) {
    if (r->kind->bullets) write_bullets(out, &r->findings);
    else write_findings(out, &r->findings);
  }
  if (r->with_gate) {
    fputs("## Gate\n\n", out);
    write_table(out, &r->gate);
    fputc('\n', out);
  }
  const char *group = NULL;
  for (int i = 0; i < r->nsections; i++) {
    const rp_section *s = &r->sections[i];
    if (!group || strcmp(group, s->group)) {
      group = s->group;
      if (*group) fprintf(out, "## %s\n\n", group);
    }
    fprintf(out, "### %s\n\n", s->title);
    if (s->question) fprintf(out, "_%s_\n\n", s->question);
    const char *scope = rp_section_scope(r, s);
    if (scope)
      fprintf(out, "Scope: %s.\n\n",
              !strcmp(scope, "snapshot") ? "the memory snapshot"
              : !strcmp(scope, "trace")  ? "the whole trace (--scope trace)"
              : !strcmp(scope, "hta")    ? "the whole trace, GPU work launched before the last"
                                           " ProfilerStep (--scope hta)"
                                         : "the analysed steps (--scope steps)");
    if (s->skipped) {
      fprintf(out, "SKIPPED: %s\n\n", s->note ? s->note : "no data");
      continue;
    }
    write_table(out, s);
    fputc('\n', out);
    const char *key = chart_key(s->id);
    for (int k = 0; key && k < ncharts; k++)
      if (strstr(charts[k], key)) fprintf(out, "![%s](%s)\n\n", s->title, charts[k]);
  }
}
