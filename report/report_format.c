/*
** report_format.c — how section results are shown to people, shared by
** the Markdown and HTML writers: which columns, in which order, under
** which header, with which unit, and kernel names short enough to read
** but still told apart.
**
** Requirement 1 (order): the column that names the row (a 'symbol' or
**   'source' column, else one called "name") comes first; the others keep
**   the query's order.
** Requirement 2 (units): each time or size column gets one unit, chosen
**   from its largest value, named in the header ("wall (ms)") so that the
**   cells are plain numbers that line up and compare.
** Requirement 3 (deltas): a delta column (delta_*, *change_pct, vs_*)
**   shows a sign on every non-zero value.
** Requirement 4 (names): a shortened name keeps what tells rows apart: the
**   namespace qualifiers and the argument list go first, then the deepest
**   template levels; names that still collide keep the part where they
**   differ ("Cijk_Alik…MT256x192x64_…", "vectorized_elementwise_kernel<4,
**   FillFunctor<…>, …>").
*/
#include "report.h"
#include "oom.h"
#include "humanize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELLIPSIS "\xE2\x80\xA6"

int rp_is_name_unit(const char *unit) {
  return !strcmp(unit, "symbol") || !strcmp(unit, "source");
}

static int is_numeric_unit(const char *unit) {
  return !strcmp(unit, "ns") || !strcmp(unit, "bytes") || !strcmp(unit, "%") ||
         !strcmp(unit, "count") || !strcmp(unit, "GB/s") || !strcmp(unit, "us");
}

static int is_delta(const char *name) {
  size_t n = strlen(name);
  return !strncmp(name, "delta", 5) || !strncmp(name, "vs_", 3) ||
         (n >= 10 && !strcmp(name + n - 10, "change_pct"));
}

static double number(const rp_value *v) {
  return v->type == SQLITE_INTEGER ? (double)v->i : v->type == SQLITE_FLOAT ? v->d : 0;
}

/* The header without the unit suffix the column name carries
** ("wall_ns" -> "wall", "pct_window" stays). */
static void base_name(char *out, size_t n, const char *name, const char *unit) {
  snprintf(out, n, "%s", name);
  size_t len = strlen(out);
  static const char *const suffixes[] = {"_ns", "_bytes", "_pct", "_us"};
  for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
    size_t sl = strlen(suffixes[k]);
    if (len > sl && !strcmp(out + len - sl, suffixes[k]) && *unit) {
      out[len - sl] = 0;
      return;
    }
  }
}

static void view_of(const rp_section *s, int c, rp_colview *v) {
  const rp_column *col = &s->cols[c];
  memset(v, 0, sizeof *v);
  v->col = c;
  v->scale = 1;
  v->numeric = is_numeric_unit(col->unit);
  v->delta = v->numeric && is_delta(col->name);
  char base[96];
  base_name(base, sizeof base, col->name, col->unit);
  double max = 0;
  int fractional = 0, numbers = 0, texts = 0;
  for (int r = 0; r < s->nrows; r++) {
    const rp_value *x = rp_cell(s, r, c);
    if (x->type == SQLITE_FLOAT) fractional = 1;
    if (x->type == SQLITE_TEXT)
      texts++;
    else if (x->type != SQLITE_NULL)
      numbers++;
    if (fabs(number(x)) > max) max = fabs(number(x));
  }
  /* A column of plain numbers (ids, ratios) is right-aligned too. */
  if (!v->numeric && !*col->unit && numbers && !texts) v->numeric = 1;
  const char *unit = "";
  if (!strcmp(col->unit, "ns")) {
    static const struct {
      double scale;
      const char *name;
    } t[] = {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}};
    int k = max >= 1e9 ? 3 : max >= 1e6 ? 2 : max >= 1e3 ? 1 : 0;
    v->scale = t[k].scale;
    unit = t[k].name;
    v->decimals = k ? 2 : 0;
  } else if (!strcmp(col->unit, "us")) {
    v->scale = 1e3;
    unit = "ms";
    v->decimals = 2;
  } else if (!strcmp(col->unit, "bytes")) {
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    while (k < 6 && max >= pow(1024.0, k + 1)) k++;
    v->scale = pow(1024.0, k);
    unit = names[k];
    v->decimals = k ? 2 : 0;
  } else if (!strcmp(col->unit, "%")) {
    unit = "%";
    v->decimals = 2;
  } else if (!strcmp(col->unit, "GB/s")) {
    unit = "GB/s";
    v->decimals = 2;
  } else if (!strcmp(col->unit, "count")) {
    v->decimals = fractional ? 2 : 0;
  } else {
    v->decimals = fractional ? 2 : 0;
  }
  v->unit = unit;
  if (*unit)
    snprintf(v->header, sizeof v->header, "%s (%s)", base, unit);
  else
    snprintf(v->header, sizeof v->header, "%s", base);
}

