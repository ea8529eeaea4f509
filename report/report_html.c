/*
** report_html.c — the report as one self-contained HTML file.
**
** Requirement 1: nothing is fetched, ever: styles and the sorting script
**   are inline, charts are inline SVG (without the namespace URL), fonts
**   are the system's.  The file works offline and as a CI artifact.
** Requirement 2: findings (or the diff's verdict) first, then a table of
**   contents, then each section collapsible (<details>), then the
**   sections without data under "Not available" with their reasons.
** Requirement 3: tables show every column (the Markdown shows a brief
**   subset), the naming column first with the full name on hover, numbers
**   right-aligned in one unit per column named in the header
**   (report_format.c); clicking a header sorts by the exact value.
** Requirement 4: light and dark (prefers-color-scheme); printing opens
**   every section and drops the navigation.
*/
#include "report.h"
#include "oom.h"

#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_CHARS 90 /* characters of a name cell (the full name on hover) */

static const char style[] =
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;"
    "--head:#f6f8fa;--accent:#0969da;--high:#cf222e;--medium:#9a6700;--low:#59636e}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;"
    "--line:#3d444d;--head:#151b23;--accent:#4493f8;--high:#f85149;--medium:#d29922;"
    "--low:#9198a1}}\n"
    "body{margin:0 auto;max-width:1280px;padding:1rem 1.5rem 3rem;background:var(--bg);"
    "color:var(--fg);font:14px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif}\n"
    "h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.3rem;border-bottom:1px solid "
    "var(--line);"
    "padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.05rem;display:inline;margin:0}\n"
    "a{color:var(--accent)}code{font-size:.85em;color:var(--muted)}\n"
    ".meta{color:var(--muted);margin:0;padding-left:1.2rem}\n"
    "nav{border:1px solid var(--line);border-radius:6px;padding:.4rem 1rem;margin:1rem 0;"
    "columns:2 22rem}nav ul{margin:.2rem 0;padding-left:1.2rem}nav h4{margin:.3rem 0}\n"
    ".finding{border:1px solid var(--line);border-left:4px solid var(--c,var(--line));"
    "border-radius:6px;padding:.5rem 1rem;margin:.8rem 0}\n"
    ".finding.high{--c:var(--high)}.finding.medium{--c:var(--medium)}.finding.low{--c:var(--"
    "low)}\n"
    ".finding dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem "
    "1rem;margin:.4rem 0}"
    ".finding dt{font-weight:600}.finding dd{margin:0}\n"
    ".badge{font-size:.8em;border:1px solid var(--c,var(--line));color:var(--c,var(--fg));"
    "border-radius:1em;padding:0 .5em;margin-left:.5em}\n"
    "details{margin:1rem 0}summary{cursor:pointer}summary code{margin-left:.5em}\n"
    ".q{color:var(--muted);font-style:italic;margin:.3rem 0}\n"
    ".scroll{overflow-x:auto}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:.4rem 0}\n"
    "th,td{padding:.2rem .6rem;border-bottom:1px solid var(--line);text-align:left;"
    "white-space:nowrap}\n"
    "th{background:var(--head);cursor:pointer;user-select:none}\n"
    ".num{text-align:right}td.name{max-width:44rem;overflow:hidden;text-overflow:ellipsis}\n"
    "th[aria-sort=ascending]::after{content:' \\25B2'}"
    "th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "tbody tr:hover{background:var(--head)}\n"
    "svg.chart{display:block;max-width:100%;height:auto;margin:.6rem 0;color:var(--fg)}"
    "svg.chart text{fill:currentColor}\n"
    "@media print{nav{display:none}body{max-width:none;padding:0}.scroll{overflow:visible}"
    "summary{list-style:none}details,section,.finding{break-inside:avoid-page}"
    "th{cursor:auto}}\n";

