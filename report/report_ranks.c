/*
** report_ranks.c — one page at any rank count (issue 23): the cross-rank
** summary of a section whose rows cover more than RP_RANKS_MAX ranks, which
** the Markdown and the HTML both write (issue 45: one computation, two
** renderings).
**
** For each figure of the table (at most RP_RANK_FIGURES numeric columns,
** the Brief ones when the query lists them): min, median and max over the
** rows, with the rows holding the min, the max and the value nearest the
** median; then the outlying rows, those with a figure further from its
** median than RP_OUTLIER_MADS median absolute deviations and
** RP_OUTLIER_SHARE of the median (at most RP_OUTLIERS_MAX rows, the most
** outlying kept, shown in row order).  With a `stream` column, only the
** devices' 'all' rows are summarized.
*/
#include "report.h"
#include "oom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double value_of(const rp_value *v) {
  return v->type == SQLITE_INTEGER ? (double)v->i : v->type == SQLITE_FLOAT ? v->d : NAN;
}

static double median_of(double *x, int n) {
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  return n == 0 ? NAN : n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

const char *rp_rank_outliers_text(char *buf, size_t n, const rp_rank_summary *m) {
  int k = snprintf(buf, n,
                   "Outlying rows (a figure further from its median than %.0f median absolute"
                   " deviations and %.0f%% of the median): ",
                   RP_OUTLIER_MADS, 100 * RP_OUTLIER_SHARE);
  if (k >= 0 && (size_t)k < n) {
    if (m->noutliers == 0)
      snprintf(buf + k, n - (size_t)k, "none.");
    else if (m->tied && m->kept == 0 && m->tied == m->noutliers)
      snprintf(buf + k, n - (size_t)k,
               "%d, all equally outlying (a tie of more than %d): none shown, none picked by"
               " row order.",
               m->noutliers, RP_OUTLIERS_MAX);
    else if (m->tied && m->kept == 0) /* the most outlying tie past the cut, others follow */
      snprintf(buf + k, n - (size_t)k,
               "%d; the %d most outlying are equally so (a tie of more than %d) and the %d"
               " others less: none shown, none picked by row order.",
               m->noutliers, m->tied, RP_OUTLIERS_MAX, m->noutliers - m->tied);
    else if (m->tied)
      snprintf(buf + k, n - (size_t)k,
               "%d, the %d most outlying shown; the next %d tie (equally outlying) and are"
               " not shown.",
               m->noutliers, m->kept, m->tied);
    else
      snprintf(buf + k, n - (size_t)k, "%d%s.", m->noutliers,
               m->noutliers > m->kept ? ", the most outlying shown" : "");
  }
  return buf;
}

const char *rp_rank_text(char *buf, size_t n, const rp_section *s, int row, int rank_col) {
  const rp_value *v = rp_cell(s, row, rank_col);
  if (v->type == SQLITE_INTEGER)
    snprintf(buf, n, "%lld", v->i);
  else
    snprintf(buf, n, "%s", v->type == SQLITE_TEXT ? v->s : "");
  return buf;
}

/* Rows summarized: with a `stream` column, the devices' 'all' rows only. */
static int row_used(const rp_section *s, int row, int stream_col, int has_all) {
  if (stream_col < 0 || !has_all) return 1;
  const rp_value *v = rp_cell(s, row, stream_col);
  return v->type == SQLITE_TEXT && !strcmp(v->s, "all");
}

/* Whether column name is in the space-separated list. */
static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) return 1;
  return 0;
}

/* A figure to summarize: a number that is not a key (rank, step, device,
** stream) nor an identifier (trace_id, ...: numbers, not measures). */
static int summarized(const rp_section *s, const rp_colview *v) {
  const char *name = s->cols[v->col].name;
  size_t len = strlen(name);
  if (len > 3 && !strcmp(name + len - 3, "_id")) return 0;
  return v->numeric && strcmp(name, "rank") && strcmp(name, "step") && strcmp(name, "device") &&
         strcmp(name, "stream") && (!s->brief || listed(s->brief, name));
}

