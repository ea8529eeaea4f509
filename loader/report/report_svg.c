/*
** report_svg.c — plain SVG charts written next to the Markdown report.
**
**   <name>.step_time.svg        stacked bars: each step's time by component
**   <name>.kernel_category.svg  horizontal bars: GPU time share by category
**   <name>.mem_timeline.S_D.svg allocated and reserved bytes over the
**                               allocator events of snapshot S, device D,
**                               with the peak marked
**   <name>.trend.svg            profdb diff with several runs: step time,
**                               GPU utilization and peak allocated per run,
**                               one panel each, the first gate failure marked
**
** HOW IT WORKS
**   Charts are drawn from the sections' rows (step_time,
**   kernel_category_sum) or, for the timeline, from mem_timeline() reduced
**   to at most TIMELINE_BUCKETS buckets of events, each drawn with its
**   minimum and maximum so the peak is never averaged away.  Coordinates
**   are printed with fixed decimals, so the files are deterministic.
*/
#include "report.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 860
#define H 360
#define LEFT 80
#define RIGHT 170
#define TOP 40
#define BOTTOM 50
#define TIMELINE_BUCKETS 600

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#bab0ac", "#ff9da7", "#9c755f"};

static void svg_begin(ld_buf *b, const char *title) {
  char tmp[512];
  snprintf(tmp, sizeof tmp,
           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
           "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
           "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
           "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">",
           W, H, W, H, LEFT);
  ld_buf_put(b, tmp, strlen(tmp));
  for (const char *p = title; *p; p++) {
    if (*p == '<') ld_buf_put(b, "&lt;", 4);
    else if (*p == '&') ld_buf_put(b, "&amp;", 5);
    else ld_buf_putc(b, *p);
  }
  ld_buf_put(b, "</text>\n", 8);
}

static void svgf(ld_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void svgf(ld_buf *b, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) ld_buf_put(b, tmp, (size_t)(n < (int)sizeof tmp ? n : (int)sizeof tmp - 1));
}

static void svg_text(ld_buf *b, double x, double y, const char *anchor, const char *text) {
  svgf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
  for (const char *p = text; *p; p++) {
    if (*p == '<') ld_buf_put(b, "&lt;", 4);
    else if (*p == '&') ld_buf_put(b, "&amp;", 5);
    else ld_buf_putc(b, *p);
  }
  ld_buf_put(b, "</text>\n", 8);
}

/* A value axis label: ms for ns, GiB/MiB for bytes. */
static void axis_label(char *out, size_t n, double v, const char *unit) {
  if (!strcmp(unit, "ns")) snprintf(out, n, "%.1f ms", v / 1e6);
  else if (v >= 1073741824.0) snprintf(out, n, "%.2f GiB", v / 1073741824.0);
  else snprintf(out, n, "%.0f MiB", v / 1048576.0);
}

static void y_axis(ld_buf *b, double max, const char *unit) {
  double plot_h = H - TOP - BOTTOM;
  svgf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, TOP, LEFT,
       H - BOTTOM);
  for (int i = 0; i <= 4; i++) {
    double v = max * i / 4, y = H - BOTTOM - plot_h * i / 4;
    char label[64];
    axis_label(label, sizeof label, v, unit);
    svgf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT, y,
         W - RIGHT, y);
    svg_text(b, LEFT - 6, y + 4, "end", label);
  }
}

static int finish(ld_buf *b, const char *path) {
  ld_buf_put(b, "</svg>\n", 7);
  int rc = rp_write_file(path, b->p, b->n);
  ld_buf_free(b);
  return rc;
}

static const rp_section *find_section(const rp_report *r, const char *id) {
  for (int i = 0; i < r->nsections; i++)
    if (!strcmp(r->sections[i].id, id) && !r->sections[i].skipped) return &r->sections[i];
  return NULL;
}

static double num(const rp_section *s, int row, const char *col) {
  int c = rp_col_index(s, col);
  if (c < 0) return 0;
  const rp_value *v = rp_cell(s, row, c);
  return v->type == SQLITE_INTEGER ? (double)v->i : v->type == SQLITE_FLOAT ? v->d : 0;
}