int rp_column_views(const rp_section *s, rp_colview *views, int max) {
  int n = 0;
  /* The naming column first (Requirement 1). */
  int first = -1;
  for (int c = 0; c < s->ncols && first < 0; c++)
    if (!strcmp(s->cols[c].name, "name")) first = c;
  /* A symbol or source column names the row unless a text column (a
  ** family, a label) already leads. */
  int text_leads = s->ncols > 0 && s->nrows > 0 && rp_cell(s, 0, 0)->type == SQLITE_TEXT;
  for (int c = 0; c < s->ncols && first < 0 && !text_leads; c++)
    if (rp_is_name_unit(s->cols[c].unit)) first = c;
  if (first >= 0 && n < max) view_of(s, first, &views[n++]);
  for (int c = 0; c < s->ncols && n < max; c++)
    if (c != first) view_of(s, c, &views[n++]);
  return n;
}

const char *rp_skip_reason(const rp_section *s) {
  return s->note ? s->note : "no data";
}

int rp_reason_group(const rp_report *r, int i, const rp_section **group) {
  const rp_section *s = &r->sections[i];
  if (!s->skipped) return 0;
  for (int j = 0; j < i; j++)
    if (r->sections[j].skipped && !strcmp(rp_skip_reason(&r->sections[j]), rp_skip_reason(s)))
      return 0; /* listed with an earlier section */
  int n = 0;
  for (int j = i; j < r->nsections; j++)
    if (r->sections[j].skipped && !strcmp(rp_skip_reason(&r->sections[j]), rp_skip_reason(s)))
      group[n++] = &r->sections[j];
  return n;
}

int rp_row_is_delta(const rp_section *s, int row) {
  if (s->ncols == 0) return 0;
  const rp_value *v = rp_cell(s, row, 0);
  return v->type == SQLITE_TEXT && (!strcmp(v->s, "change") || !strcmp(v->s, "delta"));
}

void rp_format_cell(char *out, size_t n, const rp_colview *v, const rp_value *x) {
  if (x->type == SQLITE_NULL) {
    out[0] = 0;
    return;
  }
  if (x->type == SQLITE_TEXT) {
    snprintf(out, n, "%s", x->s);
    return;
  }
  double d = number(x) / v->scale;
  const char *sign = v->delta && number(x) > 0 ? "+" : "";
  if (x->type == SQLITE_INTEGER && v->scale == 1 && v->decimals == 0)
    snprintf(out, n, "%s%lld", sign, x->i);
  else {
    /* Small values keep two significant digits (up to 4 decimals). */
    int decimals = v->decimals;
    if (decimals == 2 && d != 0) decimals += (fabs(d) < 0.1) + (fabs(d) < 0.01);
    if (d != 0 && fabs(d) < 0.0005 && v->decimals == 2)
      snprintf(out, n, "%s%.2g", sign, d);
    else
      snprintf(out, n, "%s%.*f", sign, decimals, d);
  }
}

