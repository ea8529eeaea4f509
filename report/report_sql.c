/*
** report_sql.c — find, parse and run the report's query files.
**
** A query file starts with a header of "-- Key: value" lines (a value may
** continue on "--   ..." lines), then the SQL:
**
**   -- Title: Top GPU kernels
**   -- Question: Which kernels take the GPU time?
**   -- Requires: report_gpu
**   -- Parameters: :top
**   -- Empty: the trace has no GPU kernels; profile with ProfilerActivity.CUDA
**   -- Columns:
**   --   total_dur_ns  ns     total time of the kernel
**   --   name          -      kernel name
**   -- Brief: name total_dur_ns       (optional: the Markdown table's columns)
**   -- Chart: bars x=name y=total_dur_ns   (optional: report_svg.c)
**   SELECT ...
**
** Requirement 1: a section whose required tables are empty, or whose query
**   returns no rows, is reported as skipped with its Empty text.
** Requirement 2: the columns the query returns must be the ones declared,
**   in order; a mismatch is an error, so the documentation cannot drift.
** Requirement 4: a skipped section's reason is the Empty text, unless the
**   prelude's report_unavailable table (requirement, reason) names a
**   reason for one of its required tables (no trace loaded at all, ...).
** Requirement 5: a Chart with data=FILE runs FILE (relative to the queries
**   folder) after the section; its rows are the chart's, whatever columns.
** Requirement 3: named parameters (:top, :include_warmup, ...) are bound
**   from the report's parameter list in every statement that uses them.
*/
#include "report.h"
#include "oom.h"
#include "clock.h"
#include "progress.h"
#include "script.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set by CMake: the path from the installed executable's folder to the
** installed queries (bin -> ../share/profdb/queries), the build folder
** the executable is made in, and the source tree's queries/. */
#ifndef PROFDB_QUERIES_FROM_BINDIR
#define PROFDB_QUERIES_FROM_BINDIR "../share/profdb/queries"
#endif
#ifndef PROFDB_BUILD_DIR
#define PROFDB_BUILD_DIR ""
#endif
#ifndef PROFDB_QUERIES_SOURCE_DIR
#define PROFDB_QUERIES_SOURCE_DIR ""
#endif

const rp_kind rp_kind_report = {"profdb report", "report.list", "", "lib",      "findings.sql",
                                "findings",      "scope.sql",   0,  "findings", "lib/findings"};
const rp_kind rp_kind_diff = {
    "profdb diff", "diff/diff.list", "diff/", "diff/lib", "diff/verdict.sql",
    "verdict",     "diff/scope.sql", 1,       NULL,       NULL};
/* The trend's tables are filled by cli/cli_trend.c: no prelude. */
const rp_kind rp_kind_trend = {"profdb diff: trend",
                               "diff/trend/trend.list",
                               "diff/trend/",
                               NULL,
                               "diff/trend/verdict.sql",
                               "verdict",
                               NULL,
                               1,
                               NULL,
                               NULL};

