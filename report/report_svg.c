/*
** report_svg.c — plain SVG charts of sections that declare one.
**
** A query file's header names its chart; the data are the section's rows,
** or the rows of a chart query file (data=), never SQL of this file:
**
**   -- Chart: stack x=label,step parts=kernel_ns,memcpy_ns,...
**        stacked bars, one per row; the last x column labels each bar, the
**        first (when there are two) each group of bars (a rank)
**   -- Chart: bars x=category y=pct
**        horizontal bars, one per row (at most BARS_MAX)
**   -- Chart: panels x=run lines=step_time_ns,gpu_util_pct mark=first_failure
**        one line panel per `lines` column, rows along x (a series of
**        runs); a NULL breaks the line; the first row with a text in the
**        `mark` column is marked
**   -- Chart: timeline data=charts/mem_timeline.sql
**        lines over time (or over events): one chart per `part` of the
**        data rows (part, title, seq, time_us, low, high, reserved,
**        peak, peak_seq, step), with the peak marked and a dashed line
**        where a row names a step (a trace of the same run)
**
** Requirement 1: value axes have round ticks (1, 2 or 5 times a power of
**   ten of the unit shown) and start at zero.
** Requirement 2: the legend lists the parts top to bottom as they are
**   stacked, without the parts that are zero in every bar.
** Requirement 3: text never overlaps the plot's data: bar labels are cut
**   to their slot, the peak is named in the legend, not next to its mark.
** Coordinates have fixed decimals, so the files are deterministic.  Inline
** charts (in the HTML) take their colours from the page (dark mode).
*/
#include "report.h"
#include "oom.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 860
#define H 380
#define LEFT 80
#define RIGHT 190
#define TOP 40
#define BOTTOM 64
#define BARS_MAX 12
#define STACK_MAX 64
#define BAR_MAX 90
#define PARTS_MAX 16
#define DIST_BINS 24 /* bins of that distribution */

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#bab0ac", "#ff9da7", "#9c755f"};

static void svgf(ld_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void svgf(ld_buf *b, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) ld_buf_put(b, tmp, (size_t)(n < (int)sizeof tmp ? n : (int)sizeof tmp - 1));
}

static void put_text(ld_buf *b, const char *text) {
  for (const char *p = text; *p; p++) {
    if (*p == '<')
      ld_buf_put(b, "&lt;", 4);
    else if (*p == '>')
      ld_buf_put(b, "&gt;", 4);
    else if (*p == '&')
      ld_buf_put(b, "&amp;", 5);
    else
      ld_buf_putc(b, *p);
  }
}

static void svg_text(ld_buf *b, double x, double y, const char *anchor, const char *text) {
  svgf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
  put_text(b, text);
  ld_buf_put(b, "</text>\n", 8);
}