/* Sort a table by a clicked header: numbers by their exact value (data-v),
** text by its content; open every section before printing. */
static const char script[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th){\n"
    "  th.tabIndex=0;th.addEventListener('click',function(){\n"
    "    var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,"
    "asc=th.getAttribute('aria-sort')!=='ascending';\n"
    "    t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort')});\n"
    "    th.setAttribute('aria-sort',asc?'ascending':'descending');\n"
    "    var key=function(c){var v=c.getAttribute('data-v');"
    "return v===null?c.textContent:v===''?-Infinity:parseFloat(v)};\n"
    "    Array.prototype.slice.call(b.rows).sort(function(x,y){\n"
    "      var p=key(x.cells[i]),q=key(y.cells[i]);"
    "var r=typeof p==='number'?p-q:String(p).localeCompare(String(q));return asc?r:-r;\n"
    "    }).forEach(function(r){b.appendChild(r)});});});\n"
    "window.addEventListener('beforeprint',function(){"
    "document.querySelectorAll('details').forEach(function(d){d.open=true})});\n";

static void esc(FILE *out, const char *s) {
  for (const char *p = s ? s : ""; *p; p++) {
    switch (*p) {
      case '<': fputs("&lt;", out); break;
      case '>': fputs("&gt;", out); break;
      case '&': fputs("&amp;", out); break;
      case '"': fputs("&quot;", out); break;
      default: fputc(*p, out);
    }
  }
}

/* Text with the section ids it cites linked to their sections. */
static void put_linked(FILE *out, const rp_report *r, const char *text) {
  const char *p = text ? text : "";
  while (*p) {
    const rp_section *hit = rp_cited_section(r, text, p);
    if (!hit) {
      char c[2] = {*p++, 0};
      esc(out, c);
      continue;
    }
    fprintf(out, "<a href=\"#%s\">%s</a>", hit->id, hit->id);
    p += strlen(hit->id);
  }
}

/* s as one shell word: as it is when it needs no quoting, else in single
** quotes (HTML-escaped either way). */
static void put_shell_word(FILE *out, const char *s) {
  int plain = *s != 0;
  for (const char *p = s; *p && plain; p++)
    plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+=:,@%",
                   *p) != NULL;
  if (plain) {
    esc(out, s);
    return;
  }
  fputc('\'', out);
  for (const char *p = s; *p; p++) {
    char c[2] = {*p, 0};
    if (*p == '\'')
      fputs("'\\''", out);
    else
      esc(out, c);
  }
  fputc('\'', out);
}

/* The integer after "key": in a finding's subjects (JSON text), or -1. */
static long long subject_int(const char *subjects, const char *key) {
  const char *p = subjects ? strstr(subjects, key) : NULL;
  if (!p) return -1;
  p += strlen(key);
  while (*p == ' ') p++;
  return *p >= '0' && *p <= '9' ? strtoll(p, NULL, 10) : -1;
}

/* Finding i's command that exports what it names (issue 28): for a memory
** finding (its subjects name a snapshot) a memory_viz window around that
** snapshot's peak, else a Chrome-trace slice of its ranks and step
** (`--finding RULE`, or its number when the rule repeats; for a dataset,
** whose summaries hold not every event, the same on the dataset, which
** loads the traces it names again: r->opens says whether there are any).  None for the rules about missing
** data (need_*). */
static void write_export_command(FILE *out, const rp_report *r, int i) {
  const rp_section *f = &r->findings;
  const char *rule = rp_text_of(f, i, "rule"), *subjects = rp_text_of(f, i, "subjects");
  if (!*rule || !strncmp(rule, "need_", 5)) return;
  long long snap = subject_int(subjects, "\"snapshot\":"),
            dev = subject_int(subjects, "\"device\":");
  int repeats = 0;
  for (int k = 0; k < f->nrows; k++) repeats += !strcmp(rp_text_of(f, k, "rule"), rule);
  const rp_open *ds = r->opens && snap < 0 ? &r->opens[i] : NULL;
  if (ds && !ds->npaths) return;
  fputs("<dt>Open it</dt><dd><code>", out);
  if (!r->db_path && !ds) { /* first make the database it exports from */
    fputs("profdb load", out);
    for (int k = 0; k < r->ninputs; k++) {
      fputc(' ', out);
      put_shell_word(out, r->inputs[k]);
    }
    fputs(" -o run.db &amp;&amp; ", out);
  }
  fputs("profdb export ", out);
  /* a dataset: the export reads it and loads again the traces it names */
  put_shell_word(out, ds ? r->inputs[0] : r->db_path ? r->db_path : "run.db");
  if (snap >= 0)
    fprintf(out, " --format memory_viz --snapshot %lld --device %lld --at-peak -o %s.pickle",
            snap, dev < 0 ? 0 : dev, rule);
  else if (repeats > 1)
    fprintf(out, " --format chrome --finding %d", i + 1);
  else
    fprintf(out, " --format chrome --finding %s", rule);
  if (snap < 0 && repeats > 1)
    fprintf(out, " -o finding%d.json", i + 1);
  else if (snap < 0)
    fprintf(out, " -o %s.json", rule);
  fputs(snap >= 0 ? "</code>: the allocator's events around the memory peak, for"
                    " PyTorch's memory viewer (pytorch.org/memory_viz)"
                  : "</code>: a step the report analysed, on the ranks that show the"
                    " finding (at most --max-ranks), for Perfetto UI"
                    " (ui.perfetto.dev) or chrome://tracing",
        out);
  int relative = 0;
  for (int k = 0; ds && k < ds->npaths; k++) relative |= ds->paths[k][0] != '/';
  if (relative) /* as the export was given them: its folder is not recorded */
    fputs("; run it in the folder the export ran in (the traces' paths are relative)", out);
  fputs("</dd>", out);
}

