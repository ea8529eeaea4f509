/*
** mcp_sql.c — the sql tool of `profdb mcp`: one read-only statement
** (requirement 3 of mcp_server.c) with a row limit and a deadline
** (requirement 4), run in a worker process that is killed when one VM step
** outlasts the deadline (requirement 6).
*/
#include "cli.h"
#include "mcp.h"
#include "report.h"

#include "profdb/profdb.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SQL_ROWS_DEFAULT 200
#define SQL_ROWS_MAX 10000
#define SQL_TIMEOUT_DEFAULT_MS 10000
#define SQL_TIMEOUT_MAX_MS 60000
#define SQL_VALUE_MAX (16 << 20) /* SQLITE_LIMIT_LENGTH of the sql tool (default 1e9) */
#define SQL_PROGRESS_STEPS 1000  /* VM steps between two looks at the clock */
#define SQL_GRACE_MS 500         /* after timeout_ms, the sql worker process is killed */

/* Requirement 4: the statement's deadline. */
static int past_deadline(void *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec + now.tv_nsec * 1e-9 > *(double *)deadline;
}

static void put_cell(ld_buf *b, sqlite3_stmt *st, int i) {
  char num[40];
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: ld_buf_put_i64(b, sqlite3_column_int64(st, i)); break;
    case SQLITE_FLOAT: {
      double d = sqlite3_column_double(st, i);
      if (d != d || d - d != 0) {
        mcp_put_cstr(b, "null");
        break;
      }
      for (int prec = 15; prec <= 17; prec++) {
        snprintf(num, sizeof num, "%.*g", prec, d);
        if (strtod(num, NULL) == d) break;
      }
      mcp_put_cstr(b, num);
      break;
    }
    case SQLITE_TEXT:
      ld_buf_put_json_string(b, (const char *)sqlite3_column_text(st, i),
                             (size_t)sqlite3_column_bytes(st, i));
      break;
    case SQLITE_BLOB:
      snprintf(num, sizeof num, "\"(blob, %d bytes)\"", sqlite3_column_bytes(st, i));
      mcp_put_cstr(b, num);
      break;
    default: mcp_put_cstr(b, "null");
  }
}

/* Appends the current row; 0 when it took out past ANSWER_MAX (out as
** before the row). */
static int put_row(ld_buf *out, sqlite3_stmt *st, int ncol, long long rows) {
  size_t start = out->n;
  mcp_put_cstr(out, rows ? ",\n  [" : "\n  [");
  for (int i = 0; i < ncol; i++) {
    if (i) mcp_put_cstr(out, ", ");
    put_cell(out, st, i);
    if (out->n > ANSWER_MAX - 256) { /* a cell is at most 6 x SQL_VALUE_MAX: bounded */
      out->n = start;
      return 0;
    }
  }
  mcp_put_cstr(out, "]");
  return 1;
}

/* Runs one statement of the sql tool into out (columns, rows, truncated:
** by max_rows or by the answer's size). */
static int sql_statement(sqlite3_stmt *st, long long max_rows, ld_buf *out) {
  int ncol = sqlite3_column_count(st), rc, full = 0;
  long long rows = 0;
  mcp_put_cstr(out, "{\"columns\": [");
  for (int i = 0; i < ncol; i++) {
    if (i) mcp_put_cstr(out, ", ");
    mcp_put_str(out, sqlite3_column_name(st, i));
  }
  mcp_put_cstr(out, "], \"rows\": [");
  while (!full && rows < max_rows && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (put_row(out, st, ncol, rows))
      rows++;
    else
      full = 1;
  }
  if (full && rows == 0) {
    out->n = 0;
    mcp_put_cstr(out,
                 "the first row alone is over the 16 MiB an answer may hold: select fewer "
                 "or shorter columns (substr, length)");
    return -2;
  }
  int truncated = full || (rows == max_rows && (rc = sqlite3_step(st)) == SQLITE_ROW);
  if (!truncated && rc != SQLITE_DONE && rc != SQLITE_ROW) return -1;
  char tail[128];
  snprintf(tail, sizeof tail, "], \"row_count\": %lld, \"truncated\": %s%s}", rows,
           truncated ? "true" : "false",
           full ? ", \"truncated_by\": \"answer size (16 MiB)\"" : "");
  mcp_put_cstr(out, tail);
  return 0;
}

