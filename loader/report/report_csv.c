/*
** report_csv.c — each section of a report or diff as one CSV file
** (`profdb report DB --csv DIR`, `profdb diff A B --csv DIR`), the shape of
** `nsys stats -f csv`: DIR/SECTION.csv per section, findings.csv (or
** verdict.csv) for the summary and gate.csv for a diff's gate.
**
** Requirements:
**   1. RFC 4180: a header row of the column names, then one record per
**      row, CRLF line ends; a field is quoted when it holds a comma, a
**      double quote, CR or LF, a quote inside doubled.
**   2. Raw values, as the JSON has them: integers exactly (ns, bytes,
**      counts), reals in the shortest form that reads back to the same
**      double, text whole (names are never shortened), NULL as an empty
**      field.  A column of unit "json" is its JSON text, as a field.
**   3. A section without rows still gets its file with the header row, so
**      the set of files does not depend on the data.
**   4. Each file is written atomically (rp_write_file).
*/
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Requirement 1: one field, quoted when needed. */
static void put_field(ld_buf *b, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    ld_buf_put(b, s, strlen(s));
    return;
  }
  ld_buf_put(b, "\"", 1);
  for (const char *p = s; *p; p++) {
    if (*p == '"') ld_buf_put(b, "\"", 1);
    ld_buf_put(b, p, 1);
  }
  ld_buf_put(b, "\"", 1);
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
    case SQLITE_TEXT: put_field(b, v->s ? v->s : ""); break;
    default: break; /* NULL: an empty field */
  }
}

void rp_section_csv(const rp_section *s, ld_buf *b) {
  for (int c = 0; c < s->ncols; c++) {
    if (c) ld_buf_put(b, ",", 1);
    put_field(b, s->cols[c].name);
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