static int is_dir(const char *p) {
  struct stat st;
  return p && *p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder of the running executable (from /proc/self/exe, so it holds
** wherever the install tree was copied or moved), or 0. */
static int exe_dir(char *out, size_t n) {
  ssize_t len = readlink("/proc/self/exe", out, n - 1);
  if (len <= 0) return 0;
  out[len] = 0;
  char *slash = strrchr(out, '/');
  if (!slash) return 0;
  *slash = 0;
  return 1;
}

/* Whether a and b name the same existing folder. */
static int same_dir(const char *a, const char *b) {
  struct stat sa, sb;
  return *a && *b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* Try one candidate: returns a copy when it is a folder, else adds it to
** the list of places looked at. */
static char *try_dir(const char *dir, const char *why, ld_buf *looked) {
  if (is_dir(dir)) {
    char *d = strdup(dir);
    if (!d) ld_oom();
    return d;
  }
  char line[PATH_MAX + 128];
  int n = snprintf(line, sizeof line, "  %s (%s)\n", dir, why);
  ld_buf_put(looked, line, n < (int)sizeof line ? (size_t)n : sizeof line - 1);
  return NULL;
}

char *rp_find_queries(const char *option, char **looked) {
  ld_buf tried = {0};
  char *found = NULL;
  const char *env = getenv("PROFDB_QUERIES");
  char exe[PATH_MAX], installed[PATH_MAX + 64];
  if (option) {
    found = try_dir(option, "--queries", &tried);
  } else if (env && *env) {
    found = try_dir(env, "$PROFDB_QUERIES", &tried);
  } else if (exe_dir(exe, sizeof exe)) {
    snprintf(installed, sizeof installed, "%s/%s", exe, PROFDB_QUERIES_FROM_BINDIR);
    found = try_dir(installed, "installed, next to the executable", &tried);
    /* The source tree only for the executable in its build folder: an
    ** installed profdb never depends on the checkout it was built from. */
    if (!found && same_dir(exe, PROFDB_BUILD_DIR))
      found = try_dir(PROFDB_QUERIES_SOURCE_DIR, "source tree of this build", &tried);
  }
  if (!found && !tried.n) {
    static const char unknown[] = "  (the executable's own path is unknown)\n";
    ld_buf_put(&tried, unknown, sizeof unknown - 1);
  }
  ld_buf_cstr(&tried);
  if (found) ld_buf_free(&tried);
  if (looked)
    *looked = found ? NULL : tried.p;
  else if (!found)
    ld_buf_free(&tried);
  return found;
}

static char *xstrdup(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d) ld_oom();
  return d;
}

/* The text of a query file (or list): a regular file (never a FIFO or a
** device such as /dev/zero, which would block or never end) of at most
** RP_MAX_TEXT_FILE bytes.  Prints "profdb: PATH: why" and returns NULL
** when it is not. */
static char *read_file(const char *path) {
  size_t n;
  return rp_read_text(path, RP_MAX_TEXT_FILE, NULL, &n);
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
  return s;
}

/* Append text to a header field, joining continuation lines with spaces. */
static void field_append(char **field, const char *text) {
  if (!*field) {
    *field = xstrdup(text);
    return;
  }
  size_t a = strlen(*field), b = strlen(text);
  char *n = realloc(*field, a + b + 2);
  if (!n) ld_oom();
  n[a] = ' ';
  memcpy(n + a + 1, text, b + 1);
  *field = n;
}

/* Requirement 2 for the Brief list and the chart's columns: each names a
** declared column (a typo would silently drop it). */
static int check_column_names(const rp_section *s) {
  char lists[3][1024] = {"", "", ""};
  if (s->brief) snprintf(lists[0], sizeof lists[0], "%s", s->brief);
  char data[512];
  if (s->chart && !rp_chart_key(s, "data", data, sizeof data)) { /* data= rows: free form */
    rp_chart_key(s, "x", lists[1], sizeof lists[1]);
    char more[1024] = "";
    if (rp_chart_key(s, "parts", more, sizeof more) ||
        rp_chart_key(s, "y", more, sizeof more) || rp_chart_key(s, "lines", more, sizeof more))
      snprintf(lists[2], sizeof lists[2], "%s", more);
  }
  for (int k = 0; k < 3; k++) {
    char *save;
    for (char *name = strtok_r(lists[k], " ,", &save); name; name = strtok_r(NULL, " ,", &save))
      if (rp_col_index(s, name) < 0) {
        fprintf(stderr, "profdb: %s: %s names '%s', which is not one of its Columns\n", s->path,
                k ? "Chart" : "Brief", name);
        return -1;
      }
  }
  return 0;
}

int rp_parse_file(const char *path, const char *id, rp_section *s) {
  memset(s, 0, sizeof *s);
  s->id = xstrdup(id);
  s->path = xstrdup(path);
  char *text = read_file(path);
  if (!text) return -1;
  char **current = NULL; /* field a continuation line extends */
  int in_columns = 0;
  char *p = text;
  while (*p) {
    char *eol = strchr(p, '\n');
    char *next = eol ? eol + 1 : p + strlen(p);
    if (eol) *eol = 0;
    if (strncmp(p, "--", 2) != 0) {
      if (eol) *eol = '\n';
      break; /* the SQL starts here */
    }
    char *line = p + 2;
    int indented = line[0] == ' ' && line[1] == ' ';
    line = trim(line);
    char *colon = strchr(line, ':');
    /* A key is a single word followed by ':' at the start of the line. */
    int keyed = 0;
    if (!indented && colon) {
      keyed = 1;
      for (char *c = line; c < colon; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z'))) keyed = 0;
    }
    if (keyed) {
      *colon = 0;
      char *value = trim(colon + 1);
      in_columns = 0;
      current = NULL;
      if (!strcmp(line, "Title"))
        current = &s->title;
      else if (!strcmp(line, "Question"))
        current = &s->question;
      else if (!strcmp(line, "Requires"))
      current = &s->requires;
      else if (!strcmp(line, "Empty")) current = &s->empty;
      else if (!strcmp(line, "Brief")) current = &s->brief;
      else if (!strcmp(line, "Chart")) current = &s->chart;
      else if (!strcmp(line, "Columns")) in_columns = 1;
      if (current && *value) field_append(current, value);
    } else if (in_columns && *line) {
      /* "name unit description" */
      char *save;
      char *name = strtok_r(line, " \t", &save);
      char *unit = strtok_r(NULL, " \t", &save);
      char *doc = strtok_r(NULL, "", &save);
      s->cols = realloc(s->cols, (size_t)(s->ncols + 1) * sizeof *s->cols);
      if (!s->cols) ld_oom();
      rp_column *c = &s->cols[s->ncols++];
      c->name = xstrdup(name);
      c->unit = xstrdup(unit && strcmp(unit, "-") ? unit : "");
      c->doc = xstrdup(doc ? trim(doc) : "");
    } else if (current && *line) {
      field_append(current, line);
    }
    p = next;
  }
  s->sql = xstrdup(p);
  free(text);
  if (!s->title) s->title = xstrdup(id);
  return check_column_names(s);
}

/* ---- parameters --------------------------------------------------------- */

/* The report's parameters as a script's binder (script.h). */
static int bind_report(sqlite3_stmt *st, const void *r) {
  rp_bind_params((rp_report *)r, st);
  return 0;
}

int rp_exec_script(rp_report *r, const char *path) {
  char *sql = read_file(path);
  if (!sql) return -1;
  int rc = ld_run_script(r->db, sql, bind_report, r);
  if (rc) fprintf(stderr, "profdb: %s: %s\n", path, sqlite3_errmsg(r->db));
  free(sql);
  return rc;
}

/* ---- sections ------------------------------------------------------------ */

int rp_pack_relative(const char *file) {
  if (!*file || file[0] == '/') return 0;
  for (const char *p = file; *p;) { /* no '..' component */
    size_t n = strcspn(p, "/");
    if (n == 2 && p[0] == '.' && p[1] == '.') return 0;
    p += n;
    while (*p == '/') p++;
  }
  return 1;
}

static int table_empty(sqlite3 *db, const char *name, int *empty) {
  char *sql = sqlite3_mprintf("SELECT EXISTS (SELECT 1 FROM \"%w\")", name);
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return -1;
  *empty = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0;
  sqlite3_finalize(st);
  return 0;
}

static void skip(rp_section *s, const char *why) {
  s->skipped = 1;
  free(s->note);
  s->note = xstrdup(why);
}

/* Requirement 4: the prelude's reason for a required table, if any. */
static char *unavailable_reason(rp_report *r, const rp_section *s) {
  if (!s->requires) return NULL;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(r->db,
                         "SELECT reason FROM temp.report_unavailable"
                         " WHERE instr(' ' || ?1 || ' ', ' ' || requirement || ' ')"
                         " ORDER BY rowid LIMIT 1",
                         -1, &st, NULL) != SQLITE_OK)
    return NULL; /* no such table: the Empty texts hold */
  sqlite3_bind_text(st, 1, s->requires, -1, SQLITE_STATIC);
  char *why = NULL;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    why = xstrdup((const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return why;
}

static void skip_section(rp_report *r, rp_section *s, const char *fallback) {
  char *why = unavailable_reason(r, s);
  skip(s, why ? why : s->empty ? s->empty : fallback);
  free(why);
}

/* Rows of one statement into s (columns as the statement names them). */
static int fetch_rows(rp_report *r, sqlite3_stmt *st, rp_section *s, const char *path);

/* Requirement 5: the chart's own rows. */
static int run_chart_data(rp_report *r, rp_section *s) {
  char file[512];
  if (!rp_chart_key(s, "data", file, sizeof file)) return 0;
  if (!rp_pack_relative(file)) {
    fprintf(stderr,
            "profdb: %s: Chart data=%s: must name a file inside the query folder"
            " (a relative path without '..')\n",
            s->path, file);
    return -1;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", r->queries_dir, file);
  rp_section *d = calloc(1, sizeof *d);
  if (!d) ld_oom();
  s->chart_data = d;
  if (rp_parse_file(path, file, d)) return -1;
  sqlite3_stmt *st;
  int prc = sqlite3_prepare_v2(r->db, d->sql, -1, &st, NULL);
  if (prc != SQLITE_OK || !st) {
    /* a failed prepare leaves st NULL: its message is the database's */
    fprintf(stderr, "profdb: %s: %s\n", path,
            prc != SQLITE_OK ? sqlite3_errmsg(r->db) : "no SQL statement");
    sqlite3_finalize(st);
    return -1;
  }
  for (int c = 0; c < d->ncols; c++) {
    free(d->cols[c].name);
    free(d->cols[c].unit);
    free(d->cols[c].doc);
  }
  d->ncols = sqlite3_column_count(st);
  d->cols = realloc(d->cols, (size_t)(d->ncols + 1) * sizeof *d->cols);
  if (!d->cols) ld_oom();
  for (int c = 0; c < d->ncols; c++) {
    d->cols[c].name = xstrdup(sqlite3_column_name(st, c));
    d->cols[c].unit = xstrdup("");
    d->cols[c].doc = xstrdup("");
  }
  rp_bind_params(r, st);
  return fetch_rows(r, st, d, path);
}

int rp_run_section(rp_report *r, rp_section *s) {
  if (s->requires) {
    char *req = xstrdup(s->requires), *save;
    for (char *name = strtok_r(req, " ,", &save); name; name = strtok_r(NULL, " ,", &save)) {
      int empty = 0;
      if (table_empty(r->db, name, &empty)) {
        fprintf(stderr, "profdb: %s: requires '%s': %s\n", s->path, name,
                sqlite3_errmsg(r->db));
        free(req);
        return -1;
      }
      if (empty) {
        skip_section(r, s, "no data");
        free(req);
        return 0;
      }
    }
    free(req);
  }
  sqlite3_stmt *st;
  const char *tail;
  int prc = sqlite3_prepare_v2(r->db, s->sql, -1, &st, &tail);
  if (prc != SQLITE_OK || !st) {
    /* a failed prepare leaves st NULL: its message is the database's */
    fprintf(stderr, "profdb: %s: %s\n", s->path,
            prc != SQLITE_OK ? sqlite3_errmsg(r->db) : "no SQL statement");
    sqlite3_finalize(st);
    return -1;
  }
  int ncol = sqlite3_column_count(st);
  int mismatch = ncol != s->ncols;
  for (int c = 0; !mismatch && c < ncol; c++)
    mismatch = strcmp(sqlite3_column_name(st, c), s->cols[c].name) != 0;
  if (mismatch) {
    fprintf(stderr, "profdb: %s: the query's columns (", s->path);
    for (int c = 0; c < ncol; c++)
      fprintf(stderr, "%s%s", c ? ", " : "", sqlite3_column_name(st, c));
    fprintf(stderr, ") differ from the header's Columns (");
    for (int c = 0; c < s->ncols; c++) fprintf(stderr, "%s%s", c ? ", " : "", s->cols[c].name);
    fprintf(stderr, ")\n");
    sqlite3_finalize(st);
    return -1;
  }
  rp_bind_params(r, st);
  if (fetch_rows(r, st, s, s->path)) return -1;
  if (s->nrows == 0) {
    skip_section(r, s, "no rows");
    return 0;
  }
  return run_chart_data(r, s);
}

/* Column c's text.  A NUL inside it (the database keeps it whole) would cut
** the value in every output: it becomes U+FFFD there, as other control
** characters do in the Markdown and CSV (issue 40, L3). */
static char *text_value(sqlite3_stmt *st, int c) {
  const char *t = (const char *)sqlite3_column_text(st, c);
  size_t n = t ? (size_t)sqlite3_column_bytes(st, c) : 0;
  if (!t || strlen(t) == n) return xstrdup(t);
  ld_buf b = {0};
  for (size_t i = 0; i < n; i++)
    if (t[i])
      ld_buf_putc(&b, t[i]);
    else
      ld_buf_put(&b, "\xEF\xBF\xBD", 3);
  ld_buf_cstr(&b);
  return b.p;
}

static int fetch_rows(rp_report *r, sqlite3_stmt *st, rp_section *s, const char *path) {
  int ncol = s->ncols, rc, cap = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (s->nrows == cap) {
      cap = cap ? cap * 2 : 16;
      s->cells = realloc(s->cells, (size_t)cap * (size_t)(ncol ? ncol : 1) * sizeof *s->cells);
      if (!s->cells) ld_oom();
    }
    rp_value *row = &s->cells[(size_t)s->nrows * (size_t)ncol];
    for (int c = 0; c < ncol; c++) {
      rp_value *v = &row[c];
      memset(v, 0, sizeof *v);
      v->type = sqlite3_column_type(st, c);
      if (v->type == SQLITE_INTEGER)
        v->i = sqlite3_column_int64(st, c);
      else if (v->type == SQLITE_FLOAT)
        v->d = sqlite3_column_double(st, c);
      else if (v->type != SQLITE_NULL) {
        v->type = SQLITE_TEXT;
        v->s = text_value(st, c);
      }
    }
    s->nrows++;
  }
  if (rc != SQLITE_DONE) {
    fprintf(stderr, "profdb: %s: %s\n", path, sqlite3_errmsg(r->db));
    sqlite3_finalize(st);
    return -1;
  }
  sqlite3_finalize(st);
  return 0;
}

int rp_load_sections(rp_report *r, const char *const *only, int nonly) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", r->queries_dir, r->kind->list);
  char *list = read_file(path);
  if (!list) return -1;
  char *group = xstrdup("");
  int rc = 0, found[64] = {0};
  char *save;
  for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    line = trim(line);
    if (!*line) continue;
    if (line[0] == '#') { /* a group heading */
      free(group);
      group = xstrdup(trim(line + 1));
      continue;
    }
    int wanted = nonly == 0;
    for (int k = 0; k < nonly && k < 64; k++)
      if (!strcmp(only[k], line)) wanted = found[k] = 1;
    if (!wanted) continue;
    r->sections = realloc(r->sections, (size_t)(r->nsections + 1) * sizeof *r->sections);
    if (!r->sections) ld_oom();
    rp_section *s = &r->sections[r->nsections];
    snprintf(path, sizeof path, "%s/%s%s.sql", r->queries_dir, r->kind->sections, line);
    if (rp_parse_file(path, line, s)) {
      rp_section_free(s);
      rc = -1;
      break;
    }
    s->group = xstrdup(group);
    r->nsections++;
  }
  for (int k = 0; rc == 0 && k < nonly && k < 64; k++)
    if (!found[k]) {
      fprintf(stderr, "profdb: no section '%s'; sections: %s", only[k], r->kind->summary_key);
      snprintf(path, sizeof path, "%s/%s", r->queries_dir, r->kind->list);
      char *again = read_file(path), *save2;
      for (char *l = again ? strtok_r(again, "\n", &save2) : NULL; l;
           l = strtok_r(NULL, "\n", &save2))
        if (*trim(l) && *trim(l) != '#') fprintf(stderr, ", %s", trim(l));
      fputc('\n', stderr);
      free(again);
      rc = -1;
    }
  free(group);
  free(list);
  return rc;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *rp_section_scope(const rp_report *r, const rp_section *s) {
  if (!r->time_scope) return NULL;
  if (s->requires && !strncmp(s->requires, "report_mem", 10)) return "snapshot";
  return r->time_scope;
}

/* The pragmas every connection that runs a prelude gets.  Memory
** independent of the trace's length: the TEMP tables (report_gpu holds
** every kernel of the scope) go to a temporary file behind a 16 MiB cache,
** the database is read through an 8 MiB page cache, not memory-mapped
** (mapped pages count in the process's resident memory, up to the whole
** file).  The main cache also sizes each sorter SQLite keeps in memory
** before it spills to the temporary file, and a statement may hold several
** (queue_length's window functions and its GROUP BY).  With 32 MiB each the
** report peaked at 163 MB on 1.24 GB of JSON, with these 85 MB, in the same
** time: the pages missed come from the operating system's file cache
** (docs/performance.md, "Seventh look"). */
void rp_lib_pragmas(sqlite3 *db) {
  sqlite3_exec(db,
               "PRAGMA temp_store=FILE; PRAGMA mmap_size=0; PRAGMA cache_size=-8192;"
               " PRAGMA temp.cache_size=-16384;",
               NULL, NULL, NULL);
}

int rp_run_lib_files(rp_report *r, const char *const *names, int n) {
  rp_lib_pragmas(r->db);
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s/%s", r->queries_dir, r->kind->lib, names[i]);
    double t0 = ld_seconds();
    char what[300];
    snprintf(what, sizeof what, "%s: preparing (lib/%s, %d of %d)", r->kind->title + 7,
             names[i], i + 1, n);
    progress_phase(what);
    if (rp_exec_script(r, path)) rc = -1;
    rp_timing(names[i], t0);
  }
  return rc;
}

/* 1 when a selected section (or the findings) lists NAME under Requires. */
static int required(const rp_report *r, const char *name) {
  for (int i = 0; i <= r->nsections; i++) {
    const rp_section *s = i < r->nsections ? &r->sections[i] : &r->findings;
    if (!s->requires) continue;
    char *req = xstrdup(s->requires), *save;
    int hit = 0;
    for (char *t = strtok_r(req, " ,", &save); t && !hit; t = strtok_r(NULL, " ,", &save))
      hit = !strcmp(t, name);
    free(req);
    if (hit) return 1;
  }
  return 0;
}

/* A prelude file whose header has "-- On demand: TABLE ..." builds tables
** that only some sections read (the critical path: a second of CPU on a
** 60 MB trace): it runs only when a selected section requires one of them,
** or, for the word 'findings' among them, when the findings run (their
** measures read it: lib/findings/replay.sql). */
static int lib_wanted(const rp_report *r, const char *path) {
  char *text = read_file(path);
  if (!text) return 1; /* running it reports the error */
  int wanted = 1;
  char *line = text;
  while (line && !strncmp(line, "--", 2)) { /* the header: the leading comment lines */
    char *end = strchr(line, '\n');
    if (end) *end = 0;
    if (!strncmp(line, "-- On demand:", 13)) {
      char *save;
      wanted = 0;
      for (char *t = strtok_r(line + 13, " ,", &save); t && !wanted;
           t = strtok_r(NULL, " ,", &save))
        wanted = !strcmp(t, "findings") ? r->with_findings && r->kind->rules : required(r, t);
      break;
    }
    line = end ? end + 1 : NULL;
  }
  free(text);
  return wanted;
}

/* Run the prelude (every .sql file under lib/, in name order, but those
** on demand that no selected section needs) on r->db. */
static int run_lib(rp_report *r) {
  if (!r->kind->lib) return 0;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/%s", r->queries_dir, r->kind->lib);
  char *names[64];
  int n = 0;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) && n < 64) {
      size_t len = strlen(e->d_name);
      char path[8192];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      if (len > 4 && !strcmp(e->d_name + len - 4, ".sql") && lib_wanted(r, path))
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
  }
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  int rc = rp_run_lib_files(r, (const char *const *)names, n);
  for (int i = 0; i < n; i++) free(names[i]);
  return rc;
}