static long long sql_timeout(yajl_val args) {
  long long timeout;
  ld_buf ignored = {0}; /* a bad value is refused by sql_run first */
  mcp_get_int_checked(args, "timeout_ms", 1, SQL_TIMEOUT_MAX_MS, SQL_TIMEOUT_DEFAULT_MS,
                      &timeout, &ignored);
  ld_buf_free(&ignored);
  return timeout < 1 || timeout > SQL_TIMEOUT_MAX_MS ? SQL_TIMEOUT_MAX_MS : timeout;
}

/* The sql tool's work, in its worker process (tool_sql). */
static int sql_run(mcp *m, yajl_val args, ld_buf *out) {
  const char *query = mcp_get_string(args, "query");
  long long max_rows, timeout;
  if (mcp_get_int_checked(args, "max_rows", 1, SQL_ROWS_MAX, SQL_ROWS_DEFAULT, &max_rows,
                          out) ||
      mcp_get_int_checked(args, "timeout_ms", 1, SQL_TIMEOUT_MAX_MS, SQL_TIMEOUT_DEFAULT_MS,
                          &timeout, out))
    return -1;
  timeout = sql_timeout(args);
  if (max_rows < 1 || max_rows > SQL_ROWS_MAX) max_rows = SQL_ROWS_MAX;
  if (!query || !*query) {
    mcp_put_cstr(out, "give query: one read-only SQL statement");
    return -1;
  }
  char *path = mcp_allowed(m, mcp_get_string(args, "db"), 1, out);
  if (!path) return -1;
  ld_buf msg = {0}, result = {0};
  mcp_capture c;
  mcp_capture_begin(&c);
  sqlite3 *db = cli_open_db(path, 1);
  mcp_capture_end(&c, &msg);
  int rc = -1;
  sqlite3_stmt *st = NULL;
  const char *tail = NULL;
  if (!db || rp_sandbox(db)) {
    ld_buf_put(out, msg.p ? msg.p : "cannot open", msg.n);
    goto done;
  }
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double deadline = now.tv_sec + now.tv_nsec * 1e-9 + timeout / 1000.0;
  sqlite3_progress_handler(db, SQL_PROGRESS_STEPS, past_deadline, &deadline);
  /* Requirement 6: one function call (randomblob(1e9)) is one VM step that
  ** no progress handler interrupts; a value's size bounds its time. */
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SQL_VALUE_MAX);
  if (sqlite3_prepare_v2(db, query, -1, &st, &tail) != SQLITE_OK || !st) {
    /* the sandbox's authorizer denies writes while preparing */
    int auth = sqlite3_errcode(db) == SQLITE_AUTH;
    mcp_put_cstr(out, auth ? "refused: not a read-only statement (" : "SQL error: ");
    mcp_put_cstr(out, sqlite3_errcode(db) ? sqlite3_errmsg(db) : "no statement");
    mcp_put_cstr(out, auth ? "; this tool runs SELECT, WITH ... SELECT, EXPLAIN and read-only "
                             "PRAGMAs on a database opened read-only)"
                           : "");
    goto done;
  }
  while (tail &&
         (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == '\r' || *tail == ';'))
    tail++;
  if (tail && *tail) {
    mcp_put_cstr(out, "one statement at a time: more SQL follows the first statement");
    goto done;
  }
  if (!sqlite3_stmt_readonly(st)) { /* Requirement 3 */
    mcp_put_cstr(out,
                 "refused: not a read-only statement (this tool runs SELECT, WITH ... SELECT, "
                 "EXPLAIN and read-only PRAGMAs; the database is opened read-only)");
    goto done;
  }
  int src = sql_statement(st, max_rows, &result);
  if (src == -2) {
    ld_buf_put(out, result.p, result.n);
    goto done;
  } else if (src) {
    if (sqlite3_errcode(db) == SQLITE_INTERRUPT) {
      char why[96];
      snprintf(why, sizeof why, "interrupted: the query ran past timeout_ms (%lld ms)",
               timeout);
      mcp_put_cstr(out, why);
    } else {
      mcp_put_cstr(out, "SQL error: ");
      mcp_put_cstr(out, sqlite3_errmsg(db));
      int code = sqlite3_errcode(db);
      if (code == SQLITE_TOOBIG || code == SQLITE_NOMEM) {
        char why[160];
        snprintf(why, sizeof why,
                 " (this tool allows values of %d MiB and %lld MiB of SQLite memory a call)",
                 SQL_VALUE_MAX >> 20, CALL_HEAP_MAX >> 20);
        mcp_put_cstr(out, why);
      }
    }
    goto done;
  }
  ld_buf_put(out, result.p, result.n);
  rc = 0;