void rp_format_gate_value(char *out, size_t n, const char *unit, const rp_value *x) {
  double d = number(x);
  if (x->type != SQLITE_INTEGER && x->type != SQLITE_FLOAT) {
    snprintf(out, n, "%s", x->type == SQLITE_TEXT ? x->s : "");
  } else if (!strcmp(unit, "ns")) {
    profdb_humanize_ns(out, n, d);
  } else if (!strcmp(unit, "bytes")) {
    profdb_humanize_bytes(out, n, d);
  } else if (!strcmp(unit, "%")) {
    snprintf(out, n, "%.2f%%", d);
  } else if (!strcmp(unit, "GB/s")) {
    snprintf(out, n, "%.2f GB/s", d);
  } else if (x->type == SQLITE_INTEGER) {
    snprintf(out, n, "%lld", x->i);
  } else {
    snprintf(out, n, "%g", d);
  }
}

rp_verdict rp_gate_outcome(const rp_section *gate, int row) {
  const rp_value *v = rp_cell(gate, row, rp_col_index(gate, "passed"));
  if (v->type != SQLITE_INTEGER) return RP_NOT_EVALUATED;
  return v->i ? RP_PASSED : RP_FAILED;
}

const char *rp_gate_verdict(const rp_section *gate, int row) {
  switch (rp_gate_outcome(gate, row)) {
    case RP_PASSED: return "passed";
    case RP_FAILED: return "FAILED";
    default: return "not evaluated";
  }
}

/* ---- short names (Requirement 4) ----------------------------------------- */

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
** "(anonymous namespace)" are text.  Returns 1 when p opens a level, -1
** when it closes one, 0 for text. */
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

/* s with lists nested deeper than max_depth replaced by an ellipsis; the
** top-level argument list always collapsed. */
static void collapse_deeper(const char *s, int max_depth, ld_buf *out) {
  nest st = {{0}, 0, 0};
  int limit = max_depth;
  for (const char *p = s; *p; p++) {
    int before = st.depth;
    int kind = nest_step(&st, s, p);
    if (kind == 1) {
      if (before == 0) limit = *p == '(' ? 0 : max_depth;
      if (before <= limit) ld_buf_putc(out, *p);
      if (before == limit) ld_buf_put(out, ELLIPSIS, 3);
    } else if (kind == -1) {
      if (st.depth <= limit) ld_buf_putc(out, *p);
    } else if (before <= limit) {
      ld_buf_putc(out, *p);
    }
  }
}