/* Sections are handed out one at a time to whichever connection is free. */
typedef struct section_queue {
  rp_report *r;
  pthread_mutex_t lock;
  int next;         /* the next section to run */
  int with_summary; /* the summary is the last item */
  int failed;
} section_queue;

/* Section i of the queue: the report's sections, then the summary
** (findings or verdict) when it is run; it reads only the prelude's tables,
** like the sections. */
static rp_section *queued(section_queue *q, int i) {
  if (i < q->r->nsections) return &q->r->sections[i];
  return i == q->r->nsections && q->with_summary ? &q->r->findings : NULL;
}

static void queue_fail(section_queue *q) {
  pthread_mutex_lock(&q->lock);
  q->failed = 1;
  pthread_mutex_unlock(&q->lock);
}

static void run_sections(section_queue *q, rp_report *on) {
  for (;;) {
    pthread_mutex_lock(&q->lock);
    int k = q->next;
    rp_section *s = q->failed ? NULL : queued(q, q->next++);
    pthread_mutex_unlock(&q->lock);
    if (!s) return;
    double t0 = ld_seconds();
    char what[300]; /* shown from the main thread only (progress.c) */
    snprintf(what, sizeof what, "%s: section %d of %d (%s)", on->kind->title + 7, k + 1,
             q->r->nsections + q->with_summary, s->id);
    progress_phase(what);
    /* the findings section reads report_finding, built on this connection */
    int findings = s == &q->r->findings && on->kind->rules;
    if ((findings && rp_build_findings(on)) || rp_run_section(on, s)) {
      queue_fail(q);
      return;
    }
    rp_timing(s->id, t0);
  }
}