static void svg_begin(ld_buf *b, const char *title, int inline_svg) {
  /* A file needs the namespace; HTML does not (and then names no URL). */
  svgf(b,
       "<svg %swidth=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" class=\"chart\" role=\"img\" "
       "font-family=\"sans-serif\" font-size=\"12\">\n",
       inline_svg ? "" : "xmlns=\"http://www.w3.org/2000/svg\" ", W, H, W, H);
  if (!inline_svg) svgf(b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  svgf(b, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", LEFT);
  put_text(b, title);
  ld_buf_put(b, "</text>\n", 8);
}


static double num(const rp_section *s, int row, int col) {
  if (col < 0) return 0;
  const rp_value *v = rp_cell(s, row, col);
  return v->type == SQLITE_INTEGER ? (double)v->i : v->type == SQLITE_FLOAT ? v->d : 0;
}

static void cell_text(char *out, size_t n, const rp_section *s, int row, int col) {
  const rp_value *v = col >= 0 ? rp_cell(s, row, col) : NULL;
  if (!v || v->type == SQLITE_NULL)
    snprintf(out, n, "whole trace"); /* a step of NULL */
  else if (v->type == SQLITE_TEXT)
    snprintf(out, n, "%s", v->s);
  else if (v->type == SQLITE_INTEGER)
    snprintf(out, n, "%lld", v->i);
  else
    snprintf(out, n, "%g", v->d);
}

/* A group's caption: "rank 3" for a rank column, else the value. */
static void group_text(char *out, size_t n, const rp_section *s, int row, int col) {
  const rp_value *v = col >= 0 ? rp_cell(s, row, col) : NULL;
  if (!v || v->type == SQLITE_NULL)
    out[0] = 0;
  else if (v->type == SQLITE_INTEGER && !strcmp(s->cols[col].name, "rank"))
    snprintf(out, n, "rank %lld", v->i);
  else
    cell_text(out, n, s, row, col);
}

/* Text cut to fit `chars` characters (an ellipsis marks the cut). */
static void fit(char *text, size_t chars) {
  size_t seen = 0;
  for (size_t i = 0; text[i]; i++)
    if (((unsigned char)text[i] & 0xC0) != 0x80 && seen++ == chars) {
      if (chars < 1) {
        text[0] = 0;
        return;
      }
      size_t cut = i;
      do cut--;
      while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80);
      memcpy(text + cut, "\xE2\x80\xA6", 4);
      return;
    }
}

/* ---- value axes (Requirement 1) ----------------------------------------- */

typedef struct axis {
  double scale;     /* value / scale is shown */
  const char *unit; /* "ms", "MiB", "%", "" */
  double step, top; /* in shown units */
} axis;

static double nice_step(double raw) {
  if (raw <= 0) return 1;
  double p = pow(10, floor(log10(raw))), f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static axis make_axis(double max, const char *unit) {
  axis a = {1, "", 1, 1};
  if (!strcmp(unit, "ns")) {
    int k = max >= 1e9 ? 3 : max >= 1e6 ? 2 : max >= 1e3 ? 1 : 0;
    static const char *const names[] = {"ns", "us", "ms", "s"};
    a.scale = pow(1e3, k);
    a.unit = names[k];
  } else if (!strcmp(unit, "bytes")) {
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int k = 0;
    while (k < 5 && max >= pow(1024.0, k + 1)) k++;
    a.scale = pow(1024.0, k);
    a.unit = names[k];
  } else if (!strcmp(unit, "%")) {
    a.unit = "%";
  }
  double shown = max / a.scale;
  a.step = nice_step(shown / 4);
  a.top = ceil(shown / a.step - 1e-9) * a.step;
  if (a.top <= 0) a.top = a.step;
  return a;
}

static void tick_label(char *out, size_t n, double v, const axis *a) {
  int decimals = a->step >= 1 ? 0 : (int)ceil(-log10(a->step) - 1e-9);
  snprintf(out, n, "%.*f%s%s", decimals, v, *a->unit ? " " : "", a->unit);
}

static void y_axis(ld_buf *b, const axis *a) {
  double plot_h = H - TOP - BOTTOM;
  svgf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", LEFT, TOP, LEFT,
       H - BOTTOM);
  for (int i = 0; i * a->step <= a->top + 1e-9; i++) {
    double v = i * a->step, y = H - BOTTOM - plot_h * v / a->top;
    char label[64];
    tick_label(label, sizeof label, v, a);
    svgf(b,
         "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" "
         "stroke-opacity=\"0.3\"/>\n",
         LEFT, y, W - RIGHT, y);
    svg_text(b, LEFT - 6, y + 4, "end", label);
  }
}

static void legend_entry(ld_buf *b, int slot, const char *colour, const char *label) {
  double y = TOP + 10 + slot * 20;
  svgf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
       W - RIGHT + 15, y - 10, colour);
  svg_text(b, W - RIGHT + 32, y, "start", label);
}

/* Comma-separated column names into indexes; returns how many. */
static int columns_of(const rp_section *s, const char *list, int *out, int max) {
  char copy[1024], *save;
  snprintf(copy, sizeof copy, "%s", list);
  int n = 0;
  for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
    out[n++] = rp_col_index(s, t);
  return n;
}

