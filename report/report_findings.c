/*
** report_findings.c — build the report's findings table, report_finding.
**
** The findings are files, not one statement (queries/findings/README.md):
**
**   queries/lib/findings/ *.sql measure modules: each builds TEMP tables
**                               ("-- Builds: measure_time") from what it
**                               reads ("-- Reads: report_step_time, ...");
**                               report_finding.sql declares the findings table
**   queries/findings/ *.sql     rules: one SELECT each, named as its file,
**                               returning report_finding's columns in order
**                               ("-- Reads: measure_time, ...")
**
** The runner discovers both folders (adding a rule is adding a file), then
**   1. orders the modules by their declarations: a module runs after every
**      module that builds a table it reads; a cycle is an error;
**   2. checks the declarations: a declared table that no module builds and
**      that the databases (the loader's tables, the lib/ prelude) do not
**      hold is an error, and so is a statement that reads a table its file
**      did not declare (SQLite's authorizer reports every table read while a
**      statement is prepared, report_sandbox.c);
**   3. inserts each rule's rows into report_finding: its columns must be
**      report_finding's, and every row's rule its file's name.
** queries/findings.sql then reads report_finding, as the report's findings
** section (report_sql.c runs this file first, on the connection that runs
** that section).
*/
#include "report.h"
#include "oom.h"
#include "clock.h"
#include "script.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 128

/* One measure module or rule file and what its header declares. */
typedef struct fd_file {
  char *path;
  char *name;    /* file name without .sql */
  char *sql;     /* the whole file */
  char **builds; /* tables it builds (modules) */
  int nbuilds;
  char **reads; /* tables it reads */
  int nreads;
  int done; /* run already (modules) */
} fd_file;

static char *dupe(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) ld_oom();
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

static void add_name(char ***list, int *n, const char *s, size_t len) {
  *list = realloc(*list, (size_t)(*n + 1) * sizeof **list);
  if (!*list) ld_oom();
  (*list)[(*n)++] = dupe(s, len);
}

static int listed(char *const *list, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!sqlite3_stricmp(list[i], name)) return 1;
  return 0;
}

/* The names of a header line "-- KEY: a, b" and its continuation lines
** ("--   c, d"), in the file's leading comment block. */
static void parse_decl(const char *sql, const char *key, char ***list, int *n) {
  size_t klen = strlen(key);
  int in = 0;
  for (const char *p = sql; p && !strncmp(p, "--", 2); p = strchr(p, '\n'), p = p ? p + 1 : p) {
    const char *text = p + 2, *end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    if (*text == ' ' && !strncmp(text + 1, key, klen) && text[1 + klen] == ':') {
      in = 1;
      text += 2 + klen;
    } else if (!(in && !strncmp(text, "   ", 3)))
      in = 0;
    while (in && text < end) {
      text += strspn(text, " ,\t");
      size_t len = strcspn(text, " ,\t\r\n");
      if (len && text + len <= end) add_name(list, n, text, len);
      text += len ? len : 1;
    }
  }
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(((const fd_file *)a)->name, ((const fd_file *)b)->name);
}

/* Every .sql file of dir, in name order, with its declarations. */
static int load_dir(const char *dir, fd_file **out, int *n) {
  DIR *d = opendir(dir);
  *out = NULL;
  *n = 0;
  if (!d) return 0; /* no such folder: nothing declared */
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len <= 4 || strcmp(e->d_name + len - 4, ".sql") || e->d_name[0] == '.') continue;
    if (*n == MAX_FILES) {
      fprintf(stderr, "profdb: %s: more than %d query files\n", dir, MAX_FILES);
      closedir(d);
      return -1;
    }
    *out = realloc(*out, (size_t)(*n + 1) * sizeof **out);
    if (!*out) ld_oom();
    fd_file *f = &(*out)[(*n)++];
    memset(f, 0, sizeof *f);
    f->name = dupe(e->d_name, len - 4);
    size_t plen = strlen(dir) + len + 2;
    f->path = malloc(plen);
    if (!f->path) ld_oom();
    snprintf(f->path, plen, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (*n) qsort(*out, (size_t)*n, sizeof **out, cmp_name);
  for (int i = 0; i < *n; i++) {
    fd_file *f = &(*out)[i];
    size_t len;
    f->sql = rp_read_text(f->path, RP_MAX_TEXT_FILE, NULL, &len);
    if (!f->sql) return -1;
    parse_decl(f->sql, "Builds", &f->builds, &f->nbuilds);
    parse_decl(f->sql, "Reads", &f->reads, &f->nreads);
  }
  return 0;
}

