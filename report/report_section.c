/*
** report_section.c — what every part of the report shares: a section's
** cells and chart spec, the file a renderer writes, a query or gate file
** read within bounds, the timing line (report.h).
**
** The floor under the runner (report_sql.c, report_findings.c) and the
** renderers (report_md.c, report_json.c, report_svg.c, report_html.c,
** report_format.c): it calls none of them, so they depend on it one way.
*/
#include "report.h"
#include "clock.h"
#include "publish.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- cells ---------------------------------------------------------------- */

const rp_value *rp_cell(const rp_section *s, int row, int col) {
  return &s->cells[(size_t)row * (size_t)s->ncols + (size_t)col];
}

const char *rp_text_of(const rp_section *s, int row, const char *col) {
  int c = rp_col_index(s, col);
  if (c < 0) return "";
  const rp_value *v = rp_cell(s, row, c);
  return v->type == SQLITE_TEXT ? v->s : "";
}

int rp_col_index(const rp_section *s, const char *name) {
  for (int c = 0; c < s->ncols; c++)
    if (!strcmp(s->cols[c].name, name)) return c;
  return -1;
}

/* ---- the chart spec ----------------------------------------------------- */

int rp_chart_key(const rp_section *s, const char *key, char *out, size_t n) {
  if (!s->chart) return 0;
  size_t k = strlen(key);
  for (const char *p = s->chart; (p = strstr(p, key)); p += k)
    if ((p == s->chart || p[-1] == ' ') && p[k] == '=') {
      const char *v = p + k + 1;
      size_t len = strcspn(v, " ");
      snprintf(out, n, "%.*s", (int)len, v);
      return 1;
    }
  return 0;
}

/* ---- writing a file ----------------------------------------------------- */

