/*
** cli_mcp.c — `profdb mcp --allow DIR...`: a Model Context Protocol server
** over stdio, so that a coding agent can load traces, query them and read
** the report and the diff (docs/agent/SKILL.md says when and how).
**
**   profdb mcp --allow ~/runs --allow /data/traces
**
** HOW IT WORKS: JSON-RPC 2.0, one message per line on stdin, one response
** per line on stdout (nothing else is ever written there: the C stdout is
** pointed at stderr for the server's lifetime and the protocol has its own
** FILE on a copy of the original descriptor); messages are parsed with
** yajl's tree API.  Methods: initialize, notifications/initialized, ping,
** tools/list, tools/call.  The tools call the same code as the CLI: the
** loader (profdb_load), the report library (rp_run, rp_write_json: the
** JSON of `profdb report --json` / `profdb diff --json`) and cli_open_db.
** A tool's diagnostics (what the CLI prints on stderr) are captured and
** returned as its error text.
**
** Requirements:
**   1. Protocol version negotiation (MCP lifecycle): the client's
**      protocolVersion is answered with itself when this server supports it,
**      else with the newest version this server supports.
**   2. Every path a tool reads or writes resolves (realpath, links
**      followed) inside a folder given with --allow; a new database's
**      folder must.  Nothing is read or written elsewhere.
**   3. SQL is read-only: the database is opened read-only, the report's
**      sandbox authorizer applies (no ATTACH, no writes but TEMP, no
**      load_extension), and a statement that is not sqlite3_stmt_readonly
**      is refused before it runs.
**   4. SQL has a row limit (max_rows, default 200, at most 10000; the
**      result says when it was cut) and a time limit (timeout_ms, default
**      10 s, at most 60 s; a progress handler interrupts the statement).
**   5. Tool failures are results with isError (the message says why);
**      protocol errors are JSON-RPC errors (-32700 parse, -32600 invalid
**      request, -32601 unknown method, -32602 unknown tool).
**   6. Every message and call is bounded, and a message or call that
**      passes a bound is answered with an error while the server keeps
**      serving (docs/reliability.md, issue 40): a line holds at most 4 MiB
**      (the rest of a longer one is dropped unread into memory), 64 levels
**      of nesting and 100,000 values, checked by a streaming pass before
**      any tree is built; an id is echoed as the JSON text it came as
**      (string, number or null; an object, array or boolean id is an
**      invalid request); each call has its own report deadline
**      (PROFDB_QUERY_TIMEOUT), SQLite memory (1 GiB, but load), values of
**      16 MiB in sql and 16 MiB of answer; SQLite running out of memory
**      fails the call (SQLITE_NOMEM), not the process.
*/
#include "cli.h"
#include "mcp_message.h"
#include "report.h"
#include "oom.h"

#include "profdb/profdb.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

static const char mcp_usage[] =
    "usage: profdb mcp --allow DIR [--allow DIR...] [--queries DIR]\n"
    "\n"
    "Serve the Model Context Protocol over stdio (JSON-RPC 2.0, one message a\n"
    "line) for coding agents: tools to load traces and snapshots, run read-only\n"
    "SQL, list and read report sections, get the findings and diff two runs.\n"
    "Every path a tool touches must lie inside a folder given with --allow.\n"
    "See docs/agent/SKILL.md.\n"
    "\n"
    "options:\n"
    "  --allow DIR     a folder the tools may read and write databases in\n"
    "                  (repeatable; at least one)\n"
    "  --queries DIR   query files to use (default: as profdb report)\n";

/* Requirement 1: newest first. */
static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
                                       NULL};

#define SQL_ROWS_DEFAULT 200
#define SQL_ROWS_MAX 10000
#define SQL_TIMEOUT_DEFAULT_MS 10000
#define SQL_TIMEOUT_MAX_MS 60000
#define SQL_VALUE_MAX (16 << 20)  /* SQLITE_LIMIT_LENGTH of the sql tool (default 1e9) */
#define SQL_PROGRESS_STEPS 1000   /* VM steps between two looks at the clock */
#define SQL_GRACE_MS 500          /* after timeout_ms, the sql worker process is killed */
#define TOP_MAX 10000             /* rows of a report section's top-N */
#define ANSWER_MAX (16 << 20)     /* bytes of a tool's result text */
#define CALL_HEAP_MAX (1LL << 30) /* SQLite's memory in one call (but load's) */

typedef struct mcp {
  char **allow;      /* real paths of the --allow folders */
  int nallow;        /*   their number */
  FILE *out;         /* the protocol's stdout */
  char *queries_dir; /* the report's query files */
} mcp;

/* ---- JSON helpers ------------------------------------------------------ */

static void put_str(ld_buf *b, const char *s) {
  ld_buf_put_json_string(b, s ? s : "", s ? strlen(s) : 0);
}

static void put_cstr(ld_buf *b, const char *s) {
  ld_buf_put(b, s, strlen(s));
}

static yajl_val get(yajl_val v, const char *key, yajl_type type) {
  const char *path[] = {key, NULL};
  return v ? yajl_tree_get(v, path, type) : NULL;
}

