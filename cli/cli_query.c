/*
** cli_query.c — `profdb query DB [SQL]`: run SQL and print rows as an
** aligned table (default), CSV (RFC 4180) or JSON (an array of objects
** per statement, numbers as numbers).
*/
#include "cli.h"
#include "oom.h"

#include "buf.h"
#include "utf8.h"
#include "profdb/profdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char query_usage[] =
    "usage: profdb query DB [--table | --csv | --json] [SQL]\n"
    "\n"
    "Run SQL against DB (opened read-only, with the profdb SQL functions\n"
    "loaded) and print the rows.  Without SQL, reads it from stdin.  Several\n"
    "statements may be given; each result is printed.\n"
    "\n"
    "  --table   aligned columns, cells over 80 characters shortened (default)\n"
    "  --csv     CSV with a header row, nothing shortened; text shown safely\n"
    "            (control characters as U+FFFD, a leading = + - @ TAB quoted\n"
    "            with ') for spreadsheets: --json keeps every byte\n"
    "  --json    one JSON array of row objects per statement\n";

#define TABLE_CELL_MAX 80

/* Display width in characters (UTF-8 lead bytes). */
static size_t display_len(const char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) w++;
  return w;
}

/* Byte length of the first `chars` characters. */
static size_t prefix_bytes(const char *s, size_t n, size_t chars) {
  size_t i = 0, c = 0;
  while (i < n) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (c == chars) break;
      c++;
    }
    i++;
  }
  return i;
}

typedef struct cell_store {
  ld_buf text; /* cell texts, NUL-separated */
  size_t *off; /* offsets of each cell */
  size_t n, cap;
} cell_store;

static void cell_add(cell_store *c, const char *s, size_t n) {
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->off = realloc(c->off, c->cap * sizeof *c->off);
    if (!c->off) ld_oom();
  }
  c->off[c->n++] = c->text.n;
  ld_buf_put(&c->text, s, n);
  ld_buf_putc(&c->text, 0);
}

static void put_cell(FILE *out, const char *s, size_t width, int right) {
  size_t n = strlen(s), w = display_len(s, n);
  if (right)
    for (size_t i = w; i < width; i++) fputc(' ', out);
  fputs(s, out);
  if (!right)
    for (size_t i = w; i < width; i++) fputc(' ', out);
}

/* Table mode buffers the rows to compute column widths. */
static int print_table(sqlite3_stmt *st, FILE *out) {
  int ncol = sqlite3_column_count(st);
  cell_store cells = {0};
  size_t *width = calloc((size_t)ncol, sizeof *width);
  int *numeric = calloc((size_t)ncol, sizeof *numeric);
  int rc, rows = 0;
  for (int c = 0; c < ncol; c++) {
    const char *name = sqlite3_column_name(st, c);
    cell_add(&cells, name, strlen(name));
    width[c] = display_len(name, strlen(name));
    numeric[c] = 1;
  }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    rows++;
    for (int c = 0; c < ncol; c++) {
      int type = sqlite3_column_type(st, c);
      const char *s = (const char *)sqlite3_column_text(st, c);
      size_t n = s ? (size_t)sqlite3_column_bytes(st, c) : 0;
      if (type == SQLITE_TEXT || type == SQLITE_BLOB) numeric[c] = 0;
      char tmp[TABLE_CELL_MAX * 4 + 8];
      if (!s) {
        s = "";
        n = 0;
      }
      if (display_len(s, n) > TABLE_CELL_MAX) {
        size_t keep = prefix_bytes(s, n, TABLE_CELL_MAX - 3);
        memcpy(tmp, s, keep);
        memcpy(tmp + keep, "...", 3);
        s = tmp;
        n = keep + 3;
      }
      /* Newlines would break the table: show them as spaces; other
      ** control characters (escape sequences) as U+FFFD. */
      char *flat = malloc(n + 1);
      for (size_t i = 0; i < n; i++) flat[i] = (s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
      ld_buf visible = {0};
      utf8_put_visible(&visible, flat, n);
      cell_add(&cells, visible.p ? visible.p : "", visible.n);
      ld_buf_free(&visible);
      free(flat);
      size_t w = display_len(s, n);
      if (w > width[c]) width[c] = w;
    }
  }
  if (rc == SQLITE_DONE && ncol > 0) {
    size_t k = 0;
    for (int r = 0; r <= rows; r++) {
      for (int c = 0; c < ncol; c++, k++) {
        if (c) fputs("  ", out);
        put_cell(out, cells.text.p + cells.off[k], width[c], r > 0 && numeric[c]);
      }
      fputc('\n', out);
      if (r == 0) {
        for (int c = 0; c < ncol; c++) {
          if (c) fputs("  ", out);
          for (size_t i = 0; i < width[c]; i++) fputc('-', out);
        }
        fputc('\n', out);
      }
    }
  }
  ld_buf_free(&cells.text);
  free(cells.off);
  free(width);
  free(numeric);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* The report's CSV field (report_csv.c): control characters as U+FFFD, a
** cell a spreadsheet would run as a formula prefixed with a quote. */
static void csv_field(FILE *out, const char *s, size_t n) {
  ld_buf b = {0};
  rp_csv_field(&b, s, n);
  fwrite(b.p ? b.p : "", 1, b.n, out);
  ld_buf_free(&b);
}

static int print_csv(sqlite3_stmt *st, FILE *out) {
  int ncol = sqlite3_column_count(st), rc;
  for (int c = 0; c < ncol; c++) {
    if (c) fputc(',', out);
    const char *name = sqlite3_column_name(st, c);
    csv_field(out, name, strlen(name));
  }
  if (ncol) fputs("\r\n", out);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int c = 0; c < ncol; c++) {
      if (c) fputc(',', out);
      int type = sqlite3_column_type(st, c); /* before a conversion to text */
      const char *s = (const char *)sqlite3_column_text(st, c);
      if (s && (type == SQLITE_INTEGER || type == SQLITE_FLOAT))
        fputs(s, out); /* a number is never a formula */
      else if (s)
        csv_field(out, s, (size_t)sqlite3_column_bytes(st, c));
    }
    fputs("\r\n", out);
  }
  return rc == SQLITE_DONE ? 0 : -1;
}

