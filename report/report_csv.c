/*
** report_csv.c — each section of a report or diff as one CSV file
** (`profdb report DB --csv DIR`, `profdb diff A B --csv DIR`), the shape of
** `nsys stats -f csv`: DIR/SECTION.csv per section, findings.csv (or
** verdict.csv) for the summary and gate.csv for a diff's gate.
**
** Requirements:
**   1. RFC 4180: a header row of the column names, then one record per
**      row, CRLF line ends; a field is quoted when it holds a comma, a
**      double quote or LF, a quote inside doubled.
**   2. Raw values, as the JSON has them: integers exactly (ns, bytes,
**      counts), reals in the shortest form that reads back to the same
**      double, text whole (names are never shortened), NULL as an empty
**      field.  A column of unit "json" is its JSON text, as a field.
**   3. A section without rows still gets its file with the header row, so
**      the set of files does not depend on the data.
**   4. Each file is written atomically (rp_write_file).
**   5. Safe to open and to print (CWE-1236): text is a name from an
**      untrusted trace.  Control characters other than TAB and LF (ESC,
**      BEL, CR, NUL, DEL, C1) and invalid UTF-8 are U+FFFD, as in the
**      Markdown and terminal output; a text cell that a spreadsheet would
**      read as a formula (it begins with = + - @ or TAB) gets a leading
**      single quote, as OWASP recommends, unless it is a plain number
**      ("-3", "+1.5e3", "+0.5%").  Numbers from SQL are never changed.  Programs
**      that need every byte read the JSON output instead.
*/
#include "report.h"

#include "utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A plain decimal number, which a spreadsheet reads as a number, not a
** formula: [+-] digits [. digits] [e [+-] digits] [%], nothing else
** ("-3", "+0.5%" from a diff's gate). */
static int plain_number(const char *s, size_t n) {
  size_t i = 0, digits = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) i++;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) digits++;
  if (i < n && s[i] == '.')
    for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) digits++;
  if (!digits) return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t exp = ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) exp = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == exp) return 0;
  }
  if (i < n && s[i] == '%') i++;
  return i == n;
}

/* Requirements 1 and 5: one text field, made visible, neutralised and
** quoted when needed. */
void rp_csv_field(ld_buf *b, const char *s, size_t n) {
  ld_buf v = {0};
  if (n && memchr("=+-@\t", s[0], 5) && !plain_number(s, n)) ld_buf_put(&v, "'", 1);
  utf8_put_visible(&v, s, n); /* CR becomes U+FFFD: it cannot start a cell */
  const char *p = v.p ? v.p : "";
  int quote = 0;
  for (size_t i = 0; i < v.n && !quote; i++) quote = p[i] == ',' || p[i] == '"' || p[i] == '\n';
  if (!quote) {
    ld_buf_put(b, p, v.n);
  } else {
    ld_buf_put(b, "\"", 1);
    for (size_t i = 0; i < v.n; i++) {
      if (p[i] == '"') ld_buf_put(b, "\"", 1);
      ld_buf_put(b, p + i, 1);
    }
    ld_buf_put(b, "\"", 1);
  }
  ld_buf_free(&v);
}

/* Requirement 2: one cell. */
static void put_value(ld_buf *b, const rp_value *v) {
  char num[40];
  switch (v->type) {
    case SQLITE_INTEGER:
      snprintf(num, sizeof num, "%lld", v->i);
      ld_buf_put(b, num, strlen(num));
      break;
    case SQLITE_FLOAT:
      if (v->d != v->d || v->d - v->d != 0) break; /* NaN, infinity: empty */
      for (int prec = 15; prec <= 17; prec++) {
        snprintf(num, sizeof num, "%.*g", prec, v->d);
        if (strtod(num, NULL) == v->d) break;
      }
      ld_buf_put(b, num, strlen(num));
      break;
    case SQLITE_TEXT: rp_csv_field(b, v->s ? v->s : "", v->s ? strlen(v->s) : 0); break;
    default: break; /* NULL: an empty field */
  }
}

void rp_section_csv(const rp_section *s, ld_buf *b) {
  for (int c = 0; c < s->ncols; c++) {
    if (c) ld_buf_put(b, ",", 1);
    rp_csv_field(b, s->cols[c].name, strlen(s->cols[c].name));
  }
  ld_buf_put(b, "\r\n", 2);
  for (int r = 0; r < s->nrows; r++) {
    for (int c = 0; c < s->ncols; c++) {
      if (c) ld_buf_put(b, ",", 1);
      put_value(b, rp_cell(s, r, c));
    }
    ld_buf_put(b, "\r\n", 2);
  }
}

static int write_one(const char *dir, const char *id, const rp_section *s) {
  char path[8192];
  /* Ids come from a query pack's list: never a path out of dir. */
  if (!*id || *id == '.' || strchr(id, '/')) {
    fprintf(stderr, "profdb: section id '%s' cannot name a file\n", id);
    return -1;
  }
  snprintf(path, sizeof path, "%s/%s.csv", dir, id);
  ld_buf b = {0};
  rp_section_csv(s, &b);
  int rc = rp_write_file(path, b.p ? b.p : "", b.n);
  if (rc) fprintf(stderr, "profdb: %s: cannot write: %s\n", path, strerror(errno));
  ld_buf_free(&b);
  return rc;
}

int rp_write_csv_dir(const rp_report *r, const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0 && mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "profdb: %s: cannot create: %s\n", dir, strerror(errno));
    return -1;
  }
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "profdb: %s: not a directory\n", dir);
    return -1;
  }
  int n = 0;
  if (r->with_findings) {
    if (write_one(dir, r->kind->summary_key, &r->findings)) return -1;
    n++;
  }
  for (int i = 0; i < r->nsections; i++, n++)
    if (write_one(dir, r->sections[i].id, &r->sections[i])) return -1;
  if (r->with_gate) {
    if (write_one(dir, "gate", &r->gate)) return -1;
    n++;
  }
  return n;
}