static const char *get_string(yajl_val v, const char *key) {
  yajl_val s = get(v, key, yajl_t_string);
  return s ? YAJL_GET_STRING(s) : NULL;
}

static long long get_int(yajl_val v, const char *key, long long dflt) {
  yajl_val n = get(v, key, yajl_t_number);
  return n && YAJL_IS_INTEGER(n) ? YAJL_GET_INTEGER(n) : dflt;
}

/* The strings of an array argument (NULL-terminated, malloc'd; the
** strings belong to the tree).  *n gets their number; -1 when a member is
** not a string. */
static const char **get_strings(yajl_val v, const char *key, int *n) {
  yajl_val a = get(v, key, yajl_t_array);
  *n = 0;
  if (!a) return NULL;
  const char **out = calloc(YAJL_GET_ARRAY(a)->len + 1, sizeof *out);
  if (!out) ld_oom();
  for (size_t i = 0; i < YAJL_GET_ARRAY(a)->len; i++) {
    yajl_val s = YAJL_GET_ARRAY(a)->values[i];
    if (!YAJL_IS_STRING(s)) {
      *n = -1;
      return out;
    }
    out[(*n)++] = YAJL_GET_STRING(s);
  }
  return out;
}

/* ---- Requirement 6: SQLite's memory --------------------------------------- */

/* main.c's allocator ends the process when SQLite runs out of memory
** (ld_oom).  The server is one process for many calls: here a call that
** runs out gets SQLITE_NOMEM, answered as its error, and the next call
** runs.  Memory statistics on, for the per-call sqlite3_hard_heap_limit64
** (one call at a time: their mutex is not contended). */
static void *mem_malloc(int n) {
  return malloc((size_t)n);
}

static void mem_free(void *p) {
  free(p);
}

static void *mem_realloc(void *p, int n) {
  return realloc(p, (size_t)n);
}

static int mem_size(void *p) {
  return p ? (int)malloc_usable_size(p) : 0;
}

static int mem_roundup(int n) {
  return (n + 7) & ~7;
}

static int mem_init(void *unused) {
  (void)unused;
  return SQLITE_OK;
}

static void mem_shutdown(void *unused) {
  (void)unused;
}

/* Before any connection: sqlite3_config() is refused once SQLite runs. */
static void sqlite_memory(void) {
  static const sqlite3_mem_methods methods = {mem_malloc,  mem_free, mem_realloc,  mem_size,
                                              mem_roundup, mem_init, mem_shutdown, NULL};
  if (sqlite3_config(SQLITE_CONFIG_MALLOC, &methods) != SQLITE_OK ||
      sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1) != SQLITE_OK)
    fprintf(stderr, "profdb: mcp: SQLite already started: out of memory ends the server\n");
}

/* ---- Requirement 2: paths ---------------------------------------------- */

static int inside(const char *real, const char *dir) {
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/') return 1;
  return !strncmp(real, dir, n) && (real[n] == '/' || real[n] == 0);
}

/* The real path of `path` when it lies inside an allowed folder (malloc'd),
** else NULL with why in err.  must_exist 0: a database to create, whose
** folder must exist and be allowed. */
static char *allowed(const mcp *m, const char *path, int must_exist, ld_buf *err) {
  char real[2 * PATH_MAX + 2];
  if (!path || !*path) {
    put_cstr(err, "a path is missing");
    return NULL;
  }
  if (!realpath(path, real)) {
    if (must_exist || errno != ENOENT) {
      put_cstr(err, path);
      put_cstr(err, ": ");
      put_cstr(err, strerror(errno));
      return NULL;
    }
    /* a new file: its folder, resolved, plus its name */
    char *folder = strdup(path), *slash = strrchr(folder, '/');
    char dir[PATH_MAX];
    const char *name = slash ? slash + 1 : path;
    if (!folder) ld_oom();
    if (slash == folder)
      folder[1] = 0; /* "/name" */
    else if (slash)
      *slash = 0;
    else
      strcpy(folder, ".");
    int ok = *name && strcmp(name, ".") && strcmp(name, "..") && realpath(folder, dir);
    if (ok) snprintf(real, sizeof real, "%s/%s", strcmp(dir, "/") ? dir : "", name);
    free(folder);
    if (!ok) {
      put_cstr(err, path);
      put_cstr(err, ": its folder does not exist");
      return NULL;
    }
  }
  for (int i = 0; i < m->nallow; i++)
    if (inside(real, m->allow[i])) return strdup(real);
  put_cstr(err, path);
  put_cstr(err, ": outside the folders this server may use (profdb mcp --allow):");
  for (int i = 0; i < m->nallow; i++) {
    put_cstr(err, " ");
    put_cstr(err, m->allow[i]);
  }
  return NULL;
}

/* ---- what the library prints on stderr, kept for the tool's result ----- */

typedef struct capture {
  int saved; /* the real stderr */
  FILE *tmp; /* where stderr goes meanwhile */
} capture;

static void capture_begin(capture *c) {
  fflush(stderr);
  c->tmp = tmpfile();
  c->saved = c->tmp ? dup(2) : -1;
  if (c->saved >= 0) dup2(fileno(c->tmp), 2);
}