/* ---- distribution across ranks (issue 23) -------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* A stacked chart whose groups are ranks, with more than RP_RANKS_MAX ranks:
** one bar per rank cannot be read (1024 ranks leave a pixel each), so the
** chart becomes the distribution of the rows' totals (a rank step's time):
** how many rank steps fall in each of DIST_BINS equal bins from the
** shortest to the longest, with the shortest, median and longest named
** with the rank holding them.  Readable at any number of ranks. */
static int chart_distribution(const rp_section *s, ld_buf *b, int inline_svg, int rank_col,
                              const int *parts, int np, int ranks) {
  int n = s->nrows;
  double *tot = calloc((size_t)n + 1, sizeof *tot),
         *sorted = calloc((size_t)n + 1, sizeof *tot);
  int counts[DIST_BINS] = {0};
  if (!tot || !sorted) ld_oom();
  int lo = 0, hi = 0;
  for (int i = 0; i < n; i++) {
    for (int p = 0; p < np; p++) tot[i] += num(s, i, parts[p]);
    sorted[i] = tot[i];
    if (tot[i] < tot[lo]) lo = i;
    if (tot[i] > tot[hi]) hi = i;
  }
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
  double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  double min = tot[lo], max = tot[hi], width = (max - min) / DIST_BINS;
  int top = 0;
  for (int i = 0; i < n; i++) {
    int k = width > 0 ? (int)((tot[i] - min) / width) : DIST_BINS / 2;
    if (k >= DIST_BINS) k = DIST_BINS - 1;
    if (++counts[k] > top) top = counts[k];
  }
  const char *unit = parts[0] >= 0 ? s->cols[parts[0]].unit : "";
  axis t = make_axis(max > 0 ? max : 1, unit), c = make_axis(top, "");
  char title[300], line[300], a[64], m[64], z[64];
  snprintf(title, sizeof title, "%s: distribution over %d ranks", s->title, ranks);
  svg_begin(b, title, inline_svg);
  y_axis(b, &c);
  double plot_w = W - LEFT - RIGHT, plot_h = H - TOP - BOTTOM, slot = plot_w / DIST_BINS;
  for (int k = 0; k < DIST_BINS; k++) {
    double h = plot_h * counts[k] / c.top;
    if (h > 0)
      svgf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
           LEFT + slot * k + 1, H - BOTTOM - h, slot - 2, h, palette[0]);
    if (k % 4 == 0 || k == DIST_BINS - 1) {
      double edge = k == DIST_BINS - 1 ? max : min + width * k;
      double x = k == DIST_BINS - 1 ? LEFT + plot_w : LEFT + slot * k;
      snprintf(line, sizeof line, "%.*f", edge / t.scale >= 100 ? 0 : 2, edge / t.scale);
      svg_text(b, x, H - BOTTOM + 16, "middle", line);
    }
  }
  snprintf(a, sizeof a, "%.2f %s", min / t.scale, t.unit);
  snprintf(m, sizeof m, "%.2f %s", median / t.scale, t.unit);
  snprintf(z, sizeof z, "%.2f %s", max / t.scale, t.unit);
  snprintf(line, sizeof line,
           "%s (%s) of %d %s: shortest %s (rank %lld), median %s, longest %s (rank %lld)",
           "step time", t.unit, n, n == 1 ? "rank step" : "rank steps", a,
           rp_cell(s, lo, rank_col)->i, m, z, rp_cell(s, hi, rank_col)->i);
  svg_text(b, LEFT + plot_w / 2, H - BOTTOM + 36, "middle", line);
  svg_text(b, LEFT + plot_w / 2, H - 8, "middle",
           "rank steps per bin (one bar per range of step time)");
  legend_entry(b, 0, palette[0], "rank steps");
  free(tot);
  free(sorted);
  return 1;
}

/* ---- stacked bars ---------------------------------------------------------- */

