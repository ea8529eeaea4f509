/*
** report_md.c — the report as Markdown that fits a screen.
**
** Tables show at most MD_COLUMNS columns (the query's Brief list when it
** has one), the naming column first, each time or size column in one unit
** named by its header (report_format.c); the HTML and JSON outputs have
** every column.  Names are shortened so that rows stay distinguishable
** (report_format.c), and escaped for GitHub tables ('|', backticks,
** newlines, '<').  Each section heading carries its id as an anchor, so
** the ids that findings cite resolve; sections without data are listed
** once, with their reason, under "Not available" at the end.
*/
#include "report.h"
#include "oom.h"
#include "humanize.h"

#include <stdio.h>
#include <yajl/yajl_tree.h>
#include <stdlib.h>
#include <string.h>

#define MD_COLUMNS 8   /* columns of a Markdown table */
#define SYMBOL_MAX 60  /* characters of a kernel or operator name */
#define SOURCE_MAX 48  /* characters of a file:line function */
#define TEXT_MAX 40    /* characters of other text cells */
#define SUBJECTS_MAX 8 /* subjects of a finding in the Markdown */

static void put_escaped(FILE *out, const char *s) {
  for (const char *p = s; *p; p++) {
    char c = *p;
    if (c == '|')
      fputs("\\|", out);
    else if (c == '`')
      fputs("\\`", out);
    else if (c == '\n' || c == '\r' || c == '\t')
      fputc(' ', out);
    else if (c == '<')
      fputs("&lt;", out); /* keep HTML renderers from eating it */
    else if (c == '>')
      fputs("&gt;", out);
    else
      fputc(c, out);
  }
}

/* s as a Markdown code span: a backtick fence longer than any run of
** backticks in s (CommonMark), control characters shown as '?'.  Inside a
** code span '<' is text, so a file name cannot inject HTML. */
static void put_code(FILE *out, const char *s) {
  int run = 0, longest = 0;
  for (const char *p = s; *p; p++) {
    run = *p == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  int pad = *s == '`' || (*s && s[strlen(s) - 1] == '`');
  for (int i = 0; i <= longest; i++) fputc('`', out);
  if (pad) fputc(' ', out);
  for (const char *p = s; *p; p++)
    fputc((unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p, out);
  if (pad) fputc(' ', out);
  for (int i = 0; i <= longest; i++) fputc('`', out);
}

/* Whether column name is in the space-separated list. */
static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) return 1;
  return 0;
}

static void write_rows(FILE *out, const rp_section *s);

/* ---- one page at any rank count (issue 23) ---------------------------------
** A section with a `rank` column and more than RP_RANKS_MAX distinct ranks is
** not written row by row: its Markdown is the cross-rank summary of
** report_ranks.c (min, median and max of each figure with the ranks holding
** them, then the outlying rows).  Every row stays in the HTML and the JSON. */
static void write_rank_summary(FILE *out, const rp_section *s) {
  rp_rank_summary m;
  rp_rank_summary_make(s, &m);
  const char *rank_name = s->cols[m.rank_col].name;
  fprintf(out,
          "%d rows over %d %ss: each figure across %s (min, median, max and the %s "
          "holding each); every row is in the HTML (folded) and the JSON.\n\n",
          s->nrows, m.ranks, m.who, m.has_all ? "the devices' `all` rows" : "them", m.who);
  fprintf(out, "| figure | min | %s | median | %s | max | %s |\n", rank_name, rank_name,
          rank_name);
  fputs("|---|---:|---:|---:|---:|---:|---:|\n", out);
  for (int k = 0; k < m.nfig; k++) {
    const rp_rank_figure *f = &m.fig[k];
    char a[128], md[128], z[128], ra[128], rm[128], rz[128];
    rp_value mv = {SQLITE_FLOAT, 0, f->median, NULL};
    rp_format_cell(a, sizeof a, f->view, rp_cell(s, f->lo, f->view->col));
    rp_format_cell(md, sizeof md, f->view, &mv);
    rp_format_cell(z, sizeof z, f->view, rp_cell(s, f->hi, f->view->col));
    fputs("| ", out);
    put_escaped(out, f->view->header);
    fprintf(out, " | %s | ", a);
    put_escaped(out, rp_rank_text(ra, sizeof ra, s, f->lo, m.rank_col));
    fprintf(out, " | %s | ", md);
    put_escaped(out, rp_rank_text(rm, sizeof rm, s, f->mid, m.rank_col));
    fprintf(out, " | %s | ", z);
    put_escaped(out, rp_rank_text(rz, sizeof rz, s, f->hi, m.rank_col));
    fputs(" |\n", out);
  }
  char line[256];
  fprintf(out, "\n%s\n", rp_rank_outliers_text(line, sizeof line, &m));
  if (m.kept) {
    fputc('\n', out);
    rp_section sub = rp_rank_outlier_rows(s, &m);
    write_rows(out, &sub);
    free(sub.cells); /* the values are s's */
  }
  rp_rank_summary_free(&m);
}