/* Restores stderr; appends what was printed (trimmed) to msg. */
static void capture_end(capture *c, ld_buf *msg) {
  fflush(stderr);
  if (c->saved >= 0) {
    dup2(c->saved, 2);
    close(c->saved);
  }
  if (!c->tmp) return;
  char chunk[4096];
  size_t n;
  rewind(c->tmp);
  size_t start = msg->n;
  while ((n = fread(chunk, 1, sizeof chunk, c->tmp)) > 0 && msg->n - start < 65536)
    ld_buf_put(msg, chunk, n);
  while (msg->n > start && (msg->p[msg->n - 1] == '\n' || msg->p[msg->n - 1] == ' ')) msg->n--;
  fclose(c->tmp);
}

/* ---- tools --------------------------------------------------------------- */

/* A tool writes its result text into out and returns 0, or its error
** message into out and returns -1. */
typedef int (*tool_fn)(mcp *m, yajl_val args, ld_buf *out);

static int tool_load(mcp *m, yajl_val args, ld_buf *out) {
  int n = 0, rc = -1;
  const char **inputs = get_strings(args, "inputs", &n);
  char **real = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof *real);
  char *db = NULL;
  if (!real) ld_oom();
  if (n <= 0) {
    put_cstr(out, "give inputs: an array of trace / snapshot files or folders");
    goto done;
  }
  for (int i = 0; i < n; i++)
    if (!(real[i] = allowed(m, inputs[i], 1, out))) goto done;
  if (!(db = allowed(m, get_string(args, "db"), 0, out))) goto done;
  profdb_load_options opt = {.quiet = 1,
                             .run = get_string(args, "run"),
                             .replace = get(args, "replace", yajl_t_true) != NULL};
  capture c;
  ld_buf msg = {0};
  capture_begin(&c);
  int lrc = profdb_load(db, (const char *const *)real, n, &opt);
  capture_end(&c, &msg);
  if (lrc == PROFDB_EXIT_OK || lrc == PROFDB_EXIT_TRUNCATED) {
    put_cstr(out, "loaded into ");
    put_cstr(out, db);
    if (msg.n) {
      put_cstr(out, "\n");
      ld_buf_put(out, msg.p, msg.n);
    }
    put_cstr(out, "\nnext: the findings tool, or sql on it");
    rc = 0;
  } else {
    char code[64];
    snprintf(code, sizeof code, "load failed (exit %d): ", lrc);
    put_cstr(out, code);
    ld_buf_put(out, msg.p ? msg.p : "", msg.n);
  }
  ld_buf_free(&msg);
done:
  for (int i = 0; i < n; i++) free(real[i]);
  free(real);
  free(inputs);
  free(db);
  return rc;
}

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
        put_cstr(b, "null");
        break;
      }
      for (int prec = 15; prec <= 17; prec++) {
        snprintf(num, sizeof num, "%.*g", prec, d);
        if (strtod(num, NULL) == d) break;
      }
      put_cstr(b, num);
      break;
    }
    case SQLITE_TEXT:
      ld_buf_put_json_string(b, (const char *)sqlite3_column_text(st, i),
                             (size_t)sqlite3_column_bytes(st, i));
      break;
    case SQLITE_BLOB:
      snprintf(num, sizeof num, "\"(blob, %d bytes)\"", sqlite3_column_bytes(st, i));
      put_cstr(b, num);
      break;
    default: put_cstr(b, "null");
  }
}

/* Appends the current row; 0 when it took out past ANSWER_MAX (out as
** before the row). */
static int put_row(ld_buf *out, sqlite3_stmt *st, int ncol, long long rows) {
  size_t start = out->n;
  put_cstr(out, rows ? ",\n  [" : "\n  [");
  for (int i = 0; i < ncol; i++) {
    if (i) put_cstr(out, ", ");
    put_cell(out, st, i);
    if (out->n > ANSWER_MAX - 256) { /* a cell is at most 6 x SQL_VALUE_MAX: bounded */
      out->n = start;
      return 0;
    }
  }
  put_cstr(out, "]");
  return 1;
}