static int chart_stack(const rp_section *s, ld_buf *b, int inline_svg) {
  char xs[256], ps[1024];
  int x[2] = {-1, -1}, parts[PARTS_MAX];
  if (!rp_chart_key(s, "x", xs, sizeof xs) || !rp_chart_key(s, "parts", ps, sizeof ps))
    return 0;
  int nx = columns_of(s, xs, x, 2), np = columns_of(s, ps, parts, PARTS_MAX);
  if (x[0] >= 0 && !strcmp(s->cols[x[0]].name, "rank")) {
    int ranks = 0;
    for (int i = 0; i < s->nrows; i++) {
      const rp_value *v = rp_cell(s, i, x[0]), *u = i ? rp_cell(s, i - 1, x[0]) : NULL;
      if (v->type == SQLITE_INTEGER && (!u || u->type != SQLITE_INTEGER || u->i != v->i))
        ranks++;
    }
    if (ranks > RP_RANKS_MAX && np > 0)
      return chart_distribution(s, b, inline_svg, x[0], parts, np, ranks);
  }
  int n = s->nrows > STACK_MAX ? STACK_MAX : s->nrows;
  double max = 0;
  int used[PARTS_MAX] = {0};
  for (int i = 0; i < n; i++) {
    double total = 0;
    for (int p = 0; p < np; p++) {
      total += num(s, i, parts[p]);
      if (num(s, i, parts[p]) > 0) used[p] = 1;
    }
    if (total > max) max = total;
  }
  if (max <= 0 || np == 0) return 0;
  const char *unit = parts[0] >= 0 ? s->cols[parts[0]].unit : "";
  axis a = make_axis(max, unit);
  svg_begin(b, s->title, inline_svg);
  y_axis(b, &a);
  double plot_w = W - LEFT - RIGHT, plot_h = H - TOP - BOTTOM, slot = plot_w / n;
  size_t label_chars = (size_t)(slot / 7.0);
  int group_start = 0;
  char group[256] = "", label[256];
  for (int i = 0; i <= n; i++) {
    /* A group (the first x column, e.g. the rank) is named once, under its bars. */
    char this_group[256] = "";
    if (nx == 2 && i < n) group_text(this_group, sizeof this_group, s, i, x[0]);
    if (nx == 2 && (i == n || strcmp(this_group, group))) {
      if (i > 0) {
        double x0 = LEFT + slot * group_start, x1 = LEFT + slot * i;
        fit(group, (size_t)((x1 - x0) / 7.0));
        svg_text(b, (x0 + x1) / 2, H - BOTTOM + 34, "middle", group);
        if (i < n)
          svgf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>\n", x1,
               H - BOTTOM, x1, H - BOTTOM + 38);
      }
      snprintf(group, sizeof group, "%s", this_group);
      group_start = i;
    }
    if (i == n) break;
    /* Bars at most BAR_MAX wide, centred in their slot. */
    double bw = slot * 0.7 < BAR_MAX ? slot * 0.7 : BAR_MAX;
    double y = H - BOTTOM, bx = LEFT + slot * i + (slot - bw) / 2;
    for (int p = 0; p < np; p++) {
      double h = plot_h * num(s, i, parts[p]) / a.scale / a.top;
      if (h <= 0) continue;
      y -= h;
      svgf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", bx,
           y, bw, h, palette[p % 10]);
    }
    cell_text(label, sizeof label, s, i, x[nx - 1]);
    fit(label, label_chars);
    svg_text(b, bx + bw / 2, H - BOTTOM + 16, "middle", label);
  }
  char axis_name[160];
  snprintf(axis_name, sizeof axis_name, "%s%s%s",
           nx == 2 && x[0] >= 0 ? s->cols[x[0]].name : "", nx == 2 ? " / " : "",
           x[nx - 1] >= 0 ? s->cols[x[nx - 1]].name : "");
  svg_text(b, LEFT + plot_w / 2, H - 8, "middle", axis_name);
  /* Requirement 2: top of the stack first, zero parts left out. */
  int slot_no = 0;
  for (int p = np - 1; p >= 0; p--) {
    if (!used[p] || parts[p] < 0) continue;
    char name[96];
    snprintf(name, sizeof name, "%s", s->cols[parts[p]].name);
    size_t len = strlen(name);
    if (len > 3 && !strcmp(name + len - 3, "_ns")) name[len - 3] = 0;
    legend_entry(b, slot_no++, palette[p % 10], name);
  }
  return 1;
}