static void json_value(FILE *out, sqlite3_stmt *st, int c, ld_buf *tmp) {
  switch (sqlite3_column_type(st, c)) {
    case SQLITE_NULL: fputs("null", out); return;
    case SQLITE_INTEGER: fprintf(out, "%lld", (long long)sqlite3_column_int64(st, c)); return;
    case SQLITE_FLOAT: {
      double d = sqlite3_column_double(st, c);
      if (d != d || d - d != 0)
        fputs("null", out); /* NaN/Inf are not JSON */
      else
        fprintf(out, "%.17g", d);
      return;
    }
    default: {
      const char *s = (const char *)sqlite3_column_text(st, c);
      tmp->n = 0;
      ld_buf_put_json_string(tmp, s ? s : "", s ? (size_t)sqlite3_column_bytes(st, c) : 0);
      fwrite(tmp->p, 1, tmp->n, out);
    }
  }
}

static int print_json(sqlite3_stmt *st, FILE *out) {
  int ncol = sqlite3_column_count(st), rc, first = 1;
  ld_buf tmp = {0};
  fputc('[', out);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    fputs(first ? "\n  {" : ",\n  {", out);
    first = 0;
    for (int c = 0; c < ncol; c++) {
      if (c) fputs(", ", out);
      const char *name = sqlite3_column_name(st, c);
      tmp.n = 0;
      ld_buf_put_json_string(&tmp, name, strlen(name));
      fwrite(tmp.p, 1, tmp.n, out);
      fputs(": ", out);
      json_value(out, st, c, &tmp);
    }
    fputc('}', out);
  }
  fputs(first ? "]\n" : "\n]\n", out);
  ld_buf_free(&tmp);
  return rc == SQLITE_DONE ? 0 : -1;
}

int cli_print_query(sqlite3 *db, const char *sql, cli_format fmt, FILE *out) {
  const char *tail = sql;
  int printed = 0;
  while (tail && *tail) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
      fprintf(stderr, "profdb: query: %s\n", sqlite3_errmsg(db));
      return -1;
    }
    if (!st) continue; /* whitespace or comment */
    int rc;
    if (sqlite3_column_count(st) == 0) {
      rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    } else {
      if (printed++ && fmt != FMT_JSON) fputc('\n', out);
      rc = fmt == FMT_CSV    ? print_csv(st, out)
           : fmt == FMT_JSON ? print_json(st, out)
                             : print_table(st, out);
    }
    if (rc) fprintf(stderr, "profdb: query: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc) return -1;
  }
  return 0;
}

int cli_query(int argc, char **argv) {
  const char *db_path = NULL, *sql = NULL;
  cli_format fmt = FMT_TABLE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(query_usage, stdout);
      return PROFDB_EXIT_OK;
    } else if (!strcmp(a, "--csv"))
      fmt = FMT_CSV;
    else if (!strcmp(a, "--json"))
      fmt = FMT_JSON;
    else if (!strcmp(a, "--table"))
      fmt = FMT_TABLE;
    else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "profdb: query: unknown option '%s'\n%s", a, query_usage);
      return PROFDB_EXIT_USAGE;
    } else if (!db_path)
      db_path = a;
    else if (!sql)
      sql = a;
    else {
      fprintf(stderr, "profdb: query: give the SQL as one argument\n");
      return PROFDB_EXIT_USAGE;
    }
  }
  if (!db_path) {
    fputs(query_usage, stderr);
    return PROFDB_EXIT_USAGE;
  }
  ld_buf in = {0};
  if (!sql) {
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) ld_buf_put(&in, chunk, n);
    sql = ld_buf_cstr(&in);
  }
  sqlite3 *db = cli_open_db(db_path, 1);
  int rc = PROFDB_EXIT_USAGE;
  if (db) {
    rc = cli_print_query(db, sql, fmt, stdout) ? PROFDB_EXIT_USAGE : PROFDB_EXIT_OK;
    sqlite3_close(db);
  }
  ld_buf_free(&in);
  return rc;
}