static void free_files(fd_file *f, int n) {
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < f[i].nbuilds; k++) free(f[i].builds[k]);
    for (int k = 0; k < f[i].nreads; k++) free(f[i].reads[k]);
    free(f[i].builds);
    free(f[i].reads);
    free(f[i].path);
    free(f[i].name);
    free(f[i].sql);
  }
  free(f);
}

/* The module that builds table, or NULL. */
static fd_file *builder(fd_file *mods, int nmods, const char *table) {
  for (int i = 0; i < nmods; i++)
    if (listed(mods[i].builds, mods[i].nbuilds, table)) return &mods[i];
  return NULL;
}

/* Whether the databases hold table (or view) name already: 0 no, 1 a TEMP
** table or view (the prelude's), 2 a view of the loaded database, 3 one
** of its tables. */
static int db_has(sqlite3 *db, const char *name) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT 1 FROM sqlite_temp_schema WHERE name = ?1"
                         " AND type IN ('table', 'view')"
                         " UNION ALL SELECT iif(type = 'view', 2, 3) FROM sqlite_schema"
                         " WHERE name = ?1 AND type IN ('table', 'view')",
                         -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  int has = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
  sqlite3_finalize(st);
  return has;
}

/* Step 2, the declarations alone: each declared read is built by a module
** or held by the databases. */
static int check_declared(sqlite3 *db, fd_file *mods, int nmods, fd_file *f) {
  for (int k = 0; k < f->nreads; k++)
    if (!builder(mods, nmods, f->reads[k]) && !db_has(db, f->reads[k])) {
      fprintf(stderr,
              "profdb: %s: Reads: '%s' is built by no module of lib/findings/"
              " and is no table of the database\n",
              f->path, f->reads[k]);
      return -1;
    }
  return 0;
}

/* Whether f declares a view of the database (SQLite may report the reads
** through a view as reads of the tables under it). */
static int declares_view(sqlite3 *db, const fd_file *f) {
  for (int k = 0; k < f->nreads; k++)
    if (db_has(db, f->reads[k]) == 2) return 1;
  return 0;
}

/* Step 2, the statement: the tables it read (w) are declared, built by
** the file itself, or SQLite's own; a table of the loaded database may be
** read through a view the file declares. */
static int check_reads(sqlite3 *db, const fd_file *f, const rp_reads *w) {
  for (int i = 0; i < w->n; i++) {
    const char *t = w->names[i];
    int has = db_has(db, t);
    if (!sqlite3_strnicmp(t, "sqlite_", 7) || listed(f->reads, f->nreads, t) ||
        listed(f->builds, f->nbuilds, t) || !has || (has == 3 && declares_view(db, f)))
      continue;
    fprintf(stderr, "profdb: %s: reads '%s', which its Reads: line does not declare\n", f->path,
            t);
    return -1;
  }
  return 0;
}

/* Prepare one statement of f at *tail, recording the tables it reads and
** checking them.  *st is NULL at the end of the file. */
static int prepare_checked(sqlite3 *db, const fd_file *f, const char *sql, const char **tail,
                           sqlite3_stmt **st) {
  rp_reads w = {0};
  rp_sandbox_watch(db, &w);
  int rc = sqlite3_prepare_v2(db, sql, -1, st, tail);
  rp_sandbox_watch(db, NULL);
  if (rc != SQLITE_OK) fprintf(stderr, "profdb: %s: %s\n", f->path, sqlite3_errmsg(db));
  if (rc == SQLITE_OK && check_reads(db, f, &w)) rc = SQLITE_ERROR;
  rp_reads_free(&w);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(*st);
    *st = NULL;
    return -1;
  }
  return 0;
}