/* The second connection: its own copy of the prelude's TEMP tables, then
** sections from the shared queue. */
typedef struct helper {
  section_queue *q;
  rp_report on; /* a copy of the report that runs on db2 */
} helper;

static void *helper_main(void *arg) {
  helper *h = arg;
  if (run_lib(&h->on))
    queue_fail(h->q);
  else
    run_sections(h->q, &h->on);
  return NULL;
}

/* The scope note: the rows of the kind's scope query, joined by "; ". */
static int run_scope(rp_report *r) {
  char path[4096];
  if (!r->kind->scope) return 0;
  snprintf(path, sizeof path, "%s/%s", r->queries_dir, r->kind->scope);
  if (access(path, R_OK) != 0) return 0;
  rp_section s;
  if (rp_parse_file(path, "scope", &s)) return -1;
  int rc = rp_run_section(r, &s);
  ld_buf b = {0};
  for (int i = 0; rc == 0 && !s.skipped && i < s.nrows; i++) {
    const rp_value *v = rp_cell(&s, i, 0);
    if (v->type != SQLITE_TEXT) continue;
    if (b.n) ld_buf_put(&b, "; ", 2);
    ld_buf_put(&b, v->s, strlen(v->s));
  }
  if (b.n) {
    ld_buf_cstr(&b);
    r->scope_note = b.p;
  }
  rp_section_free(&s);
  return rc;
}

