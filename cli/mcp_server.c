/*
** mcp_server.c — `profdb mcp --allow DIR...`: a Model Context Protocol server
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
** tools/list, tools/call.  The tools (mcp_tools.c, mcp_sql.c) call the
** same code as the CLI; mcp.h lists the parts of the server.
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
**   7. The report and diff tools take the options of `profdb report` and
**      `profdb diff` (report_params.c: their schema is generated from it),
**      and a value the command line would refuse fails the call with the
**      command line's reason.
*/
#include "cli.h"
#include "mcp.h"
#include "mcp_message.h"
#include "oom.h"
#include "report.h"

#include "profdb/profdb.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ---- JSON-RPC ----------------------------------------------------------- */

static void put_id(ld_buf *b, const msg_id *id) {
  if (id && id->kind == ID_TEXT)
    ld_buf_put(b, id->text, id->n);
  else
    mcp_put_cstr(b, "null");
}

static void send_line(mcp *m, ld_buf *b) {
  ld_buf_putc(b, '\n');
  fwrite(b->p, 1, b->n, m->out);
  fflush(m->out);
}

static void send_error(mcp *m, const msg_id *id, int code, const char *message) {
  ld_buf b = {0};
  mcp_put_cstr(&b, "{\"jsonrpc\": \"2.0\", \"id\": ");
  put_id(&b, id);
  char c[64];
  snprintf(c, sizeof c, ", \"error\": {\"code\": %d, \"message\": ", code);
  mcp_put_cstr(&b, c);
  mcp_put_str(&b, message);
  mcp_put_cstr(&b, "}}");
  send_line(m, &b);
  ld_buf_free(&b);
}

/* result: JSON text */
static void send_result(mcp *m, const msg_id *id, const char *result, size_t n) {
  ld_buf b = {0};
  mcp_put_cstr(&b, "{\"jsonrpc\": \"2.0\", \"id\": ");
  put_id(&b, id);
  mcp_put_cstr(&b, ", \"result\": ");
  ld_buf_put(&b, result, n);
  mcp_put_cstr(&b, "}");
  send_line(m, &b);
  ld_buf_free(&b);
}

static void initialize(mcp *m, const msg_id *id, yajl_val params) {
  const char *asked = mcp_get_string(params, "protocolVersion"), *answer = versions[0];
  for (int i = 0; asked && versions[i]; i++)
    if (!strcmp(asked, versions[i])) answer = versions[i];
  ld_buf b = {0};
  mcp_put_cstr(&b, "{\"protocolVersion\": ");
  mcp_put_str(&b, answer);
  mcp_put_cstr(&b,
               ", \"capabilities\": {\"tools\": {\"listChanged\": false}}, "
               "\"serverInfo\": {\"name\": \"profdb\", \"version\": ");
  mcp_put_str(&b, PROFDB_VERSION);
  mcp_put_cstr(&b, "}, \"instructions\": ");
  mcp_put_str(&b,
              "profdb answers where the time and GPU memory of a PyTorch job went. Load "
              "profiler traces and memory snapshots with load, then read findings first; "
              "read_section and sql for details, diff to compare two runs. Times are "
              "integer ns, sizes bytes. Paths must lie inside the allowed folders.");
  mcp_put_cstr(&b, "}");
  send_result(m, id, b.p, b.n);
  ld_buf_free(&b);
}

static void list_tools(mcp *m, const msg_id *id) {
  ld_buf b = {0};
  mcp_put_cstr(&b, "{\"tools\": [");
  for (const mcp_tool *t = mcp_tools; t->name; t++) {
    mcp_put_cstr(&b, t == mcp_tools ? "{\"name\": " : ", {\"name\": ");
    mcp_put_str(&b, t->name);
    mcp_put_cstr(&b, ", \"description\": ");
    mcp_put_str(&b, t->description);
    mcp_put_cstr(&b, ", \"inputSchema\": ");
    mcp_put_schema(&b, t);
    mcp_put_cstr(&b, "}");
  }
  mcp_put_cstr(&b, "]}");
  send_result(m, id, b.p, b.n);
  ld_buf_free(&b);
}

/* nul_args: an argument holds U+0000, which the tree would cut. */
static void call_tool(mcp *m, const msg_id *id, yajl_val params, int nul_args) {
  const char *name = mcp_get_string(params, "name");
  yajl_val args = mcp_get(params, "arguments", yajl_t_object);
  for (const mcp_tool *t = mcp_tools; name && t->name; t++) {
    if (strcmp(name, t->name)) continue;
    ld_buf text = {0}, b = {0};
    /* Requirement 6: this call's own limits */
    rp_sandbox_reset_deadline();
    sqlite3_int64 heap = sqlite3_hard_heap_limit64(-1);
    if (t->heap_limited) sqlite3_hard_heap_limit64(CALL_HEAP_MAX);
    int rc = -1;
    if (nul_args)
      mcp_put_cstr(&text,
                   "an argument holds U+0000 (NUL), which no path, query or name of this "
                   "tool may hold");
    else
      rc = t->fn(m, args, &text);
    sqlite3_hard_heap_limit64(heap);
    if (text.n > ANSWER_MAX) {
      char why[200];
      snprintf(why, sizeof why,
               "the answer is %zu bytes, more than the %d MiB this server sends: ask for less "
               "(max_rows, top, fewer sections)",
               text.n, ANSWER_MAX >> 20);
      text.n = 0;
      mcp_put_cstr(&text, why);
      rc = -1;
    }
    mcp_put_cstr(&b, "{\"content\": [{\"type\": \"text\", \"text\": ");
    ld_buf_put_json_string(&b, text.p ? text.p : "", text.n);
    mcp_put_cstr(&b, rc ? "}], \"isError\": true}" : "}], \"isError\": false}");
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
  const char *method = mcp_get_string(msg, "method");
  if (!YAJL_IS_OBJECT(msg) || !method) {
    /* a response from the client, or not a request: nothing to answer
    ** unless it is malformed */
    if (!YAJL_IS_OBJECT(msg) || mcp_get(msg, "method", yajl_t_any) ||
        (!mcp_get(msg, "result", yajl_t_any) && !mcp_get(msg, "error", yajl_t_any)))
      send_error(m, id, -32600, "invalid request");
    yajl_tree_free(msg);
    return;
  }
  yajl_val params = mcp_get(msg, "params", yajl_t_object);
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
  mcp_sqlite_memory();
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
  if (!(m.queries_dir = cli_find_queries(queries, "mcp"))) goto done;
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