static void write_table(FILE *out, const rp_section *s) {
  int rank_col = rp_rank_column(s);
  int ranks = rp_rank_count(s, rank_col);
  if (ranks > RP_RANKS_MAX) {
    write_rank_summary(out, s);
    return;
  }
  write_rows(out, s);
}

static void write_rows(FILE *out, const rp_section *s) {
  rp_colview *all = calloc((size_t)s->ncols + 1, sizeof *all);
  int *shown = calloc((size_t)s->ncols + 1, sizeof *shown);
  char ***names = calloc((size_t)s->ncols + 1, sizeof *names);
  if (!all || !shown || !names) ld_oom();
  int nall = rp_column_views(s, all, s->ncols), n = 0;
  for (int k = 0; k < nall; k++)
    if (n < MD_COLUMNS && (!s->brief || listed(s->brief, s->cols[all[k].col].name)))
      shown[n++] = k;
  for (int k = 0; k < n; k++) {
    const rp_colview *v = &all[shown[k]];
    const char *unit = s->cols[v->col].unit;
    if (v->numeric) continue;
    size_t max = !strcmp(unit, "symbol")   ? SYMBOL_MAX
                 : !strcmp(unit, "source") ? SOURCE_MAX
                                           : TEXT_MAX;
    names[k] = rp_short_names(s, v->col, max);
  }
  fputc('|', out);
  for (int k = 0; k < n; k++) fprintf(out, " %s |", all[shown[k]].header);
  fputs("\n|", out);
  for (int k = 0; k < n; k++) fputs(all[shown[k]].numeric ? "---:|" : "---|", out);
  fputc('\n', out);
  for (int r = 0; r < s->nrows; r++) {
    fputc('|', out);
    for (int k = 0; k < n; k++) {
      char cell[128];
      fputc(' ', out);
      if (names[k])
        put_escaped(out, names[k][r]);
      else {
        rp_colview v = all[shown[k]];
        v.delta |= v.numeric && rp_row_is_delta(s, r);
        rp_format_cell(cell, sizeof cell, &v, rp_cell(s, r, v.col));
        put_escaped(out, cell);
      }
      fputs(" |", out);
    }
    fputc('\n', out);
  }
  if (n < nall) {
    fputs("\nMore columns in the HTML and JSON output:", out);
    int first = 1;
    for (int k = 0; k < nall; k++) {
      int in = 0;
      for (int j = 0; j < n; j++) in |= shown[j] == k;
      if (in) continue;
      fprintf(out, "%s %s", first ? "" : ",", s->cols[all[k].col].name);
      first = 0;
    }
    fputs(".\n", out);
  }
  for (int k = 0; k < n; k++) rp_free_names(names[k], s->nrows);
  free(names);
  free(shown);
  free(all);
}

/* Text with the section ids it cites ("(kernel_category_sum)",
** "sync_sum.pct_window") linked to their headings. */
static void put_linked(FILE *out, const rp_report *r, const char *text) {
  const char *p = text;
  while (*p) {
    const rp_section *hit = rp_cited_section(r, text, p);
    if (!hit) {
      fputc(*p++, out);
      continue;
    }
    fprintf(out, "[%s](#%s)", hit->id, hit->id);
    p += strlen(hit->id);
  }
}

/* A finding's subjects (a JSON array of flat objects, from findings.sql)
** as one line: "rank 7, label worker7, gpu_idle_pct 78.7%; rank 2, ...".
** Names in full (escaped), *_ns keys shown as durations. */
static void put_subjects(FILE *out, const char *json) {
  char err[128];
  yajl_val doc = yajl_tree_parse(json, err, sizeof err);
  if (!doc || !YAJL_IS_ARRAY(doc) || doc->u.array.len == 0) {
    yajl_tree_free(doc);
    return;
  }
  fputs("- **Subjects:** ", out);
  /* At most SUBJECTS_MAX (a job of 1024 ranks may have hundreds of late
  ** ranks); the JSON has them all. */
  for (size_t i = 0; i < doc->u.array.len; i++) {
    if (i == SUBJECTS_MAX) {
      fprintf(out, "; and %zu more (JSON)", doc->u.array.len - i);
      break;
    }
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
        put_escaped(out, v->u.string);
      } else if (YAJL_IS_NUMBER(v)) {
        double d = YAJL_IS_INTEGER(v) ? (double)YAJL_GET_INTEGER(v) : YAJL_GET_DOUBLE(v);
        if (n > 3 && !strcmp(key + n - 3, "_ns"))
          profdb_humanize_ns(buf, sizeof buf, d);
        else if (!strcmp(key, "size"))
          profdb_humanize_bytes(buf, sizeof buf, d);
        else if (n > 4 && !strcmp(key + n - 4, "_pct"))
          snprintf(buf, sizeof buf, "%.1f%%", d);
        else
          snprintf(buf, sizeof buf, "%.15g", d);
        fputs(buf, out);
      }
    }
  }
  fputc('\n', out);
  yajl_tree_free(doc);
}