static void write_findings(FILE *out, const rp_report *r) {
  const rp_section *f = &r->findings;
  fputs("<section id=\"findings\"><h2>Findings, by expected impact</h2>\n", out);
  if (f->skipped || f->nrows == 0)
    fputs("<p>No finding: no rule of queries/findings/ applies to this data.</p>\n", out);
  else
    fprintf(out, "<p class=\"q\">%s</p>\n", RP_JOB_STEP_NOTE);
  static const char *const parts[][2] = {{"Observation", "observation"},
                                         {"Hypothesis", "hypothesis"},
                                         {"Action", "action"},
                                         {"Expected impact", "expected_impact"},
                                         {"Validation", "validation"}};
  for (int i = 0; i < f->nrows; i++) {
    const char *conf = rp_text_of(f, i, "confidence");
    fputs("<article class=\"finding ", out);
    esc(out, conf);
    fprintf(out, "\"><h3>%d. %s", i + 1, !strcmp(conf, "low") ? "Hypothesis: " : "");
    esc(out, rp_text_of(f, i, "title"));
    fputs("</h3><span class=\"badge\">", out);
    esc(out, conf);
    fputs(" confidence</span> <code>", out);
    esc(out, rp_text_of(f, i, "id"));
    fputs("</code>\n<dl>", out);
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
      fprintf(out, "<dt>%s</dt><dd>", parts[k][0]);
      put_linked(out, r, rp_text_of(f, i, parts[k][1]));
      fputs("</dd>", out);
    }
    write_export_command(out, r, i);
    fputs("</dl></article>\n", out);
  }
  fputs("</section>\n", out);
}