/* Stacked bars of the step_time section (first trace's steps). */
static int chart_steps(const rp_report *r, const char *path) {
  const rp_section *s = find_section(r, "step_time");
  if (!s) return 0;
  static const char *const parts[] = {"kernel_ns", "memcpy_ns", "memset_ns", "communication_ns",
                                      "runtime_ns", "dataloader_ns", "cpu_ns", "other_ns"};
  int n = s->nrows > 64 ? 64 : s->nrows;
  double max = 0;
  for (int i = 0; i < n; i++) if (num(s, i, "wall_ns") > max) max = num(s, i, "wall_ns");
  if (max <= 0) return 0;
  ld_buf b = {0};
  svg_begin(&b, "Step time breakdown");
  y_axis(&b, max, "ns");
  double plot_w = W - LEFT - RIGHT, plot_h = H - TOP - BOTTOM, slot = plot_w / n;
  for (int i = 0; i < n; i++) {
    double y = H - BOTTOM, x = LEFT + slot * i + slot * 0.15;
    for (int p = 0; p < 8; p++) {
      double h = plot_h * num(s, i, parts[p]) / max;
      if (h <= 0) continue;
      y -= h;
      svgf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x, y,
           slot * 0.7, h, palette[p]);
    }
    int sc = rp_col_index(s, "step");
    const rp_value *step = rp_cell(s, i, sc);
    char label[32];
    if (step->type == SQLITE_INTEGER) snprintf(label, sizeof label, "%lld", step->i);
    else snprintf(label, sizeof label, "all");
    svg_text(&b, x + slot * 0.35, H - BOTTOM + 16, "middle", label);
  }
  svg_text(&b, LEFT + plot_w / 2, H - 12, "middle", "step");
  for (int p = 0; p < 8; p++) {
    double y = TOP + 10 + p * 20;
    svgf(&b, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", W - RIGHT + 15,
         y - 10, palette[p]);
    char label[32];
    snprintf(label, sizeof label, "%.*s", (int)(strlen(parts[p]) - 3), parts[p]);
    svg_text(&b, W - RIGHT + 32, y, "start", label);
  }
  return finish(&b, path) ? -1 : 1;
}

/* Horizontal bars of kernel_category_sum (top 12). */
static int chart_categories(const rp_report *r, const char *path) {
  const rp_section *s = find_section(r, "kernel_category_sum");
  if (!s) return 0;
  int n = s->nrows > 12 ? 12 : s->nrows;
  ld_buf b = {0};
  svg_begin(&b, "GPU time by kernel category");
  double bar_h = (double)(H - TOP - BOTTOM) / n, label_w = 170, plot_w = W - LEFT - label_w - 60;
  double max = 0;
  for (int i = 0; i < n; i++) if (num(s, i, "pct") > max) max = num(s, i, "pct");
  if (max <= 0) max = 1;
  int cc = rp_col_index(s, "category");
  for (int i = 0; i < n; i++) {
    double y = TOP + bar_h * i, w = plot_w * num(s, i, "pct") / max;
    const rp_value *cat = rp_cell(s, i, cc);
    svg_text(&b, LEFT + label_w - 8, y + bar_h * 0.65, "end", cat->type == SQLITE_TEXT ? cat->s : "");
    svgf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
         LEFT + label_w, y + bar_h * 0.15, w, bar_h * 0.7, palette[i % 10]);
    char pct[32];
    snprintf(pct, sizeof pct, "%.1f%%", num(s, i, "pct"));
    svg_text(&b, LEFT + label_w + w + 6, y + bar_h * 0.65, "start", pct);
  }
  return finish(&b, path) ? -1 : 1;
}