/* Write data to path: a regular file through a temporary file and a
** rename (readers never see half a report); a device or a pipe
** (/dev/null, /dev/stdout, <(...)) directly, since a rename would replace
** it; a symbolic link's target, keeping the link.  The temporary file is
** the one atomic publish's (loader/publish.h, PUB_USER): a new file with
** a random name in the target's folder, created exclusively (O_EXCL), so a
** link or file planted there by someone else is never followed or
** overwritten. */
int rp_write_file(const char *path, const char *data, size_t n) {
  pub_file p;
  int ok = pub_open(&p, path, PUB_USER) == 0;
  for (size_t off = 0; ok && off < n;) {
    ssize_t w = write(p.fd, data + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    ok = w > 0;
    if (ok) off += (size_t)w;
  }
  if (ok)
    ok = pub_commit(&p) == 0;
  else if (p.fd >= 0)
    pub_abort(&p);
  if (!ok) {
    fprintf(stderr, "profdb: %s: cannot write: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* ---- reading a text file of profdb's, timing -------------------------- */

char *rp_read_text(const char *path, size_t max, const char *what, size_t *len) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block */
  struct stat st;
  const char *why = NULL;
  if (fd < 0)
    why = strerror(errno);
  else if (fstat(fd, &st) != 0)
    why = strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = "not a regular file";
  else if ((uint64_t)st.st_size > max)
    why = "too large for a text file of profdb's (a query, list or gate file)";
  ld_buf b = {0};
  char chunk[65536];
  ssize_t got = 0;
  while (!why && (got = read(fd, chunk, sizeof chunk)) > 0) {
    ld_buf_put(&b, chunk, (size_t)got);
    if (b.n > max) why = "too large for a text file of profdb's (a query, list or gate file)";
  }
  if (!why && got < 0) why = strerror(errno);
  if (fd >= 0) close(fd);
  if (why) {
    fprintf(stderr, "profdb: %s: cannot read%s%s: %s\n", path, what ? " " : "",
            what ? what : "", why);
    ld_buf_free(&b);
    return NULL;
  }
  *len = b.n;
  ld_buf_cstr(&b);
  return b.p;
}

/* PROFDB_TIMING set: a line per query file, section and finding, and the
** SQL steps; PROFDB_TIMING=statements: also each statement that took
** 10 ms or more, with its steps and the start of its text (to find the
** statement a file's time goes to); PROFDB_TIMING=plans: also those
** statements' query plans (EXPLAIN QUERY PLAN, parameters unbound). */
static int timing_enabled(void) {
  static int enabled = -1;
  if (enabled < 0) {
    const char *v = getenv("PROFDB_TIMING");
    enabled = v == NULL                      ? 0
              : strcmp(v, "statements") == 0 ? 2
              : strcmp(v, "plans") == 0      ? 3
                                             : 1;
  }
  return enabled;
}

void rp_timing(const char *what, double since) {
  if (timing_enabled() && what)
    fprintf(stderr, "profdb: timing: %-24s %8.3f s\n", what, ld_seconds() - since);
}

/* The statement's plan, one line per step, indented by depth. */
static void print_plan(sqlite3 *db, const char *sql) {
  /* CREATE TEMP TABLE x AS SELECT ...: SQLite plans no CREATE, so plan its SELECT */
  const char *create = strstr(sql, "CREATE TEMP TABLE ");
  if (create) {
    const char *as = create + strlen("CREATE TEMP TABLE ");
    while (*as && !isspace((unsigned char)*as)) as++;
    while (isspace((unsigned char)*as)) as++;
    if (strncmp(as, "AS", 2) == 0 && isspace((unsigned char)as[2])) sql = as + 3;
  }
  char *eqp = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
  sqlite3_stmt *st = NULL;
  if (eqp && sqlite3_prepare_v2(db, eqp, -1, &st, NULL) == SQLITE_OK) {
    int ids[64], depth[64], n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
      int id = sqlite3_column_int(st, 0), parent = sqlite3_column_int(st, 1), d = 0;
      for (int i = 0; i < n; i++)
        if (ids[i] == parent) d = depth[i] + 1;
      if (n < 64) ids[n] = id, depth[n++] = d;
      fprintf(stderr, "profdb: timing:     plan %*s%s\n", 2 * d, "",
              (const char *)sqlite3_column_text(st, 3));
    }
  }
  sqlite3_finalize(st);
  sqlite3_free(eqp);
}

/* The SQL's work in SQLite's virtual-machine steps, summed over the
** connections: unlike seconds it does not change with the machine's load,
** so a test can check how the report's cost grows with the input
** (tests/report/check_job.py).  Work inside C functions is not counted. */
static _Atomic long long sql_steps;

static int count_steps(unsigned type, void *unused, void *stmt, void *ns) {
  (void)unused;
  if (type != SQLITE_TRACE_PROFILE) return 0;
  long long steps = sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 1);
  sql_steps += steps;
  sqlite3_int64 elapsed = *(const sqlite3_int64 *)ns;
  if (timing_enabled() >= 2 && elapsed >= 10000000) {
    char text[121];
    const char *sql = sqlite3_sql(stmt);
    int n = 0;
    for (const char *c = sql ? sql : ""; *c && n < 120; c++) /* one line, comments kept */
      if (!(isspace((unsigned char)*c) && (n == 0 || text[n - 1] == ' ')))
        text[n++] = isspace((unsigned char)*c) ? ' ' : *c;
    text[n] = 0;
    fprintf(stderr, "profdb: timing:   statement %8.3f s %12lld steps  %s\n", elapsed / 1e9,
            steps, text);
    if (timing_enabled() == 3 && sql) print_plan(sqlite3_db_handle(stmt), sql);
  }
  return 0;
}

void rp_timing_watch(sqlite3 *db) {
  if (timing_enabled() && db) sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, count_steps, NULL);
}

void rp_timing_steps(void) {
  if (timing_enabled())
    fprintf(stderr, "profdb: timing: %-24s %12lld steps\n", "sql", sql_steps);
}