/* ---- horizontal bars -------------------------------------------------------- */

static int chart_bars(const rp_section *s, ld_buf *b, int inline_svg) {
  char xs[128], ys[128];
  if (!rp_chart_key(s, "x", xs, sizeof xs) || !rp_chart_key(s, "y", ys, sizeof ys)) return 0;
  int xc = rp_col_index(s, xs), yc = rp_col_index(s, ys);
  int n = s->nrows > BARS_MAX ? BARS_MAX : s->nrows;
  if (n == 0 || yc < 0) return 0;
  double max = 0;
  for (int i = 0; i < n; i++)
    if (num(s, i, yc) > max) max = num(s, i, yc);
  if (max <= 0) return 0;
  axis a = make_axis(max, s->cols[yc].unit);
  svg_begin(b, s->title, inline_svg);
  /* One colour: the bars are one quantity, the labels say what each is. */
  double left = 20, label_w = 190, bar_h = (double)(H - TOP - 20) / n;
  double plot_w = W - left - label_w - 90;
  for (int i = 0; i < n; i++) {
    double y = TOP + bar_h * i, w = plot_w * num(s, i, yc) / a.scale / a.top;
    char label[256], value[64];
    cell_text(label, sizeof label, s, i, xc);
    fit(label, 28);
    svg_text(b, left + label_w - 8, y + bar_h * 0.62, "end", label);
    svgf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
         left + label_w, y + bar_h * 0.15, w, bar_h * 0.7, palette[0]);
    double shown = num(s, i, yc) / a.scale;
    if (shown > 0 && shown < 0.05)
      snprintf(value, sizeof value, "<0.1");
    else
      snprintf(value, sizeof value, "%.1f", shown);
    size_t len = strlen(value);
    snprintf(value + len, sizeof value - len, "%s%s", *a.unit && strcmp(a.unit, "%") ? " " : "",
             a.unit);
    svg_text(b, left + label_w + w + 6, y + bar_h * 0.62, "start", value);
  }
  return 1;
}

/* ---- memory timeline ---------------------------------------------------------- */

/* Rows [*from, *to) of the data belonging to part number `part`. */
static int part_rows(const rp_section *d, int pc, int part, int *from, int *to) {
  int k = -1;
  for (int i = 0; i < d->nrows; i++) {
    if (i == 0 || strcmp(rp_cell(d, i, pc)->s ? rp_cell(d, i, pc)->s : "",
                         rp_cell(d, i - 1, pc)->s ? rp_cell(d, i - 1, pc)->s : "")) {
      if (k == part) {
        *to = i;
        return 1;
      }
      k++;
      *from = i;
    }
  }
  *to = d->nrows;
  return k == part && d->nrows > 0;
}

/* The memory timeline's x axis: ticks and the axis' name. */
static void timeline_x_axis(ld_buf *b, const axis *xa, int timed) {
  double plot_w = W - LEFT - RIGHT;
  for (int i = 0; i * xa->step <= xa->top + 1e-9; i++) { /* x ticks */
    double v = i * xa->step, px = LEFT + plot_w * v / xa->top;
    char label[64];
    tick_label(label, sizeof label, v, xa);
    svgf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>\n", px,
         H - BOTTOM, px, H - BOTTOM + 5);
    svg_text(b, px, H - BOTTOM + 18, "middle", label);
  }
  svg_text(b, LEFT + plot_w / 2, H - 8, "middle",
           timed ? "time since the first allocator event" : "allocator event");
}