/* The gate (with --fail-if / --gate), inside the verdict's section: the
** PASS / FAIL line the Markdown starts with, then every check with its
** before and after in their units (the exact value in data-v). */
static void write_gate(FILE *out, const rp_section *g) {
  int failed = 0, unjudged = 0;
  for (int i = 0; i < g->nrows; i++) {
    rp_verdict v = rp_gate_outcome(g, i);
    failed += v == RP_FAILED;
    unjudged += v == RP_NOT_EVALUATED;
  }
  fputs("<h3 id=\"gate\">Gate</h3>\n<p class=\"gate\">", out);
  if (failed) {
    fputs("<strong>FAIL:</strong> ", out);
    for (int i = 0, k = 0; i < g->nrows; i++) {
      if (rp_gate_outcome(g, i) != RP_FAILED) continue;
      fputs(k++ ? "; <code>" : "<code>", out);
      esc(out, rp_text_of(g, i, "rule"));
      fputs("</code> (measured ", out);
      esc(out, rp_text_of(g, i, "measured"));
      fputs(")", out);
    }
  } else {
    fprintf(out, "<strong>PASS:</strong> %d of %d checks passed", g->nrows - unjudged,
            g->nrows);
  }
  if (unjudged) fprintf(out, " (%d not evaluated: no data)", unjudged);
  fputs(
      "</p>\n<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>check</th>"
      "<th class=\"num\">before</th><th class=\"num\">after</th><th class=\"num\">change</th>"
      "<th>measured</th><th>passed</th><th>noise</th><th>note</th></tr></thead>\n<tbody>\n",
      out);
  static const char *const nums[] = {"before", "after", "change"};
  for (int i = 0; i < g->nrows; i++) {
    fputs("<tr><td class=\"name\" title=\"", out);
    esc(out, rp_text_of(g, i, "metric"));
    fputs("\"><code>", out);
    esc(out, rp_text_of(g, i, "rule"));
    fputs("</code></td>", out);
    for (int k = 0; k < 3; k++) {
      const rp_value *v = rp_cell(g, i, rp_col_index(g, nums[k]));
      char cell[64];
      fputs("<td class=\"num\" data-v=\"", out);
      if (v->type == SQLITE_INTEGER)
        fprintf(out, "%lld", v->i);
      else if (v->type == SQLITE_FLOAT)
        fprintf(out, "%.17g", v->d);
      fputs("\">", out);
      if (k < 2)
        rp_format_gate_value(cell, sizeof cell, rp_text_of(g, i, "unit"), v);
      else if (v->type == SQLITE_NULL) /* in the limit's units: measured says which */
        cell[0] = 0;
      else
        snprintf(cell, sizeof cell, "%.2f", v->type == SQLITE_INTEGER ? (double)v->i : v->d);
      esc(out, cell);
      fputs("</td>", out);
    }
    fputs("<td>", out);
    esc(out, rp_text_of(g, i, "measured"));
    fputs(rp_gate_outcome(g, i) == RP_FAILED ? "</td><td><strong>" : "</td><td>", out);
    esc(out, rp_gate_verdict(g, i));
    /* the sentences wrap */
    fputs(rp_gate_outcome(g, i) == RP_FAILED ? "</strong></td><td style=\"white-space:normal\">"
                                             : "</td><td style=\"white-space:normal\">",
          out);
    esc(out, rp_text_of(g, i, "noise"));
    fputs("</td><td style=\"white-space:normal\">", out);
    esc(out, rp_text_of(g, i, "note"));
    fputs("</td></tr>\n", out);
  }
  fputs("</tbody></table></div>\n", out);
}