/* A module's statements as the script runner prepares them (script.h):
** the tables each one read, checked before it runs. */
typedef struct module_check {
  rp_report *r; /* its parameters are bound (:scope_hta, ...) */
  sqlite3 *db;
  const fd_file *f;
  rp_reads reads; /* recorded while the statement was prepared */
  int refused;    /* check_reads failed (and said why) */
} module_check;

static int check_prepared(sqlite3_stmt *st, const void *arg) {
  module_check *c = (module_check *)arg;
  c->refused = check_reads(c->db, c->f, &c->reads) != 0;
  rp_reads_free(&c->reads);
  if (!c->refused) rp_bind_params(c->r, st);
  return c->refused;
}

/* Run every statement of a module, each checked (step 2) before it runs. */
static int run_module(rp_report *r, sqlite3 *db, fd_file *f) {
  module_check c = {r, db, f, {0}, 0};
  rp_sandbox_watch(db, &c.reads);
  int rc = ld_run_script(db, f->sql, check_prepared, &c);
  rp_sandbox_watch(db, NULL);
  rp_reads_free(&c.reads);
  if (rc) {
    if (!c.refused) fprintf(stderr, "profdb: %s: %s\n", f->path, sqlite3_errmsg(db));
    return -1;
  }
  f->done = 1;
  return 0;
}

/* Step 1: whether every module that builds a table f reads has run. */
static int ready(fd_file *mods, int nmods, const fd_file *f) {
  for (int k = 0; k < f->nreads; k++) {
    fd_file *b = builder(mods, nmods, f->reads[k]);
    if (b && b != f && !b->done) return 0;
  }
  return 1;
}

/* Steps 1 and 2 for the modules: run them in an order their declarations
** allow (the first ready one by name, each time). */
static int run_modules(rp_report *r, sqlite3 *db, fd_file *mods, int nmods) {
  for (int i = 0; i < nmods; i++)
    if (check_declared(db, mods, nmods, &mods[i])) return -1;
  for (int left = nmods; left > 0; left--) {
    fd_file *next = NULL;
    for (int i = 0; !next && i < nmods; i++)
      if (!mods[i].done && ready(mods, nmods, &mods[i])) next = &mods[i];
    if (!next) {
      for (int i = 0; i < nmods; i++)
        if (!mods[i].done)
          fprintf(stderr, "profdb: %s: its Reads: and another module's form a cycle\n",
                  mods[i].path);
      return -1;
    }
    double t0 = ld_seconds();
    if (run_module(r, db, next)) return -1;
    rp_timing(next->name, t0);
  }
  return 0;
}

/* report_finding's columns, in order, joined by ", " (the rules' SELECT
** returns them). */
static char *finding_columns(sqlite3 *db) {
  sqlite3_stmt *st;
  ld_buf b = {0};
  if (sqlite3_prepare_v2(db,
                         "SELECT name FROM pragma_table_info('report_finding') ORDER BY cid",
                         -1, &st, NULL) != SQLITE_OK)
    return NULL;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (b.n) ld_buf_put(&b, ", ", 2);
    const char *c = (const char *)sqlite3_column_text(st, 0);
    ld_buf_put(&b, c, strlen(c));
  }
  sqlite3_finalize(st);
  if (!b.n) return NULL;
  ld_buf_cstr(&b);
  return b.p;
}

/* The rule's SELECT returns report_finding's columns (by name, in order). */
static int check_rule_columns(const fd_file *f, sqlite3_stmt *sel, const char *want) {
  ld_buf got = {0};
  for (int c = 0; c < sqlite3_column_count(sel); c++) {
    if (c) ld_buf_put(&got, ", ", 2);
    ld_buf_put(&got, sqlite3_column_name(sel, c), strlen(sqlite3_column_name(sel, c)));
  }
  ld_buf_cstr(&got);
  int ok = !strcmp(got.p, want);
  if (!ok)
    fprintf(stderr, "profdb: %s: the rule's columns (%s) differ from report_finding's (%s)\n",
            f->path, got.p, want);
  ld_buf_free(&got);
  return ok ? 0 : -1;
}