/* Runs one statement of the sql tool into out (columns, rows, truncated:
** by max_rows or by the answer's size). */
static int sql_statement(sqlite3_stmt *st, long long max_rows, ld_buf *out) {
  int ncol = sqlite3_column_count(st), rc, full = 0;
  long long rows = 0;
  put_cstr(out, "{\"columns\": [");
  for (int i = 0; i < ncol; i++) {
    if (i) put_cstr(out, ", ");
    put_str(out, sqlite3_column_name(st, i));
  }
  put_cstr(out, "], \"rows\": [");
  while (!full && rows < max_rows && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (put_row(out, st, ncol, rows))
      rows++;
    else
      full = 1;
  }
  if (full && rows == 0) {
    out->n = 0;
    put_cstr(out,
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
  put_cstr(out, tail);
  return 0;
}

static long long sql_timeout(yajl_val args) {
  long long timeout = get_int(args, "timeout_ms", SQL_TIMEOUT_DEFAULT_MS);
  return timeout < 1 || timeout > SQL_TIMEOUT_MAX_MS ? SQL_TIMEOUT_MAX_MS : timeout;
}

/* The sql tool's work, in its worker process (tool_sql). */
static int sql_run(mcp *m, yajl_val args, ld_buf *out) {
  const char *query = get_string(args, "query");
  long long max_rows = get_int(args, "max_rows", SQL_ROWS_DEFAULT);
  long long timeout = sql_timeout(args);
  if (max_rows < 1 || max_rows > SQL_ROWS_MAX) max_rows = SQL_ROWS_MAX;
  if (!query || !*query) {
    put_cstr(out, "give query: one read-only SQL statement");
    return -1;
  }
  char *path = allowed(m, get_string(args, "db"), 1, out);
  if (!path) return -1;
  ld_buf msg = {0}, result = {0};
  capture c;
  capture_begin(&c);
  sqlite3 *db = cli_open_db(path, 1);
  capture_end(&c, &msg);
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
    put_cstr(out, auth ? "refused: not a read-only statement (" : "SQL error: ");
    put_cstr(out, sqlite3_errcode(db) ? sqlite3_errmsg(db) : "no statement");
    put_cstr(out, auth ? "; this tool runs SELECT, WITH ... SELECT, EXPLAIN and read-only "
                         "PRAGMAs on a database opened read-only)"
                       : "");
    goto done;
  }
  while (tail &&
         (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == '\r' || *tail == ';'))
    tail++;
  if (tail && *tail) {
    put_cstr(out, "one statement at a time: more SQL follows the first statement");
    goto done;
  }
  if (!sqlite3_stmt_readonly(st)) { /* Requirement 3 */
    put_cstr(out,
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
      put_cstr(out, why);
    } else {
      put_cstr(out, "SQL error: ");
      put_cstr(out, sqlite3_errmsg(db));
      int code = sqlite3_errcode(db);
      if (code == SQLITE_TOOBIG || code == SQLITE_NOMEM) {
        char why[160];
        snprintf(why, sizeof why,
                 " (this tool allows values of %d MiB and %lld MiB of SQLite memory a call)",
                 SQL_VALUE_MAX >> 20, CALL_HEAP_MAX >> 20);
        put_cstr(out, why);
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
static int tool_sql(mcp *m, yajl_val args, ld_buf *out) {
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
    put_cstr(out, "cannot start the query's worker process: ");
    put_cstr(out, strerror(errno));
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
    put_cstr(out, why);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) || got.n == 0) {
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
    snprintf(why, sizeof why, "the query's worker process ended (%s %d%s) before answering",
             WIFEXITED(status) ? "exit" : "signal", code,
             WIFEXITED(status) && code == PROFDB_EXIT_NOMEM ? ": out of memory" : "");
    put_cstr(out, why);
  } else {
    rc = got.p[0] ? -1 : 0;
    ld_buf_put(out, got.p + 1, got.n - 1);
  }
  ld_buf_free(&got);
  return rc;
}

static const rp_kind *kind_of(yajl_val args) {
  const char *k = get_string(args, "kind");
  return k && !strcmp(k, "diff") ? &rp_kind_diff : &rp_kind_report;
}

static int tool_list_sections(mcp *m, yajl_val args, ld_buf *out) {
  const rp_kind *kind = kind_of(args);
  rp_report r = {0};
  rp_section summary = {0};
  char path[8192];
  ld_buf msg = {0};
  capture c;
  r.kind = kind;
  r.queries_dir = m->queries_dir;
  snprintf(path, sizeof path, "%s/%s", m->queries_dir, kind->summary);
  capture_begin(&c);
  int rc = rp_parse_file(path, kind->summary_key, &summary) || rp_load_sections(&r, NULL, 0);
  capture_end(&c, &msg);
  if (rc) {
    ld_buf_put(out, msg.p ? msg.p : "", msg.n);
  } else {
    put_cstr(out, "[{\"id\": ");
    put_str(out, kind->summary_key);
    put_cstr(out, ", \"title\": ");
    put_str(out, summary.title);
    put_cstr(out, "}");
    for (int i = 0; i < r.nsections; i++) {
      put_cstr(out, ",\n {\"id\": ");
      put_str(out, r.sections[i].id);
      put_cstr(out, ", \"group\": ");
      put_str(out, r.sections[i].group);
      put_cstr(out, ", \"title\": ");
      put_str(out, r.sections[i].title);
      put_cstr(out, "}");
    }
    put_cstr(out, "]");
  }
  ld_buf_free(&msg);
  rp_section_free(&summary);
  rp_free(&r);
  return rc ? -1 : 0;
}

/* rp_run on r, then its JSON (rp_write_json) into out; the library's
** messages into out on failure. */
static int run_to_json(rp_report *r, const char *const *only, int nonly, ld_buf *out) {
  ld_buf msg = {0};
  capture c;
  capture_begin(&c);
  int rc = (nonly && rp_load_sections(r, only, nonly)) || rp_run(r);
  capture_end(&c, &msg);
  if (rc) {
    ld_buf_put(out, msg.p ? msg.p : "report failed", msg.p ? msg.n : 13);
  } else {
    char *data = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&data, &size);
    if (!f) ld_oom();
    rp_write_json(r, f);
    fclose(f);
    ld_buf_put(out, data, size);
    free(data);
  }
  ld_buf_free(&msg);
  return rc ? -1 : 0;
}

/* The report tools: read_section (one section) and findings. */
static int report_tool(mcp *m, yajl_val args, ld_buf *out, const char *section) {
  const char *scope = get_string(args, "scope");
  long long top = get_int(args, "top", 15);
  if (scope && strcmp(scope, "steps") && strcmp(scope, "trace") && strcmp(scope, "hta")) {
    put_cstr(out, "scope is steps, trace or hta");
    return -1;
  }
  if (!scope) scope = "steps";
  char *path = allowed(m, get_string(args, "db"), 1, out);
  if (!path) return -1;
  ld_buf msg = {0};
  capture c;
  capture_begin(&c);
  sqlite3 *db = cli_open_db(path, 1);
  int bad = !db || cli_check_schema(db, path);
  capture_end(&c, &msg);
  int rc = -1;
  if (bad) {
    ld_buf_put(out, msg.p ? msg.p : "", msg.n);
  } else {
    rp_param params[] = {
        {"top", SQLITE_INTEGER, top > 0 ? (top < TOP_MAX ? top : TOP_MAX) : 15, 0},
        {"include_warmup", SQLITE_INTEGER, 0, 0},
        {"scope_trace", SQLITE_INTEGER, strcmp(scope, "steps") != 0, 0},
        {"scope_hta", SQLITE_INTEGER, !strcmp(scope, "hta"), 0},
        {"gpu_bytes", SQLITE_NULL, 0, 0},
        {"trace_id", SQLITE_NULL, 0, 0},
        {"snapshot_id", SQLITE_NULL, 0, 0},
    };
    rp_report r = {0};
    r.kind = &rp_kind_report;
    r.time_scope = scope;
    r.db = db;
    r.queries_dir = m->queries_dir;
    r.params = params;
    r.nparams = (int)(sizeof params / sizeof params[0]);
    r.inputs = &path;
    r.ninputs = 1;
    r.with_findings = section == NULL;
    rc = run_to_json(&r, &section, section ? 1 : 0, out);
    rp_free(&r);
  }
  if (db) sqlite3_close(db);
  ld_buf_free(&msg);
  free(path);
  return rc;
}

static int tool_read_section(mcp *m, yajl_val args, ld_buf *out) {
  const char *id = get_string(args, "section");
  if (!id || !*id) {
    put_cstr(out, "give section: an id of list_sections");
    return -1;
  }
  if (!strcmp(id, "findings")) return report_tool(m, args, out, NULL);
  return report_tool(m, args, out, id);
}

static int tool_findings(mcp *m, yajl_val args, ld_buf *out) {
  return report_tool(m, args, out, NULL);
}

static int tool_diff(mcp *m, yajl_val args, ld_buf *out) {
  int ngate = 0, nonly = 0, rc = -1;
  const char **checks = get_strings(args, "gate", &ngate);
  const char **only = get_strings(args, "sections", &nonly);
  char *before = allowed(m, get_string(args, "before"), 1, out), *after = NULL;
  if (before) after = allowed(m, get_string(args, "after"), 1, out);
  cli_gate gate = {0};
  sqlite3 *db = NULL;
  ld_buf msg = {0};
  capture c;
  if (!after) goto done;
  if (ngate < 0 || nonly < 0) {
    put_cstr(out, "gate and sections are arrays of strings");
    goto done;
  }
  int dbrc;
  capture_begin(&c);
  int bad = 0;
  for (int i = 0; i < ngate && !bad; i++) bad = cli_gate_add(&gate, checks[i]) != 0;
  if (!bad) db = cli_open_pair(before, after, &dbrc);
  capture_end(&c, &msg);
  if (bad || !db) {
    ld_buf_put(out, msg.p ? msg.p : "", msg.n);
    goto done;
  }
  rp_param params[] = {
      {"top", SQLITE_INTEGER, 15, 0},
      {"include_warmup", SQLITE_INTEGER, 0, 0},
      {"line_tolerance", SQLITE_INTEGER, 0, 0},
  };
  const char *inputs[2] = {before, after};
  rp_report r = {0};
  r.kind = &rp_kind_diff;
  r.db = db;
  r.queries_dir = m->queries_dir;
  r.params = params;
  r.nparams = 3;
  r.inputs = (char **)inputs;
  r.ninputs = 2;
  r.with_findings = 1;
  if (ngate) {
    /* the gate is judged after rp_run: run, gate, then write */
    capture_begin(&c);
    /* a category/kernel NAME in neither run is an error, as on the command
    ** line, unless allow_missing */
    gate.allow_missing = YAJL_IS_TRUE(get(args, "allow_missing", yajl_t_true));
    int bad_run = (nonly && rp_load_sections(&r, only, nonly)) || rp_run(&r) ||
                  cli_gate_run(&gate, &r) || cli_gate_find_missing(&gate, &r) < 0 ||
                  cli_gate_report_missing(&gate, 1);
    capture_end(&c, &msg);
    if (bad_run) {
      ld_buf_put(out, msg.p ? msg.p : "", msg.n);
    } else {
      char *data = NULL;
      size_t size = 0;
      FILE *f = open_memstream(&data, &size);
      if (!f) ld_oom();
      rp_write_json(&r, f);
      fclose(f);
      ld_buf_put(out, data, size);
      free(data);
      rc = 0;
    }
  } else {
    rc = run_to_json(&r, only, nonly, out);
  }
  rp_free(&r);
done:
  if (db) sqlite3_close(db);
  cli_gate_free(&gate);
  ld_buf_free(&msg);
  free(checks);
  free(only);
  free(before);
  free(after);
  return rc;
}

/* ---- tools/list ---------------------------------------------------------- */

#define DB_PROP \
  "\"db\": {\"type\": \"string\", \"description\": \"a profdb database (.db) path\"}"
#define SCOPE_PROP                                                                           \
  "\"scope\": {\"type\": \"string\", \"enum\": [\"steps\", \"trace\", \"hta\"], "            \
  "\"description\": \"steps: the analysed ProfilerSteps (default); trace: the whole trace; " \
  "hta: HolisticTraceAnalysis' scope\"}"

static const struct {
  const char *name;
  tool_fn fn;
  const char *description;
  const char *schema; /* the inputSchema's properties and required */
} tools[] = {
    {"load", tool_load,
     "Load PyTorch profiler traces (Kineto JSON, .json.gz) and CUDA memory snapshots (JSON), "
     "or "
     "folders of them, into a profdb SQLite database (created, or appended to). Atomic. Do "
     "this "
     "first; then findings, read_section or sql on the database.",
     "\"properties\": {\"inputs\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}, "
     "\"description\": \"trace / snapshot files or folders\"}, " DB_PROP
     ", \"run\": {\"type\": \"string\", \"description\": \"the inputs are ranks of this "
     "run\"}, "
     "\"replace\": {\"type\": \"boolean\", \"description\": \"reload inputs already "
     "loaded\"}}, "
     "\"required\": [\"inputs\", \"db\"]"},
    {"findings", tool_findings,
     "The report's findings: what to fix first, ranked by the step time or memory the fix can "
     "save at most, each with observation, hypothesis, action, expected saving, the metric "
     "that validates the fix, confidence and the sections it rests on (JSON of profdb report "
     "--json, findings only).",
     "\"properties\": {" DB_PROP ", " SCOPE_PROP "}, \"required\": [\"db\"]"},
    {"list_sections", tool_list_sections,
     "The ids and titles of the report's sections (kind report, default) or of the diff's "
     "(kind diff), for read_section and diff.",
     "\"properties\": {\"kind\": {\"type\": \"string\", \"enum\": [\"report\", \"diff\"]}}"},
    {"read_section", tool_read_section,
     "One report section as JSON (columns with units and descriptions, rows; times in ns, "
     "sizes in bytes), as profdb report --json --section ID writes it.",
     "\"properties\": {" DB_PROP ", \"section\": {\"type\": \"string\", \"description\": \"an "
     "id of list_sections\"}, " SCOPE_PROP ", \"top\": {\"type\": \"integer\", \"minimum\": 1, "
     "\"maximum\": 10000, \"description\": \"rows of top-N tables (default 15)\"}}, "
     "\"required\": [\"db\", \"section\"]"},
    {"sql", tool_sql,
     "Run one read-only SQL statement on a profdb database (SQLite, with profdb's functions: "
     "kernel_category(name), op_family(name), mem_peak(snapshot, device), "
     "interval_union(start, "
     "end), ...). ts and dur are integer ns. Writing statements are refused. "
     "SELECT sql FROM sqlite_schema WHERE name = 'kernel' explains a table or view.",
     "\"properties\": {" DB_PROP
     ", \"query\": {\"type\": \"string\"}, \"max_rows\": {\"type\": "
     "\"integer\", \"minimum\": 1, \"maximum\": 10000, \"description\": \"default 200\"}, "
     "\"timeout_ms\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 60000, "
     "\"description\": \"default 10000\"}}, \"required\": [\"db\", \"query\"]"},
    {"diff", tool_diff,
     "Compare two runs (profdb databases): the verdict (step time, kernels, utilization, "
     "memory, caveats), the gate when checks are given (e.g. 'step_time > +5%', 'ooms > 0'), "
     "and the diff sections asked for (list_sections kind diff); JSON of profdb diff --json.",
     "\"properties\": {\"before\": {\"type\": \"string\"}, \"after\": {\"type\": \"string\"}, "
     "\"gate\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}, \"sections\": "
     "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}, \"allow_missing\": "
     "{\"type\": \"boolean\", \"description\": \"let a category[NAME] or kernel[NAME] check "
     "whose NAME is in neither run pass unevaluated (default: an error naming the closest "
     "names)\"}}, "
     "\"required\": [\"before\", \"after\"]"},
};
#define NTOOLS ((int)(sizeof tools / sizeof tools[0]))

/* ---- JSON-RPC ----------------------------------------------------------- */

static void put_id(ld_buf *b, const msg_id *id) {
  if (id && id->kind == ID_TEXT)
    ld_buf_put(b, id->text, id->n);
  else
    put_cstr(b, "null");
}

static void send_line(mcp *m, ld_buf *b) {
  ld_buf_putc(b, '\n');
  fwrite(b->p, 1, b->n, m->out);
  fflush(m->out);
}

static void send_error(mcp *m, const msg_id *id, int code, const char *message) {
  ld_buf b = {0};
  put_cstr(&b, "{\"jsonrpc\": \"2.0\", \"id\": ");
  put_id(&b, id);
  char c[64];
  snprintf(c, sizeof c, ", \"error\": {\"code\": %d, \"message\": ", code);
  put_cstr(&b, c);
  put_str(&b, message);
  put_cstr(&b, "}}");
  send_line(m, &b);
  ld_buf_free(&b);
}

/* result: JSON text */
static void send_result(mcp *m, const msg_id *id, const char *result, size_t n) {
  ld_buf b = {0};
  put_cstr(&b, "{\"jsonrpc\": \"2.0\", \"id\": ");
  put_id(&b, id);
  put_cstr(&b, ", \"result\": ");
  ld_buf_put(&b, result, n);
  put_cstr(&b, "}");
  send_line(m, &b);
  ld_buf_free(&b);
}

static void initialize(mcp *m, const msg_id *id, yajl_val params) {
  const char *asked = get_string(params, "protocolVersion"), *answer = versions[0];
  for (int i = 0; asked && versions[i]; i++)
    if (!strcmp(asked, versions[i])) answer = versions[i];
  ld_buf b = {0};
  put_cstr(&b, "{\"protocolVersion\": ");
  put_str(&b, answer);
  put_cstr(&b,
           ", \"capabilities\": {\"tools\": {\"listChanged\": false}}, "
           "\"serverInfo\": {\"name\": \"profdb\", \"version\": ");
  put_str(&b, PROFDB_VERSION);
  put_cstr(&b, "}, \"instructions\": ");
  put_str(&b,
          "profdb answers where the time and GPU memory of a PyTorch job went. Load "
          "profiler traces and memory snapshots with load, then read findings first; "
          "read_section and sql for details, diff to compare two runs. Times are "
          "integer ns, sizes bytes. Paths must lie inside the allowed folders.");
  put_cstr(&b, "}");
  send_result(m, id, b.p, b.n);
  ld_buf_free(&b);
}

static void list_tools(mcp *m, const msg_id *id) {
  ld_buf b = {0};
  put_cstr(&b, "{\"tools\": [");
  for (int i = 0; i < NTOOLS; i++) {
    put_cstr(&b, i ? ", {\"name\": " : "{\"name\": ");
    put_str(&b, tools[i].name);
    put_cstr(&b, ", \"description\": ");
    put_str(&b, tools[i].description);
    put_cstr(&b, ", \"inputSchema\": {\"type\": \"object\", ");
    put_cstr(&b, tools[i].schema);
    put_cstr(&b, "}}");
  }
  put_cstr(&b, "]}");
  send_result(m, id, b.p, b.n);
  ld_buf_free(&b);
}

/* nul_args: an argument holds U+0000, which the tree would cut. */
static void call_tool(mcp *m, const msg_id *id, yajl_val params, int nul_args) {
  const char *name = get_string(params, "name");
  yajl_val args = get(params, "arguments", yajl_t_object);
  for (int i = 0; name && i < NTOOLS; i++) {
    if (strcmp(name, tools[i].name)) continue;
    ld_buf text = {0}, b = {0};
    /* Requirement 6: this call's own limits */
    rp_sandbox_reset_deadline();
    sqlite3_int64 heap = sqlite3_hard_heap_limit64(-1);
    if (tools[i].fn != tool_load) sqlite3_hard_heap_limit64(CALL_HEAP_MAX);
    int rc = -1;
    if (nul_args)
      put_cstr(&text,
               "an argument holds U+0000 (NUL), which no path, query or name of this "
               "tool may hold");
    else
      rc = tools[i].fn(m, args, &text);
    sqlite3_hard_heap_limit64(heap);
    if (text.n > ANSWER_MAX) {
      char why[200];
      snprintf(why, sizeof why,
               "the answer is %zu bytes, more than the %d MiB this server sends: ask for less "
               "(max_rows, top, fewer sections)",
               text.n, ANSWER_MAX >> 20);
      text.n = 0;
      put_cstr(&text, why);
      rc = -1;
    }
    put_cstr(&b, "{\"content\": [{\"type\": \"text\", \"text\": ");
    ld_buf_put_json_string(&b, text.p ? text.p : "", text.n);
    put_cstr(&b, rc ? "}], \"isError\": true}" : "}], \"isError\": false}");
    send_result(m, id, b.p, b.n);
    ld_buf_free(&text);
    ld_buf_free(&b);
    return;
  }
  char why[256];
  snprintf(why, sizeof why, "unknown tool '%.200s'", name ? name : "");
  send_error(m, id, -32602, why);
}

/* Answers a message that msg_check refused, or one whose id is not an
** id, or that holds a NUL where one is not kept; 0 when it is none. */
static int refuse(mcp *m, const msg_scan *s, msg_status st, int cut) {
  const msg_id *id = s->id.kind == ID_TEXT || s->id.kind == ID_NULL ? &s->id : NULL;
  char why[160];
  if (cut) {
    snprintf(why, sizeof why,
             "invalid request: a message longer than %u bytes (4 MiB); the line was dropped",
             MSG_LINE_MAX);
    send_error(m, id, -32600, why);
  } else if (st == MSG_NOT_JSON || st == MSG_NOT_UTF8) {
    send_error(m, NULL, -32700,
               st == MSG_NOT_JSON ? "parse error: not JSON" : "parse error: not UTF-8");
  } else if (st == MSG_TOO_DEEP) {
    snprintf(why, sizeof why, "invalid request: arrays and objects nested deeper than %d",
             MSG_DEPTH_MAX);
    send_error(m, id, -32600, why);
  } else if (st == MSG_TOO_MANY) {
    snprintf(why, sizeof why, "invalid request: more than %d values in one message",
             MSG_VALUES_MAX);
    send_error(m, id, -32600, why);
  } else if (s->id.kind == ID_BAD) {
    send_error(m, NULL, -32600, "invalid request: an id is a string, a number or null");
  } else if (s->nul) {
    send_error(m, id, -32600,
               "invalid request: a key or string holds U+0000 (only an id or a tool's "
               "argument may)");
  } else {
    return 0;
  }
  return 1;
}

static void handle(mcp *m, const char *line, size_t n, int cut) {
  size_t blank = 0;
  while (blank < n && (line[blank] == ' ' || line[blank] == '\t' || line[blank] == '\r'))
    blank++;
  if (blank == n && !cut) return; /* a blank line: nothing to answer */
  msg_scan s;
  msg_status st = msg_check(&s, line, n);
  if (refuse(m, &s, st, cut)) return;
  const msg_id *id = s.id.kind == ID_NONE ? NULL : &s.id;
  char err[256];
  yajl_val msg = yajl_tree_parse(line, err, sizeof err);
  if (!msg) { /* msg_check passed it: memory */
    send_error(m, id, -32603, "internal error: out of memory reading the message");
    return;
  }
  const char *method = get_string(msg, "method");
  if (!YAJL_IS_OBJECT(msg) || !method) {
    /* a response from the client, or not a request: nothing to answer
    ** unless it is malformed */
    if (!YAJL_IS_OBJECT(msg) || get(msg, "method", yajl_t_any) ||
        (!get(msg, "result", yajl_t_any) && !get(msg, "error", yajl_t_any)))
      send_error(m, id, -32600, "invalid request");
    yajl_tree_free(msg);
    return;
  }
  yajl_val params = get(msg, "params", yajl_t_object);
  if (!id) { /* a notification (notifications/initialized, cancelled): no answer */
  } else if (!strcmp(method, "initialize"))
    initialize(m, id, params);
  else if (!strcmp(method, "ping"))
    send_result(m, id, "{}", 2);
  else if (!strcmp(method, "tools/list"))
    list_tools(m, id);
  else if (!strcmp(method, "tools/call"))
    call_tool(m, id, params, s.nul_args);
  else
    send_error(m, id, -32601, "method not found");
  yajl_tree_free(msg);
}

int cli_mcp(int argc, char **argv) {
  mcp m = {0};
  const char *queries = NULL;
  int rc = PROFDB_EXIT_USAGE;
  sqlite_memory();
  m.allow = calloc((size_t)argc + 1, sizeof *m.allow);
  if (!m.allow) return rc;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(mcp_usage, stdout);
      rc = PROFDB_EXIT_OK;
      goto done;
    } else if (!strcmp(argv[i], "--allow") && i + 1 < argc) {
      char real[PATH_MAX];
      struct stat st;
      if (!realpath(argv[++i], real) || stat(real, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "profdb: mcp: --allow %s: not a folder\n", argv[i]);
        goto done;
      }
      m.allow[m.nallow++] = strdup(real);
    } else if (!strcmp(argv[i], "--queries") && i + 1 < argc) {
      queries = argv[++i];
    } else {
      fprintf(stderr, "profdb: mcp: unknown argument '%s'\n\n%s", argv[i], mcp_usage);
      goto done;
    }
  }
  if (m.nallow == 0) {
    fprintf(stderr, "profdb: mcp: give at least one --allow DIR\n\n%s", mcp_usage);
    goto done;
  }
  char *looked = NULL;
  m.queries_dir = rp_find_queries(queries, &looked);
  if (!m.queries_dir) {
    fprintf(stderr, "profdb: mcp: cannot find the query files; looked in:\n%s",
            looked ? looked : "");
    free(looked);
    goto done;
  }
  /* The protocol owns stdout; whatever else would print there goes to
  ** stderr. */
  int proto = dup(1);
  if (proto < 0 || !(m.out = fdopen(proto, "w"))) goto done;
  fflush(stdout);
  dup2(2, 1);
  reader *in = calloc(1, sizeof *in);
  ld_buf line = {0};
  int cut;
  if (!in) ld_oom();
  while (read_line(in, &line, &cut)) {
    if (!cut && line.n > 0 && line.p[line.n - 1] == '\r') line.p[--line.n] = 0;
    if (line.n > 0 || cut) handle(&m, line.p, line.n, cut);
  }
  ld_buf_free(&line);
  free(in);
  fclose(m.out);
  rc = PROFDB_EXIT_OK;
done:
  for (int i = 0; i < m.nallow; i++) free(m.allow[i]);
  free(m.allow);
  free(m.queries_dir);
  return rc;
}