/* Figure f of column view v: its min, median and max rows, and each row's
** outlier score raised to its distance from the median in MADs (x: room
** for s->nrows values).  0, or -1 when no row has a value. */
static int figure(const rp_section *s, rp_rank_summary *m, const rp_colview *v,
                  rp_rank_figure *f, double *x, double *score) {
  int n = 0, lo = -1, hi = -1, stream_col = rp_col_index(s, "stream");
  for (int i = 0; i < s->nrows; i++) {
    double d = value_of(rp_cell(s, i, v->col));
    if (d != d || !row_used(s, i, stream_col, m->has_all)) continue;
    x[n++] = d;
    if (lo < 0 || d < value_of(rp_cell(s, lo, v->col))) lo = i;
    if (hi < 0 || d > value_of(rp_cell(s, hi, v->col))) hi = i;
  }
  if (n == 0) return -1;
  double med = median_of(x, n);
  for (int i = 0, k = 0; i < s->nrows; i++) {
    double d = value_of(rp_cell(s, i, v->col));
    if (d == d && row_used(s, i, stream_col, m->has_all)) x[k++] = fabs(d - med);
  }
  double mad = median_of(x, n);
  int mid = lo; /* the row nearest the median */
  for (int i = 0; i < s->nrows; i++) {
    double d = value_of(rp_cell(s, i, v->col));
    if (d == d && row_used(s, i, stream_col, m->has_all) &&
        fabs(d - med) < fabs(value_of(rp_cell(s, mid, v->col)) - med))
      mid = i;
  }
  for (int i = 0; i < s->nrows; i++) {
    double d = value_of(rp_cell(s, i, v->col)), dev = fabs(d - med);
    if (d != d || !row_used(s, i, stream_col, m->has_all) ||
        dev <= RP_OUTLIER_SHARE * fabs(med) || dev <= RP_OUTLIER_MADS * mad)
      continue;
    double sc = mad > 0 ? dev / mad : 1e9 + dev;
    if (sc > score[i]) score[i] = sc;
  }
  *f = (rp_rank_figure){.view = v, .lo = lo, .mid = mid, .hi = hi, .median = med};
  return 0;
}

/* The outlying rows (score above 0), most outlying first; the first
** m->kept of them then in row (rank) order.  Rows equally outlying across
** the cut are all left out (m->tied of them) rather than some picked by
** row order. */
static void outliers(const rp_section *s, rp_rank_summary *m, const double *score) {
  int *order = m->outliers;
  for (int i = 0; i < s->nrows; i++)
    if (score[i] > 0) order[m->noutliers++] = i;
  for (int i = 1; i < m->noutliers; i++)
    for (int j = i; j > 0 && score[order[j]] > score[order[j - 1]]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  m->kept = m->noutliers < RP_OUTLIERS_MAX ? m->noutliers : RP_OUTLIERS_MAX;
  if (m->kept < m->noutliers) {
    double cut = score[order[m->kept]];
    while (m->kept > 0 && score[order[m->kept - 1]] == cut) m->kept--;
    for (int i = m->kept; i < m->noutliers && score[order[i]] == cut; i++) m->tied++;
  }
  for (int i = 1; i < m->kept; i++)
    for (int j = i; j > 0 && order[j] < order[j - 1]; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
}

void rp_rank_summary_make(const rp_section *s, rp_rank_summary *m) {
  memset(m, 0, sizeof *m);
  m->rank_col = rp_rank_column(s);
  m->ranks = rp_rank_count(s, m->rank_col);
  m->is_rank = m->rank_col >= 0 && !strcmp(s->cols[m->rank_col].name, "rank");
  m->who = m->is_rank ? "rank"
           : m->rank_col >= 0 && !strcmp(s->cols[m->rank_col].name, "process_group")
               ? "process group"
               : "trace";
  int stream_col = rp_col_index(s, "stream");
  for (int i = 0; stream_col >= 0 && i < s->nrows; i++)
    m->has_all |= rp_cell(s, i, stream_col)->type == SQLITE_TEXT &&
                  !strcmp(rp_cell(s, i, stream_col)->s, "all");
  m->views = calloc((size_t)s->ncols + 1, sizeof *m->views);
  m->outliers = calloc((size_t)s->nrows + 1, sizeof *m->outliers);
  double *x = calloc((size_t)s->nrows + 1, sizeof *x),
         *score = calloc((size_t)s->nrows + 1, sizeof *score);
  if (!m->views || !m->outliers || !x || !score) ld_oom();
  int nviews = rp_column_views(s, m->views, s->ncols), tried = 0;
  for (int k = 0; k < nviews && tried < RP_RANK_FIGURES; k++) {
    if (!summarized(s, &m->views[k])) continue;
    tried++;
    if (figure(s, m, &m->views[k], &m->fig[m->nfig], x, score) == 0) m->nfig++;
  }
  outliers(s, m, score);
  free(score);
  free(x);
}

rp_section rp_rank_outlier_rows(const rp_section *s, const rp_rank_summary *m) {
  rp_section sub = *s;
  sub.cells = calloc((size_t)m->kept * (size_t)s->ncols + 1, sizeof *sub.cells);
  if (!sub.cells) ld_oom();
  for (int i = 0; i < m->kept; i++)
    memcpy(sub.cells + (size_t)i * (size_t)s->ncols,
           s->cells + (size_t)m->outliers[i] * (size_t)s->ncols,
           (size_t)s->ncols * sizeof *sub.cells);
  sub.nrows = m->kept;
  return sub;
}

void rp_rank_summary_free(rp_rank_summary *m) {
  free(m->views);
  free(m->outliers);
  memset(m, 0, sizeof *m);
}