static sqlite3_int64 max_rowid(sqlite3 *db) {
  sqlite3_stmt *st;
  sqlite3_int64 n = 0;
  if (sqlite3_prepare_v2(db, "SELECT coalesce(max(rowid), 0) FROM report_finding", -1, &st,
                         NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

/* Every row a rule inserted (rowid past before) names it as its file. */
static int check_rule_ids(sqlite3 *db, const fd_file *f, sqlite3_int64 before) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "SELECT rule FROM report_finding WHERE rowid > ?1 AND rule IS NOT ?2"
                         " LIMIT 1",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, before);
  sqlite3_bind_text(st, 2, f->name, -1, SQLITE_STATIC);
  int rc = 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *got = sqlite3_column_text(st, 0);
    fprintf(stderr, "profdb: %s: a row names the rule '%s'; the file names it '%s'\n", f->path,
            got ? (const char *)got : "(null)", f->name);
    rc = -1;
  }
  sqlite3_finalize(st);
  return rc;
}

/* Step 3 for one rule: its one SELECT, checked, inserted into report_finding. */
static int run_rule(sqlite3 *db, const fd_file *f, const char *cols) {
  const char *tail;
  sqlite3_stmt *sel, *more = NULL;
  if (prepare_checked(db, f, f->sql, &tail, &sel)) return -1;
  if (sel && sqlite3_prepare_v2(db, tail, -1, &more, NULL) == SQLITE_OK && more) {
    fprintf(stderr, "profdb: %s: a rule is one SELECT; the file holds more\n", f->path);
    sqlite3_finalize(more);
    sqlite3_finalize(sel);
    return -1;
  }
  int rc = !sel || check_rule_columns(f, sel, cols) ? -1 : 0;
  sqlite3_finalize(sel);
  if (!sel) fprintf(stderr, "profdb: %s: no SQL statement\n", f->path);
  if (rc) return rc;
  /* the SELECT as written, behind INSERT (its text up to tail) */
  ld_buf ins = {0};
  ld_buf_put(&ins, "INSERT INTO report_finding ", 27);
  ld_buf_put(&ins, f->sql, (size_t)(tail - f->sql));
  ld_buf_cstr(&ins);
  sqlite3_int64 before = max_rowid(db);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, ins.p, -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_DONE) {
    fprintf(stderr, "profdb: %s: %s\n", f->path, sqlite3_errmsg(db));
    rc = -1;
  }
  sqlite3_finalize(st);
  ld_buf_free(&ins);
  return rc ? rc : check_rule_ids(db, f, before);
}

int rp_build_findings(rp_report *r) {
  char dir[4096];
  fd_file *mods = NULL, *rules = NULL;
  int nmods = 0, nrules = 0, rc = 0;
  snprintf(dir, sizeof dir, "%s/%s", r->queries_dir, r->kind->measures);
  if (load_dir(dir, &mods, &nmods)) rc = -1;
  snprintf(dir, sizeof dir, "%s/%s", r->queries_dir, r->kind->rules);
  if (!rc && load_dir(dir, &rules, &nrules)) rc = -1;
  if (!rc) rc = run_modules(r, r->db, mods, nmods);
  for (int i = 0; !rc && i < nrules; i++) rc = check_declared(r->db, mods, nmods, &rules[i]);
  char *cols = rc ? NULL : finding_columns(r->db);
  if (!rc && !cols) {
    fprintf(stderr, "profdb: %s/%s: no module builds report_finding\n", r->queries_dir,
            r->kind->measures);
    rc = -1;
  }
  for (int i = 0; !rc && i < nrules; i++) {
    double t0 = ld_seconds();
    rc = run_rule(r->db, &rules[i], cols);
    rp_timing(rules[i].name, t0);
  }
  free(cols);
  free_files(mods, nmods);
  free_files(rules, nrules);
  return rc;
}