static int chart_timeline(const rp_section *s, int part, ld_buf *b, int inline_svg,
                          char *part_name, size_t part_n) {
  const rp_section *d = s->chart_data;
  if (!d) return 0;
  int pc = rp_col_index(d, "part"), tc = rp_col_index(d, "title");
  int sc = rp_col_index(d, "seq"), uc = rp_col_index(d, "time_us");
  int lc = rp_col_index(d, "low"), hc = rp_col_index(d, "high"),
      rc = rp_col_index(d, "reserved");
  int kc = rp_col_index(d, "peak"), qc = rp_col_index(d, "peak_seq");
  int ec = rp_col_index(d, "last"), stc = rp_col_index(d, "step");
  int from = 0, to = 0;
  if (pc < 0 || lc < 0 || hc < 0 || !part_rows(d, pc, part, &from, &to) || to - from < 2)
    return 0;
  cell_text(part_name, part_n, d, from, pc);
  /* Time axis when every row has a time; else events. */
  int timed = uc >= 0;
  for (int i = from; i < to && timed; i++) timed = rp_cell(d, i, uc)->type != SQLITE_NULL;
  int xcol = timed ? uc : sc;
  double x0 = num(d, from, xcol), x1 = num(d, to - 1, xcol), max = 0, peak = -1, peak_x = x0;
  for (int i = from; i < to; i++) {
    if (num(d, i, hc) > max) max = num(d, i, hc);
    if (num(d, i, rc) > max) max = num(d, i, rc);
    if (num(d, i, hc) > peak) {
      peak = num(d, i, hc);
      peak_x = num(d, i, xcol);
    }
  }
  if (kc >= 0 && num(d, from, kc) > 0) peak = num(d, from, kc);
  if (x1 <= x0) x1 = x0 + 1;
  if (max <= 0) max = 1;
  axis ya = make_axis(max, "bytes");
  double span = timed ? (x1 - x0) * 1e3 : x1 - x0; /* ns or events */
  axis xa = make_axis(span, timed ? "ns" : "");
  char title[256], sub[200];
  cell_text(sub, sizeof sub, d, from, tc >= 0 ? tc : pc);
  snprintf(title, sizeof title, "Memory timeline: %s", sub);
  svg_begin(b, title, inline_svg);
  y_axis(b, &ya);
  double plot_w = W - LEFT - RIGHT, plot_h = H - TOP - BOTTOM;
  double xscale = plot_w / (xa.top * xa.scale / (timed ? 1e3 : 1));
#define PX(v) (LEFT + ((v)-x0) * xscale)
#define PY(v) (H - BOTTOM - plot_h * (v) / ya.scale / ya.top)
  timeline_x_axis(b, &xa, timed);
  /* Steps, not slopes: a level holds until the next event.  Allocated
  ** goes through each bucket's low and high (the peak is never averaged
  ** away) and leaves it at its last value. */
  for (int pass = 0; pass < 2; pass++) {
    svgf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"",
         pass ? palette[0] : palette[1]);
    for (int i = from; i < to; i++) {
      double px = PX(num(d, i, xcol));
      if (i > from) /* the previous level, up to here */
        svgf(b, "%.1f,%.1f ", px,
             PY(pass ? num(d, i - 1, ec >= 0 ? ec : hc) : num(d, i - 1, rc)));
      if (pass)
        svgf(b, "%.1f,%.1f %.1f,%.1f %.1f,%.1f ", px, PY(num(d, i, lc)), px, PY(num(d, i, hc)),
             px, PY(num(d, i, ec >= 0 ? ec : hc)));
      else
        svgf(b, "%.1f,%.1f ", px, PY(num(d, i, rc)));
    }
    ld_buf_put(b, "\"/>\n", 4);
  }
  /* Steps of an aligned trace: a dashed line where each starts. */
  for (int i = from; stc >= 0 && i < to; i++) {
    const rp_value *v = rp_cell(d, i, stc);
    if (v->type != SQLITE_TEXT) continue;
    double sx = PX(num(d, i, xcol));
    svgf(b,
         "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\""
         " stroke-dasharray=\"4 3\"/>\n",
         sx, TOP, sx, H - BOTTOM);
    svg_text(b, sx + 3, TOP + 10, "start", v->s);
  }
  /* Requirement 3: the peak is marked on the line and named in the legend. */
  double px = PX(peak_x), py = PY(peak);
  svgf(b,
       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
       "stroke-dasharray=\"3 3\"/>\n",
       px, py, px, H - BOTTOM, palette[2]);
  svgf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", px, py, palette[2]);