static void write_verdict(FILE *out, const rp_report *r) {
  const rp_section *f = &r->findings;
  fputs("<section id=\"verdict\"><h2>Verdict</h2>\n", out);
  if (f->skipped || f->nrows == 0) {
    fputs("<p>", out);
    esc(out, f->note ? f->note : "Nothing to compare.");
    fputs("</p>\n", out);
  } else {
    fputs("<ul>\n", out);
    for (int i = 0; i < f->nrows; i++) {
      fputs("<li><strong>", out);
      esc(out, rp_text_of(f, i, "topic"));
      fputs(":</strong> ", out);
      put_linked(out, r, rp_text_of(f, i, "statement"));
      fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
  }
  if (r->with_gate) write_gate(out, &r->gate);
  fputs("</section>\n", out);
}

static void write_toc(FILE *out, const rp_report *r) {
  fputs("<nav aria-label=\"Contents\"><h4>Contents</h4><ul>\n", out);
  if (r->with_findings)
    fprintf(out, "<li><a href=\"#%s\">%s</a></li>\n", r->kind->summary_key,
            r->kind->bullets ? "Verdict" : "Findings");
  const char *group = NULL;
  int open = 0, skipped = 0;
  for (int i = 0; i < r->nsections; i++) {
    const rp_section *s = &r->sections[i];
    if (s->skipped) {
      skipped++;
      continue;
    }
    if (!group || strcmp(group, s->group)) {
      group = s->group;
      if (open) fputs("</ul></li>\n", out);
      fputs("<li>", out);
      esc(out, *group ? group : "Sections");
      fputs("<ul>\n", out);
      open = 1;
    }
    fprintf(out, "<li><a href=\"#%s\">", s->id);
    esc(out, s->title);
    fputs("</a></li>\n", out);
  }
  if (open) fputs("</ul></li>\n", out);
  if (skipped)
    fprintf(out, "<li><a href=\"#not-available\">Not available (%d)</a></li>\n", skipped);
  fputs("</ul></nav>\n", out);
}

static void write_rows(FILE *out, const rp_section *s);

/* A section of more than RP_RANKS_MAX ranks: the Markdown's cross-rank
** summary (report_ranks.c: each figure's min, median and max with the ranks
** holding them, then the outlying rows), and every row one click away,
** folded (the step chart becomes a distribution). */
static void write_rank_summary(FILE *out, const rp_section *s) {
  rp_rank_summary m;
  rp_rank_summary_make(s, &m);
  const char *who = m.who;
  fprintf(out,
          "<p class=\"q\">%d rows over %d %ss: each figure across %s (min, median, max and the"
          " %s holding each).</p>\n",
          s->nrows, m.ranks, who, m.has_all ? "the devices' <code>all</code> rows" : "them",
          who);
  fprintf(out,
          "<div class=\"scroll\"><table class=\"ranks sortable\"><thead><tr><th>figure</th>"
          "<th class=\"num\">min</th><th class=\"num\">%s</th><th class=\"num\">median</th>"
          "<th class=\"num\">%s</th><th class=\"num\">max</th><th class=\"num\">%s</th>"
          "</tr></thead>\n<tbody>\n",
          who, who, who);
  for (int k = 0; k < m.nfig; k++) {
    const rp_rank_figure *f = &m.fig[k];
    char cell[128];
    rp_value mv = {SQLITE_FLOAT, 0, f->median, NULL};
    const rp_value *vals[3] = {rp_cell(s, f->lo, f->view->col), &mv,
                               rp_cell(s, f->hi, f->view->col)};
    const int rows[3] = {f->lo, f->mid, f->hi};
    fputs("<tr><td>", out);
    esc(out, f->view->header);
    fputs("</td>", out);
    for (int j = 0; j < 3; j++) {
      rp_format_cell(cell, sizeof cell, f->view, vals[j]);
      fputs("<td class=\"num\">", out);
      esc(out, cell);
      fputs("</td><td class=\"num\">", out);
      esc(out, rp_rank_text(cell, sizeof cell, s, rows[j], m.rank_col));
      fputs("</td>", out);
    }
    fputs("</tr>\n", out);
  }
  fputs("</tbody></table></div>\n", out);
  char line[256];
  fputs("<p>", out);
  esc(out, rp_rank_outliers_text(line, sizeof line, &m));
  fputs("</p>\n", out);
  if (m.kept) {
    rp_section sub = rp_rank_outlier_rows(s, &m);
    write_rows(out, &sub);
    free(sub.cells); /* the values are s's */
  }
  rp_rank_summary_free(&m);
}

static void write_table(FILE *out, const rp_section *s) {
  int ranks = rp_rank_count(s, rp_rank_column(s));
  if (ranks <= RP_RANKS_MAX) {
    write_rows(out, s);
    return;
  }
  write_rank_summary(out, s);
  fprintf(out, "<details><summary>All %d rows, over %d ranks</summary>\n", s->nrows, ranks);
  write_rows(out, s);
  fputs("</details>\n", out);
}

static void write_rows(FILE *out, const rp_section *s) {
  rp_colview *views = calloc((size_t)s->ncols + 1, sizeof *views);
  char ***names = calloc((size_t)s->ncols + 1, sizeof *names);
  if (!views || !names) ld_oom();
  int n = rp_column_views(s, views, s->ncols);
  for (int k = 0; k < n; k++)
    if (rp_is_name_unit(s->cols[views[k].col].unit))
      names[k] = rp_short_names(s, views[k].col, NAME_MAX_CHARS);
  fputs("<div class=\"scroll\"><table class=\"sortable\"><thead><tr>", out);
  for (int k = 0; k < n; k++) {
    fprintf(out, "<th%s title=\"", views[k].numeric ? " class=\"num\"" : "");
    esc(out, s->cols[views[k].col].name);
    fputs(": ", out);
    esc(out, s->cols[views[k].col].doc);
    fputs("\">", out);
    esc(out, views[k].header);
    fputs("</th>", out);
  }
  fputs("</tr></thead>\n<tbody>\n", out);
  for (int r = 0; r < s->nrows; r++) {
    fputs("<tr>", out);
    for (int k = 0; k < n; k++) {
      const rp_value *v = rp_cell(s, r, views[k].col);
      if (names[k]) {
        fputs("<td class=\"name\" title=\"", out);
        esc(out, v->type == SQLITE_TEXT ? v->s : "");
        fputs("\">", out);
        esc(out, names[k][r]);
      } else if (views[k].numeric) {
        fputs("<td class=\"num\" data-v=\"", out);
        if (v->type == SQLITE_INTEGER)
          fprintf(out, "%lld", v->i);
        else if (v->type == SQLITE_FLOAT)
          fprintf(out, "%.17g", v->d);
        fputs("\">", out);
        char cell[128];
        rp_colview view = views[k];
        view.delta |= rp_row_is_delta(s, r);
        rp_format_cell(cell, sizeof cell, &view, v);
        esc(out, cell);
      } else {
        char cell[4096];
        rp_format_cell(cell, sizeof cell, &views[k], v);
        fputs("<td>", out);
        esc(out, cell);
      }
      fputs("</td>", out);
    }
    fputs("</tr>\n", out);
  }
  fputs("</tbody></table></div>\n", out);
  for (int k = 0; k < n; k++) rp_free_names(names[k], s->nrows);
  free(names);
  free(views);
}

static void write_charts(FILE *out, const rp_section *s) {
  for (int part = 0;; part++) {
    ld_buf b = {0};
    char name[128];
    int drawn = rp_chart_svg_part(s, part, &b, 1, name, sizeof name);
    if (drawn) fwrite(b.p, 1, b.n, out);
    ld_buf_free(&b);
    if (!drawn) break;
  }
}

void rp_write_html(const rp_report *r, FILE *out) {
  fputs(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"profdb " PROFDB_VERSION "\">\n<title>",
      out);
  esc(out, r->kind->title);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>", style);
  esc(out, r->kind->title);
  fputs("</h1>\n<ul class=\"meta\">\n", out);
  if (r->kind == &rp_kind_diff && r->ninputs == 2) {
    fputs("<li>Before: <code>", out);
    esc(out, r->inputs[0]);
    fputs("</code></li>\n<li>After: <code>", out);
    esc(out, r->inputs[1]);
    fputs("</code></li>\n", out);
  } else {
    fputs("<li>Inputs:", out);
    for (int i = 0; i < r->ninputs; i++) {
      fputs(" <code>", out);
      esc(out, r->inputs[i]);
      fputs("</code>", out);
    }
    fputs("</li>\n", out);
  }
  if (r->scope_note) {
    fputs("<li>Scope: ", out);
    esc(out, r->scope_note);
    fputs("</li>\n", out);
  }
  fputs(
      "<li>Times are durations on the traces' clocks, sizes in binary units (GiB = 2^30"
      " bytes); each column's unit is in its header. Click a header to sort; the JSON"
      " output has every figure exact.</li>\n</ul>\n</header>\n<main>\n",
      out);
  if (r->with_findings) {
    if (r->kind->bullets)
      write_verdict(out, r);
    else
      write_findings(out, r);
  }
  if (r->with_gate && !(r->with_findings && r->kind->bullets)) write_gate(out, &r->gate);
  write_toc(out, r);
  const char *group = NULL;
  for (int i = 0; i < r->nsections; i++) {
    const rp_section *s = &r->sections[i];
    if (s->skipped) continue;
    if (!group || strcmp(group, s->group)) {
      group = s->group;
      if (*group) {
        fputs("<h2>", out);
        esc(out, group);
        fputs("</h2>\n", out);
      }
    }
    fprintf(out, "<section id=\"%s\"><details open><summary><h3>", s->id);
    esc(out, s->title);
    fprintf(out, "</h3><code>%s</code></summary>\n", s->id);
    if (s->question) {
      fputs("<p class=\"q\">", out);
      esc(out, s->question);
      fputs("</p>\n", out);
    }
    write_table(out, s);
    write_charts(out, s);
    fputs("</details></section>\n", out);
  }
  /* One item per reason, naming the sections it applies to. */
  int skipped = 0;
  const rp_section **same = calloc((size_t)r->nsections + 1, sizeof *same);
  if (!same) ld_oom();
  for (int i = 0; i < r->nsections; i++) {
    int n = rp_reason_group(r, i, same);
    if (n == 0) continue;
    if (!skipped++) fputs("<section id=\"not-available\"><h2>Not available</h2>\n<ul>\n", out);
    fputs("<li><strong>", out);
    esc(out, rp_skip_reason(same[0]));
    fputs(":</strong> ", out);
    for (int k = 0; k < n; k++) {
      fprintf(out, "%s<span id=\"%s\">", k ? ", " : "", same[k]->id);
      esc(out, same[k]->title);
      fprintf(out, " <code>%s</code></span>", same[k]->id);
    }
    fputs("</li>\n", out);
  }
  free(same);
  if (skipped) fputs("</ul>\n</section>\n", out);
  fprintf(out, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", script);
}