static void write_findings(FILE *out, const rp_report *rep, const rp_section *f) {
  fputs("## Findings, by expected impact\n\n", out);
  if (f->skipped || f->nrows == 0) {
    fputs("No finding: no rule of queries/findings/ applies to this data.\n\n", out);
    return;
  }
  fprintf(out, "_%s_\n\n", RP_JOB_STEP_NOTE);
  for (int r = 0; r < f->nrows; r++) {
    const char *conf = rp_text_of(f, r, "confidence");
    fprintf(out, "### %d. %s\n\n", r + 1, rp_text_of(f, r, "title"));
    static const char *const parts[][2] = {{"Observation", "observation"},
                                           {"Hypothesis", "hypothesis"},
                                           {"Action", "action"},
                                           {"Expected impact", "expected_impact"},
                                           {"Validation", "validation"}};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
      fprintf(out, "- **%s:** ", parts[k][0]);
      put_linked(out, rep, rp_text_of(f, r, parts[k][1]));
      fputc('\n', out);
      if (k == 0) put_subjects(out, rp_text_of(f, r, "subjects"));
    }
    fprintf(out, "- **Confidence:** %s (rule `%s`)\n\n", conf, rp_text_of(f, r, "id"));
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
    fprintf(out, "- **%s:** %s\n", rp_text_of(f, r, "topic"), rp_text_of(f, r, "statement"));
  fputc('\n', out);
}

/* The gate's verdict, the first line of the diff: PASS, or FAIL with the
** failing checks and what they measured. */
static void write_gate_line(FILE *out, const rp_section *g) {
  int passed = rp_col_index(g, "passed");
  int failed = 0, unjudged = 0;
  for (int i = 0; i < g->nrows; i++) {
    const rp_value *v = rp_cell(g, i, passed);
    if (v->type == SQLITE_NULL)
      unjudged++;
    else if (v->i == 0)
      fprintf(out, "%s`%s` (measured %s)", failed++ ? "; " : "**FAIL:** ",
              rp_text_of(g, i, "rule"), rp_text_of(g, i, "measured"));
  }
  if (!failed) fprintf(out, "**PASS:** %d of %d checks passed", g->nrows - unjudged, g->nrows);
  if (unjudged) fprintf(out, " (%d not evaluated: no data)", unjudged);
  fputs("\n\n", out);
}

/* The gate's table: each check with its before and after in their units,
** what it measured, whether it passed and why not evaluated; the step
** time checks' noise test once below (it is the same for each).  Every
** column is in the HTML, the JSON and gate.csv. */
static void write_gate_table(FILE *out, const rp_section *g) {
  fputs(
      "| check | before | after | measured | passed | note |\n"
      "|---|---:|---:|---:|---|---|\n",
      out);
  const char *noise = NULL;
  for (int i = 0; i < g->nrows; i++) {
    const char *unit = rp_text_of(g, i, "unit");
    char b[64], a[64];
    rp_format_gate_value(b, sizeof b, unit, rp_cell(g, i, rp_col_index(g, "before")));
    rp_format_gate_value(a, sizeof a, unit, rp_cell(g, i, rp_col_index(g, "after")));
    const char *verdict = rp_gate_verdict(g, i);
    fputs("| ", out);
    put_code(out, rp_text_of(g, i, "rule"));
    fprintf(out, " | %s | %s | ", b, a);
    put_escaped(out, rp_text_of(g, i, "measured"));
    fprintf(out, rp_gate_outcome(g, i) == RP_FAILED ? " | **%s** | " : " | %s | ", verdict);
    put_escaped(out, rp_text_of(g, i, "note"));
    fputs(" |\n", out);
    const rp_value *nv = rp_cell(g, i, rp_col_index(g, "noise"));
    if (!noise && nv->type == SQLITE_TEXT) noise = nv->s;
  }
  if (noise) {
    /* without the row's "; significance required" */
    char *text = strdup(noise), *cut;
    if (!text) ld_oom();
    if ((cut = strstr(text, "; significance required"))) *cut = 0;
    fputs("\nStep time checks, noise test: ", out);
    put_escaped(out, text);
    fputs(".\n", out);
    free(text);
  }
  fputs("\nMore columns in the HTML and JSON output: metric, unit, change, limit, noise.\n",
        out);
}