#undef PX
#undef PY
  legend_entry(b, 0, palette[1], "reserved");
  legend_entry(b, 1, palette[0], "allocated");
  char amount[64], where[96];
  axis pa = make_axis(peak, "bytes");
  snprintf(amount, sizeof amount, "peak %.2f %s", peak / pa.scale, pa.unit);
  legend_entry(b, 2, palette[2], amount);
  if (qc >= 0 && rp_cell(d, from, qc)->type != SQLITE_NULL) {
    snprintf(where, sizeof where, "at event %lld", (long long)num(d, from, qc));
    svg_text(b, W - RIGHT + 32, TOP + 10 + 3 * 20 - 4, "start", where);
  }
  return 1;
}

/* ---- panels (a series of runs) --------------------------------------------- */

#define PANEL_H 150
#define PANEL_GAP 40

static int chart_panels(const rp_section *s, ld_buf *b, int inline_svg) {
  char xs[128], ls[512], ms[128] = "";
  if (!rp_chart_key(s, "x", xs, sizeof xs) || !rp_chart_key(s, "lines", ls, sizeof ls))
    return 0;
  rp_chart_key(s, "mark", ms, sizeof ms);
  int lines[PARTS_MAX], np = columns_of(s, ls, lines, PARTS_MAX), n = s->nrows;
  int xc = rp_col_index(s, xs), mc = *ms ? rp_col_index(s, ms) : -1, first = -1;
  if (n < 2 || np == 0) return 0;
  for (int i = 0; i < n && mc >= 0 && first < 0; i++)
    if (rp_cell(s, i, mc)->type == SQLITE_TEXT) first = i;
  int height = TOP + np * (PANEL_H + PANEL_GAP) + 20;
  svgf(b,
       "<svg %swidth=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" class=\"chart\" role=\"img\" "
       "font-family=\"sans-serif\" font-size=\"12\">\n",
       inline_svg ? "" : "xmlns=\"http://www.w3.org/2000/svg\" ", W, height, W, height);
  if (!inline_svg) svgf(b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  svgf(b, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", LEFT);
  put_text(b, s->title);
  ld_buf_put(b, "</text>\n", 8);
  double plot_w = W - LEFT - RIGHT;
#define RUN_X(i) (LEFT + plot_w * (i) / (n - 1))
  for (int k = 0; k < np; k++) {
    int col = lines[k];
    double top = TOP + k * (PANEL_H + PANEL_GAP), bottom = top + PANEL_H, max = 0;
    int have = 0;
    for (int i = 0; col >= 0 && i < n; i++) {
      if (rp_cell(s, i, col)->type != SQLITE_NULL) have = 1;
      if (num(s, i, col) > max) max = num(s, i, col);
    }
    char name[96];
    snprintf(name, sizeof name, "%s", col >= 0 ? s->cols[col].name : "?");
    svg_text(b, W - RIGHT + 10, top + 14, "start", name);
    if (!have) {
      svg_text(b, LEFT + plot_w / 2, top + PANEL_H / 2.0, "middle", "no data in any row");
      continue;
    }
    axis a = make_axis(max > 0 ? max : 1, s->cols[col].unit);
    svgf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\"/>\n", LEFT, top,
         LEFT, bottom);
    for (int t = 0; t * a.step <= a.top + 1e-9; t++) {
      double v = t * a.step, y = bottom - PANEL_H * v / a.top;
      char label[64];
      tick_label(label, sizeof label, v, &a);
      svgf(b,
           "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" "
           "stroke-opacity=\"0.3\"/>\n",
           LEFT, y, W - RIGHT, y);
      svg_text(b, LEFT - 6, y + 4, "end", label);
    }
    /* The line through the rows that have the value (a NULL breaks it). */
    int open = 0;
    for (int i = 0; i < n; i++) {
      if (rp_cell(s, i, col)->type == SQLITE_NULL) {
        if (open) ld_buf_put(b, "\"/>\n", 4);
        open = 0;
        continue;
      }
      double y = bottom - PANEL_H * num(s, i, col) / a.scale / a.top;
      if (!open)
        svgf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
             palette[k % 10]);
      svgf(b, "%s%.1f,%.1f", open ? " " : "", RUN_X(i), y);
      open = 1;
    }
    if (open) ld_buf_put(b, "\"/>\n", 4);
    for (int i = 0; i < n; i++)
      if (rp_cell(s, i, col)->type != SQLITE_NULL)
        svgf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", RUN_X(i),
             bottom - PANEL_H * num(s, i, col) / a.scale / a.top,
             i == first ? "#d62728" : palette[k % 10]);
  }
  double axis_y = TOP + np * (PANEL_H + PANEL_GAP) - PANEL_GAP + 16;
  for (int i = 0; i < n; i++) {
    char label[64];
    cell_text(label, sizeof label, s, i, xc);
    char named[200];
    snprintf(named, sizeof named, "%s %s", xs, label);
    svg_text(b, RUN_X(i), axis_y, "middle", named);
  }
  if (first >= 0) {
    svgf(b,
         "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
         "stroke-dasharray=\"4 3\"/>\n",
         RUN_X(first), TOP - 8, RUN_X(first), axis_y - 14);
    char label[256], at[64];
    cell_text(at, sizeof at, s, first, mc);
    snprintf(label, sizeof label, "%s (%s %d)", at, xs, first + 1);
    svg_text(b, RUN_X(first) + 4, TOP - 12, "start", label);
  }