int rp_run(rp_report *r) {
  rp_timing(NULL, 0); /* read PROFDB_TIMING before a second thread could */
  if (rp_sandbox(r->db) || (r->db2 && rp_sandbox(r->db2))) {
    fprintf(stderr, "profdb: cannot restrict what the query files may do: %s\n",
            sqlite3_errmsg(r->db));
    return -1;
  }
  rp_timing_watch(r->db);
  rp_timing_watch(r->db2);
  section_queue q = {.r = r, .lock = PTHREAD_MUTEX_INITIALIZER};
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", r->queries_dir, r->kind->summary);
  if (r->with_findings && access(path, R_OK) == 0) {
    if (rp_parse_file(path, r->kind->summary_key, &r->findings)) return -1;
    q.with_summary = 1;
  }
  helper h = {.q = &q, .on = *r};
  h.on.db = r->db2;
  pthread_t thread;
  int threaded = r->db2 && r->nsections + q.with_summary > 1 &&
                 pthread_create(&thread, NULL, helper_main, &h) == 0;
  if (run_lib(r))
    queue_fail(&q);
  else
    run_sections(&q, r);
  if (threaded) pthread_join(thread, NULL);
  if (q.failed) return -1;
  int rc = run_scope(r);
  rp_timing_steps();
  return rc;
}

void rp_section_free(rp_section *s) {
  for (int i = 0; i < s->nrows * s->ncols; i++) free(s->cells[i].s);
  free(s->cells);
  for (int c = 0; c < s->ncols; c++) {
    free(s->cols[c].name);
    free(s->cols[c].unit);
    free(s->cols[c].doc);
  }
  free(s->cols);
  free(s->id);
  free(s->path);
  free(s->group);
  free(s->title);
  free(s->question);
  free(s->requires);
  free(s->empty);
  free(s->brief);
  free(s->chart);
  if (s->chart_data) {
    rp_section_free(s->chart_data);
    free(s->chart_data);
  }
  free(s->sql);
  free(s->note);
  memset(s, 0, sizeof *s);
}

void rp_free(rp_report *r) {
  for (int i = 0; i < r->nsections; i++) rp_section_free(&r->sections[i]);
  free(r->sections);
  rp_section_free(&r->findings);
  rp_section_free(&r->gate);
  free(r->scope_note);
}