void rp_write_markdown(const rp_report *r, FILE *out, const char *const *charts, int ncharts) {
  if (r->with_gate) write_gate_line(out, &r->gate);
  fprintf(out, "# %s\n\n", r->kind->title);
  if (r->kind == &rp_kind_diff && r->ninputs == 2) {
    fputs("- Before: ", out);
    put_code(out, r->inputs[0]);
    fputs(" (attached as base)\n- After: ", out);
    put_code(out, r->inputs[1]);
    fputs(" (main)\n", out);
  } else {
    fputs("- Inputs:", out);
    for (int i = 0; i < r->ninputs; i++) fputc(' ', out), put_code(out, r->inputs[i]);
    fputc('\n', out);
  }
  if (r->scope_note) { /* names snapshots and traces by their file names */
    fputs("- Scope: ", out);
    put_escaped(out, r->scope_note);
    fputc('\n', out);
  }
  fprintf(out,
          "- Each column's unit is in its header. Times are durations on the traces' clocks;\n"
          "  sizes in binary units (GiB = 2^30 bytes). The HTML and JSON outputs have every\n"
          "  column, the JSON every figure exact (ns, bytes).\n\n");
  if (r->with_findings) {
    if (r->kind->bullets)
      write_bullets(out, &r->findings);
    else
      write_findings(out, r, &r->findings);
  }
  if (r->with_gate) {
    fputs("## Gate\n\n", out);
    write_gate_table(out, &r->gate);
    fputc('\n', out);
  }
  const char *group = NULL;
  for (int i = 0; i < r->nsections; i++) {
    const rp_section *s = &r->sections[i];
    if (s->skipped) continue; /* listed under "Not available" */
    if (!group || strcmp(group, s->group)) {
      group = s->group;
      if (*group) fprintf(out, "## %s\n\n", group);
    }
    fprintf(out, "<a id=\"%s\"></a>\n\n### %s \xC2\xB7 `%s`\n\n", s->id, s->title, s->id);
    if (s->question) fprintf(out, "_%s_\n\n", s->question);
    const char *scope = rp_section_scope(r, s);
    if (scope)
      fprintf(out, "Scope: %s.\n\n",
              !strcmp(scope, "snapshot") ? "the memory snapshot"
              : !strcmp(scope, "trace")  ? "the whole trace (--scope trace)"
              : !strcmp(scope, "hta")    ? "the whole trace, GPU work launched before the last"
                                           " ProfilerStep (--scope hta)"
                                         : "the analysed steps (--scope steps)");
    write_table(out, s);
    fputc('\n', out);
    /* Chart files are named <report>.<section id>[.<part>].svg. */
    char key[300];
    snprintf(key, sizeof key, ".%s.", s->id);
    for (int k = 0; k < ncharts; k++)
      if (strstr(charts[k], key)) fprintf(out, "![%s](%s)\n\n", s->title, charts[k]);
  }
  /* One line per reason, naming the sections it applies to. */
  int skipped = 0;
  const rp_section **same = calloc((size_t)r->nsections + 1, sizeof *same);
  if (!same) ld_oom();
  for (int i = 0; i < r->nsections; i++) {
    int n = rp_reason_group(r, i, same);
    if (n == 0) continue;
    if (!skipped++) fputs("## Not available\n\n", out);
    /* The reason, then its sections, wrapped (continuation lines of the
    ** same list item) so that no line runs off the screen. */
    fprintf(out, "- %s:\n ", rp_skip_reason(same[0]));
    int width = 1;
    for (int k = 0; k < n; k++) {
      char item[600];
      int len = snprintf(item, sizeof item, " <a id=\"%s\"></a>%s (`%s`)%s", same[k]->id,
                         same[k]->title, same[k]->id, k + 1 < n ? "," : "");
      if (width > 1 && width + len > 100) {
        fputs("\n ", out);
        width = 1;
      }
      fputs(item, out);
      width += len;
    }
    fputc('\n', out);
  }
  free(same);
  if (skipped) fputc('\n', out);
}