#undef RUN_X
  return 1;
}

int rp_chart_svg_part(const rp_section *s, int part, ld_buf *b, int inline_svg, char *part_name,
                      size_t part_n) {
  if (!s->chart || s->skipped) return 0;
  part_name[0] = 0;
  int drawn = 0;
  if (!strncmp(s->chart, "stack", 5))
    drawn = part == 0 && chart_stack(s, b, inline_svg);
  else if (!strncmp(s->chart, "bars", 4))
    drawn = part == 0 && chart_bars(s, b, inline_svg);
  else if (!strncmp(s->chart, "panels", 6))
    drawn = part == 0 && chart_panels(s, b, inline_svg);
  else if (!strncmp(s->chart, "timeline", 8))
    drawn = chart_timeline(s, part, b, inline_svg, part_name, part_n);
  if (drawn) ld_buf_put(b, "</svg>\n", 7);
  return drawn;
}

static int name_too_long(const char *path) {
  fprintf(stderr, "profdb: %s: file name too long to reference from the Markdown\n", path);
  return -1;
}

int rp_write_charts(rp_report *r, const char *md_path, char names[][256], int max) {
  char base[4096];
  snprintf(base, sizeof base, "%s", md_path);
  size_t n = strlen(base);
  if (n > 3 && !strcmp(base + n - 3, ".md")) base[n - 3] = 0;
  const char *slash = strrchr(base, '/');
  const char *file = slash ? slash + 1 : base;
  int count = 0;
  for (int i = 0; i < r->nsections && count < max; i++) {
    const rp_section *s = &r->sections[i];
    for (int part = 0; count < max; part++) {
      ld_buf b = {0};
      char part_name[128], suffix[400], path[4608];
      if (!rp_chart_svg_part(s, part, &b, 0, part_name, sizeof part_name)) {
        ld_buf_free(&b);
        break;
      }
      snprintf(suffix, sizeof suffix, ".%s%s%s.svg", s->id, *part_name ? "." : "", part_name);
      snprintf(path, sizeof path, "%s%s", base, suffix);
      int rc = rp_write_file(path, b.p, b.n);
      ld_buf_free(&b);
      if (rc) return -1;
      if (snprintf(names[count++], 256, "%s%s", file, suffix) >= 256)
        return name_too_long(path);
    }
  }
  return count;
}