/* Allocated and reserved bytes over the allocator events of one device. */
static int chart_timeline(rp_report *r, const char *path, int64_t snapshot, int64_t device) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(r->db, "SELECT count(*) FROM alloc_event WHERE snapshot_id = ?1"
                         " AND device = ?2", -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_int64(st, 1, snapshot);
  sqlite3_bind_int64(st, 2, device);
  int64_t events = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  if (events < 2) return 0;
  int nb = events < TIMELINE_BUCKETS ? (int)events : TIMELINE_BUCKETS;
  double *lo = calloc((size_t)nb, sizeof *lo), *hi = calloc((size_t)nb, sizeof *hi);
  double *res = calloc((size_t)nb, sizeof *res);
  if (!lo || !hi || !res) abort();
  for (int i = 0; i < nb; i++) lo[i] = -1;
  if (sqlite3_prepare_v2(r->db, "SELECT seq, allocated, reserved FROM mem_timeline(?1, ?2)",
                         -1, &st, NULL) != SQLITE_OK) {
    free(lo); free(hi); free(res);
    return 0;
  }
  sqlite3_bind_int64(st, 1, snapshot);
  sqlite3_bind_int64(st, 2, device);
  double max = 0, peak = -1;
  int64_t peak_seq = 0, i = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    int bucket = (int)(i * nb / events);
    double a = (double)sqlite3_column_int64(st, 1), rv = (double)sqlite3_column_int64(st, 2);
    if (lo[bucket] < 0 || a < lo[bucket]) lo[bucket] = a;
    if (a > hi[bucket]) hi[bucket] = a;
    if (rv > res[bucket]) res[bucket] = rv;
    if (a > peak) { peak = a; peak_seq = sqlite3_column_int64(st, 0); }
    if (a > max) max = a;
    if (rv > max) max = rv;
    i++;
  }
  sqlite3_finalize(st);
  if (max <= 0) max = 1;
  ld_buf b = {0};
  char title[128];
  snprintf(title, sizeof title, "Memory timeline: snapshot %lld, device %lld",
           (long long)snapshot, (long long)device);
  svg_begin(&b, title);
  y_axis(&b, max, "bytes");
  double plot_w = W - LEFT - RIGHT, plot_h = H - TOP - BOTTOM;
  for (int pass = 0; pass < 2; pass++) {
    svgf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"",
         pass ? palette[0] : palette[1]);
    for (int k = 0; k < nb; k++) {
      double x = LEFT + plot_w * k / (nb > 1 ? nb - 1 : 1);
      if (pass) { /* allocated: min then max of the bucket */
        if (lo[k] < 0) continue;
        svgf(&b, "%.1f,%.1f %.1f,%.1f ", x, H - BOTTOM - plot_h * lo[k] / max, x,
             H - BOTTOM - plot_h * hi[k] / max);
      } else {
        svgf(&b, "%.1f,%.1f ", x, H - BOTTOM - plot_h * res[k] / max);
      }
    }
    ld_buf_put(&b, "\"/>\n", 4);
  }
  double px = LEFT + plot_w * (double)(peak_seq * nb / events) / (nb > 1 ? nb - 1 : 1);
  double py = H - BOTTOM - plot_h * peak / max;
  char label[96], amount[32];
  axis_label(amount, sizeof amount, peak, "bytes");
  snprintf(label, sizeof label, "peak %s at event %lld", amount, (long long)peak_seq);
  svgf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", px, py, palette[2]);
  svg_text(&b, px, py - 8, px > W / 2 ? "end" : "start", label);
  svg_text(&b, LEFT + plot_w / 2, H - 12, "middle", "allocator event");
  svgf(&b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", W - RIGHT + 15,
       TOP, palette[0]);
  svg_text(&b, W - RIGHT + 32, TOP + 10, "start", "allocated");
  svgf(&b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", W - RIGHT + 15,
       TOP + 20, palette[1]);
  svg_text(&b, W - RIGHT + 32, TOP + 30, "start", "reserved");
  free(lo); free(hi); free(res);
  return finish(&b, path) ? -1 : 1;
}

