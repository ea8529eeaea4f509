/*
** mcp.h — the parts of `profdb mcp` (internal):
**   mcp_server.c   the JSON-RPC loop: messages in, answers out, tools/list
**                  and tools/call, each call's limits
**   mcp_tools.c    the tools (load, findings, list_sections, read_section,
**                  diff) and their descriptions and input schemas
**   mcp_sql.c      the sql tool, in a worker process with its deadline
**   mcp_sandbox.c  what a call may touch: paths inside --allow, SQLite's
**                  memory, stderr captured into the answer
**   mcp_args.c     reading a call's arguments (JSON) and the report's
**                  options among them (report_params.h)
**   mcp_message.c  the bounds of a message, checked before it is parsed
*/
#ifndef PROFDB_MCP_H
#define PROFDB_MCP_H

#include "buf.h"
#include "report_params.h"

#include <yajl/yajl_tree.h>

#define ANSWER_MAX (16 << 20)     /* bytes of a tool's result text */
#define CALL_HEAP_MAX (1LL << 30) /* SQLite's memory in one call (but load's) */

typedef struct mcp {
  char **allow;      /* real paths of the --allow folders */
  int nallow;        /*   their number */
  FILE *out;         /* the protocol's stdout */
  char *queries_dir; /* the report's query files */
} mcp;

/* A tool writes its result text into out and returns 0, or its error
** message into out and returns -1. */
typedef int (*mcp_tool_fn)(mcp *m, yajl_val args, ld_buf *out);

typedef struct mcp_tool {
  const char *name;
  mcp_tool_fn fn;
  const char *description;
  const char *schema;   /* the inputSchema's properties (JSON members) ... */
  unsigned options;     /* ... and the report's options (RPO_REPORT, RPO_DIFF) */
  const char *required; /* the inputSchema's required (a JSON array), or NULL */
  int heap_limited;     /* runs under CALL_HEAP_MAX */
} mcp_tool;

/* mcp_tools.c: the tools, NULL-name terminated. */
extern const mcp_tool mcp_tools[];
/* The inputSchema of tool t (a JSON object) into b. */
void mcp_put_schema(ld_buf *b, const mcp_tool *t);

/* mcp_sql.c */
int mcp_tool_sql(mcp *m, yajl_val args, ld_buf *out);

/* mcp_args.c: JSON text and a call's arguments. */
void mcp_put_str(ld_buf *b, const char *s);
void mcp_put_cstr(ld_buf *b, const char *s);
yajl_val mcp_get(yajl_val v, const char *key, yajl_type type);
const char *mcp_get_string(yajl_val v, const char *key);
long long mcp_get_int(yajl_val v, const char *key, long long dflt);
/* The integer argument key into *v: dflt when absent or null; -1 with
** "KEY is an integer from LO to HI, got VALUE" in out when it is another
** type (a string "ten", a fraction), so a caller's mistake is said, not
** replaced by the default. */
int mcp_get_int_checked(yajl_val v, const char *key, long long lo, long long hi, long long dflt,
                        long long *out_value, ld_buf *out);
/* The strings of an array argument (malloc'd; the strings belong to the
** tree).  *n gets their number; -1 when a member is not a string. */
const char **mcp_get_strings(yajl_val v, const char *key, int *n);
/* The report options of command (RPO_REPORT, RPO_DIFF) among args, checked
** as the command line checks them (and against the server's bounds) into
** v.  -1 with why in out when one is not valid. */
int mcp_get_options(yajl_val args, unsigned command, rpo_values *v, ld_buf *out);

/* mcp_sandbox.c */
/* SQLite's memory: a call that runs out fails, not the server.  Before
** any connection. */
void mcp_sqlite_memory(void);
/* The real path of `path` when it lies inside an allowed folder (malloc'd),
** else NULL with why in err.  must_exist 0: a database to create, whose
** folder must exist and be allowed. */
char *mcp_allowed(const mcp *m, const char *path, int must_exist, ld_buf *err);

/* What the library prints on stderr, kept for the tool's result. */
typedef struct mcp_capture {
  int saved; /* the real stderr */
  FILE *tmp; /* where stderr goes meanwhile */
} mcp_capture;
void mcp_capture_begin(mcp_capture *c);
/* Restores stderr; appends what was printed (trimmed) to msg. */
void mcp_capture_end(mcp_capture *c, ld_buf *msg);

#endif