static int ident_char(char c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Drop "void ", namespace qualifiers ("at::native::", "(anonymous
** namespace)::") and spaces before '>'. */
static void strip_qualifiers(const char *s, ld_buf *out) {
  if (!strncmp(s, "void ", 5)) s += 5;
  static const char anon[] = "(anonymous namespace)::";
  for (const char *p = s; *p;) {
    if (!strncmp(p, anon, sizeof anon - 1)) {
      p += sizeof anon - 1;
      continue;
    }
    if (ident_char(*p) && (p == s || !ident_char(p[-1]))) {
      const char *e = p;
      while (ident_char(*e)) e++;
      if (e[0] == ':' && e[1] == ':' &&
          (ident_char(e[2]) || !strncmp(e + 2, anon, sizeof anon - 1))) {
        p = e + 2; /* a qualifier: skip it */
        continue;
      }
      ld_buf_put(out, p, (size_t)(e - p));
      p = e;
      continue;
    }
    if (*p == ' ' && p[1] == '>') {
      p++;
      continue;
    }
    ld_buf_putc(out, *p++);
  }
}

static size_t utf8_len(const char *p) {
  size_t chars = 0;
  for (; *p; p++) chars += ((unsigned char)*p & 0xC0) != 0x80;
  return chars;
}

/* Byte offset of character `chars` in p (or its end). */
static size_t utf8_offset(const char *p, size_t chars) {
  size_t i = 0;
  for (; p[i] && chars; chars -= 1) {
    i++;
    while (p[i] && ((unsigned char)p[i] & 0xC0) == 0x80) i++;
  }
  return i;
}

/* A symbol in at most max characters by structure: qualifiers, then the
** argument list, then template levels from the deepest.  The result may
** still be longer (a long flat name). */
static char *shorten_structure(const char *s, size_t max, char **plain_out) {
  ld_buf plain = {0}, out = {0};
  if (utf8_len(s) <= max) {
    *plain_out = strdup(s);
    char *same = strdup(s);
    if (!*plain_out || !same) ld_oom();
    return same;
  }
  strip_qualifiers(s, &plain);
  ld_buf_cstr(&plain);
  nest st = {{0}, 0, 0};
  int deepest = 0;
  for (const char *p = plain.p; *p; p++)
    if (nest_step(&st, plain.p, p) == 1 && st.depth > deepest) deepest = st.depth;
  for (int d = deepest; d >= 0; d--) {
    out.n = 0;
    collapse_deeper(plain.p, d, &out);
    ld_buf_cstr(&out);
    if (d == deepest) { /* only the argument list collapsed: the text to tell apart */
      *plain_out = strdup(out.p);
      if (!*plain_out) ld_oom();
    }
    if (utf8_len(out.p) <= max) break;
  }
  ld_buf_free(&plain);
  return out.p;
}

/* Cut text to max characters: keep the head, or for a 'source' the end;
** with `keep_from` >= 0, keep the head and the window from that byte. */
static char *cut(const char *s, size_t max, int source, long keep_from) {
  size_t len = utf8_len(s);
  ld_buf b = {0};
  if (len <= max) {
    ld_buf_put(&b, s, strlen(s));
  } else if (source) {
    ld_buf_put(&b, ELLIPSIS, 3);
    const char *tail = s + utf8_offset(s, len - (max - 1));
    ld_buf_put(&b, tail, strlen(tail));
  } else if (keep_from >= 0) {
    /* The head up to its first bracket when short ("kernel<"), else a
    ** third; the window from the start of the differing word. */
    size_t head = max / 3, bracket = strcspn(s, "<(");
    if (s[bracket] && bracket + 1 <= max / 2) head = bracket + 1;
    size_t hb = utf8_offset(s, head), window = max - head - 2;
    ld_buf_put(&b, s, hb);
    ld_buf_put(&b, ELLIPSIS, 3);
    size_t from = (size_t)keep_from;
    while (from > hb && from + 24 > (size_t)keep_from && !strchr("<(, _", s[from - 1])) from--;
    if (from < hb) from = hb;
    while (from > hb && ((unsigned char)s[from] & 0xC0) == 0x80) from--;
    const char *w = s + from;
    size_t wb = utf8_offset(w, window);
    ld_buf_put(&b, w, wb);
    if (w[wb]) ld_buf_put(&b, ELLIPSIS, 3);
  } else {
    ld_buf_put(&b, s, utf8_offset(s, max - 1));
    ld_buf_put(&b, ELLIPSIS, 3);
  }
  ld_buf_cstr(&b);
  return b.p;
}

static size_t first_difference(const char *a, const char *b) {
  size_t i = 0;
  while (a[i] && a[i] == b[i]) i++;
  return i;
}

/* A row's short and full name, sorted by short, then full. */
typedef struct name_pair {
  const char *short_name, *full;
  int row;
} name_pair;

static int cmp_name_pair(const void *x, const void *y) {
  const name_pair *a = x, *b = y;
  int c = strcmp(a->short_name, b->short_name);
  return c ? c : strcmp(a->full, b->full);
}

char **rp_short_names(const rp_section *s, int col, size_t max) {
  char **out = calloc((size_t)s->nrows + 1, sizeof *out);
  char **full = calloc((size_t)s->nrows + 1, sizeof *full);
  if (!out || !full) ld_oom();
  int symbol = !strcmp(s->cols[col].unit, "symbol");
  int source = !strcmp(s->cols[col].unit, "source");
  for (int r = 0; r < s->nrows; r++) {
    const rp_value *v = rp_cell(s, r, col);
    char number_text[64] = "";
    if (v->type == SQLITE_INTEGER)
      snprintf(number_text, sizeof number_text, "%lld", v->i);
    else if (v->type == SQLITE_FLOAT)
      snprintf(number_text, sizeof number_text, "%g", v->d);
    const char *text = v->type == SQLITE_TEXT ? v->s : number_text;
    char *structured = NULL;
    if (symbol) {
      structured = shorten_structure(text, max, &full[r]);
    } else {
      full[r] = strdup(text);
      if (!full[r]) ld_oom();
    }
    out[r] = cut(structured ? structured : full[r], max, source, -1);
    free(structured);
  }
  /* Rows whose short names collide, though their names differ, keep the
  ** part where they differ: as far as the longest common prefix with
  ** another such row.  Sorted by (short, full) name, that row is the
  ** nearest one before or after the run of rows with the same full name
  ** (linear after the sort: a section may have tens of thousands of rows). */
  long *diff = malloc(((size_t)s->nrows + 1) * sizeof *diff);
  name_pair *o = malloc(((size_t)s->nrows + 1) * sizeof *o);
  if (!diff || !o) ld_oom();
  for (int r = 0; r < s->nrows; r++) o[r] = (name_pair){out[r], full[r], r};
  qsort(o, (size_t)s->nrows, sizeof *o, cmp_name_pair);
  for (int i = 0; i < s->nrows;) {
    int j = i + 1; /* [i, j): rows with the same short and full name */
    while (j < s->nrows && !cmp_name_pair(&o[j], &o[i])) j++;
    long d = -1;
    if (i > 0 && !strcmp(o[i - 1].short_name, o[i].short_name))
      d = (long)first_difference(o[i - 1].full, o[i].full);
    if (j < s->nrows && !strcmp(o[j].short_name, o[i].short_name)) {
      long e = (long)first_difference(o[j].full, o[i].full);
      if (e > d) d = e;
    }
    for (int k = i; k < j; k++) diff[o[k].row] = d;
    i = j;
  }
  free(o);
  for (int r = 0; r < s->nrows; r++) {
    if (diff[r] < 0) continue;
    free(out[r]);
    out[r] = cut(full[r], max, 0, diff[r]);
  }
  free(diff);
  for (int r = 0; r < s->nrows; r++) free(full[r]);
  free(full);
  return out;
}

static int id_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

const rp_section *rp_cited_section(const rp_report *r, const char *text, const char *p) {
  if (p > text && id_char(p[-1])) return NULL;
  for (int i = 0; i < r->nsections; i++) {
    const char *id = r->sections[i].id;
    size_t n = strlen(id);
    if (strncmp(p, id, n) || id_char(p[n])) continue;
    int column = p[n] == '.' && id_char(p[n + 1]);
    int parenthesized = p > text && p[-1] == '(' && p[n] == ')';
    if (strchr(id, '_') || column || parenthesized) return &r->sections[i];
  }
  return NULL;
}

void rp_free_names(char **names, int n) {
  if (!names) return;
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

int rp_rank_count(const rp_section *s, int rank_col) {
  int ranks = 0;
  if (rank_col < 0) return 0;
  for (int i = 0; i < s->nrows; i++) {
    const rp_value *v = rp_cell(s, i, rank_col), *u = i ? rp_cell(s, i - 1, rank_col) : NULL;
    if (v->type == SQLITE_NULL) continue;
    if (!u || u->type != v->type || (v->type == SQLITE_INTEGER && u->i != v->i) ||
        (v->type == SQLITE_TEXT && strcmp(u->s, v->s)))
      ranks++;
  }
  return ranks;
}


int rp_rank_column(const rp_section *s) {
  int c = rp_col_index(s, "rank");
  if (c < 0) c = rp_col_index(s, "label"); /* a trace: a rank of a job */
  if (c < 0) c = rp_col_index(s, "trace");
  if (c < 0) c = rp_col_index(s, "process_group");
  return c;
}