/* The trend section's runs: one line panel per metric, runs along x. */
static int chart_trend(const rp_report *r, const char *path) {
  const rp_section *s = find_section(r, "trend");
  if (!s || s->nrows < 2) return 0;
  static const struct { const char *col, *title, *unit; } panel[] = {
      {"step_time_ns", "mean step time", "ns"},
      {"gpu_util_pct", "GPU utilization", "%"},
      {"peak_allocated", "peak allocated", "bytes"}};
  enum { PANEL_H = 150, GAP = 40 };
  int height = TOP + 3 * (PANEL_H + GAP) + 20, n = s->nrows;
  int first_col = rp_col_index(s, "first_failure"), first = -1;
  for (int i = 0; i < n && first_col >= 0; i++)
    if (rp_cell(s, i, first_col)->type == SQLITE_TEXT) first = i;
  ld_buf b = {0};
  svgf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
       "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
       "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, height, W, height);
  svg_text(&b, LEFT, 22, "start", "Runs in order");
  double plot_w = W - LEFT - RIGHT;
#define RUN_X(i) (LEFT + (n > 1 ? plot_w * (i) / (n - 1) : 0))
  for (int k = 0; k < 3; k++) {
    double top = TOP + k * (PANEL_H + GAP), bottom = top + PANEL_H, max = 0;
    int col = rp_col_index(s, panel[k].col), have = 0;
    for (int i = 0; col >= 0 && i < n; i++) {
      if (rp_cell(s, i, col)->type != SQLITE_NULL) have = 1;
      if (num(s, i, panel[k].col) > max) max = num(s, i, panel[k].col);
    }
    if (!have) {
      svg_text(&b, W - RIGHT + 10, top + 14, "start", panel[k].title);
      svg_text(&b, LEFT + plot_w / 2, top + PANEL_H / 2.0, "middle",
               "no data in any run (no trace or no memory snapshot)");
      continue;
    }
    if (!strcmp(panel[k].unit, "%")) max = 100;
    else max = max > 0 ? max * 1.1 : 1;
    svg_text(&b, W - RIGHT + 10, top + 14, "start", panel[k].title);
    svgf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>\n", LEFT,
         top, LEFT, bottom);
    for (int t = 0; t <= 2; t++) {
      double v = max * t / 2, y = bottom - PANEL_H * t / 2.0;
      char label[64];
      if (!strcmp(panel[k].unit, "%")) snprintf(label, sizeof label, "%.0f%%", v);
      else axis_label(label, sizeof label, v, panel[k].unit);
      svgf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT,
           y, W - RIGHT, y);
      svg_text(&b, LEFT - 6, y + 4, "end", label);
    }
    /* The line through the runs that have the metric (a run without, e.g.
    ** without a snapshot, breaks it). */
    int open = 0;
    for (int i = 0; i < n; i++) {
      if (col < 0 || rp_cell(s, i, col)->type == SQLITE_NULL) {
        if (open) ld_buf_put(&b, "\"/>\n", 4);
        open = 0;
        continue;
      }
      double y = bottom - PANEL_H * num(s, i, panel[k].col) / max;
      if (!open) svgf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                      palette[k]);
      svgf(&b, "%s%.1f,%.1f", open ? " " : "", RUN_X(i), y);
      open = 1;
    }
    if (open) ld_buf_put(&b, "\"/>\n", 4);
    for (int i = 0; col >= 0 && i < n; i++)
      if (rp_cell(s, i, col)->type != SQLITE_NULL)
        svgf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", RUN_X(i),
             bottom - PANEL_H * num(s, i, panel[k].col) / max, i == first ? "#d62728" : palette[k]);
  }
  double axis_y = TOP + 3 * (PANEL_H + GAP) - GAP + 16;
  for (int i = 0; i < n; i++) {
    char label[32];
    snprintf(label, sizeof label, "run %d", i + 1);
    svg_text(&b, RUN_X(i), axis_y, "middle", label);
  }
  if (first >= 0) {
    svgf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
         "stroke-dasharray=\"4 3\"/>\n", RUN_X(first), TOP - 8, RUN_X(first), axis_y - 14);
    char label[64];
    snprintf(label, sizeof label, "first gate failure (run %d)", first + 1);
    svg_text(&b, RUN_X(first) + 4, TOP - 12, "start", label);
  }
#undef RUN_X
  return finish(&b, path) ? -1 : 1;
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
  char path[4352];
  struct { const char *name; int (*draw)(const rp_report *, const char *); } simple[] = {
      {"step_time", chart_steps}, {"kernel_category", chart_categories}, {"trend", chart_trend}};
  for (size_t k = 0; k < sizeof simple / sizeof simple[0] && count < max; k++) {
    snprintf(path, sizeof path, "%s.%s.svg", base, simple[k].name);
    int rc = simple[k].draw(r, path);
    if (rc < 0) return -1;
    if (rc > 0 && snprintf(names[count++], 256, "%s.%s.svg", file, simple[k].name) >= 256)
      return name_too_long(path);
  }
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(r->db, "SELECT snapshot_id, device FROM report_mem_peak"
                         " ORDER BY snapshot_id, device", -1, &st, NULL) == SQLITE_OK) {
    while (count < max && sqlite3_step(st) == SQLITE_ROW) {
      int64_t s = sqlite3_column_int64(st, 0), d = sqlite3_column_int64(st, 1);
      snprintf(path, sizeof path, "%s.mem_timeline.%lld_%lld.svg", base, (long long)s, (long long)d);
      int rc = chart_timeline(r, path, s, d);
      if (rc < 0) { sqlite3_finalize(st); return -1; }
      if (rc > 0 && snprintf(names[count++], 256, "%s.mem_timeline.%lld_%lld.svg", file,
                             (long long)s, (long long)d) >= 256) {
        sqlite3_finalize(st);
        return name_too_long(path);
      }
    }
    sqlite3_finalize(st);
  }
  return count;
}