done:
  sqlite3_finalize(st);
  if (db) sqlite3_close(db);
  ld_buf_free(&msg);
  ld_buf_free(&result);
  free(path);
  return rc;
}

static void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

/* Reads the worker's answer until it ends it or until deadline (seconds,
** CLOCK_MONOTONIC); 1 when the deadline came first. */
static int read_until(int fd, double deadline, ld_buf *got) {
  char chunk[65536];
  for (;;) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double left = deadline - (now.tv_sec + now.tv_nsec * 1e-9);
    if (left <= 0) return 1;
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, (int)(left * 1000) + 1);
    if (r <= 0) continue; /* EINTR, or time to look at the clock */
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    if (got->n <= ANSWER_MAX + 4096) ld_buf_put(got, chunk, (size_t)n);
  }
}

/* Requirements 4 and 6: the statement runs in a worker process.  A
** progress handler stops it between VM steps, but one step can run for
** minutes (instr() on two long values is quadratic): the worker is killed
** SQL_GRACE_MS after timeout_ms.  Its crash or out-of-memory exit fails
** this call only. */
int mcp_tool_sql(mcp *m, yajl_val args, ld_buf *out) {
  long long timeout = sql_timeout(args);
  int fd[2];
  fflush(NULL);
  pid_t pid = pipe(fd) ? -1 : fork();
  if (pid == 0) {
    close(fd[0]);
    ld_buf text = {0};
    char rc = sql_run(m, args, &text) ? 1 : 0;
    write_all(fd[1], &rc, 1);
    write_all(fd[1], text.p, text.n);
    _exit(0); /* nothing of the server's to flush or free */
  }
  if (pid < 0) {
    mcp_put_cstr(out, "cannot start the query's worker process: ");
    mcp_put_cstr(out, strerror(errno));
    return -1;
  }
  close(fd[1]);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  ld_buf got = {0};
  int late =
      read_until(fd[0], now.tv_sec + now.tv_nsec * 1e-9 + (timeout + SQL_GRACE_MS) / 1e3, &got);
  if (late) kill(pid, SIGKILL);
  close(fd[0]);
  int status = 0, rc = -1;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  char why[192];
  if (late) {
    snprintf(why, sizeof why,
             "interrupted: the query ran past timeout_ms (%lld ms) in one step (a function "
             "on long values); its worker process was stopped",
             timeout);
    mcp_put_cstr(out, why);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) || got.n == 0) {
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
    snprintf(why, sizeof why, "the query's worker process ended (%s %d%s) before answering",
             WIFEXITED(status) ? "exit" : "signal", code,
             WIFEXITED(status) && code == PROFDB_EXIT_NOMEM ? ": out of memory" : "");
    mcp_put_cstr(out, why);
  } else {
    rc = got.p[0] ? -1 : 0;
    ld_buf_put(out, got.p + 1, got.n - 1);
  }
  ld_buf_free(&got);
  return rc;
}
