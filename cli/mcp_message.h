/*
** mcp_message.h — one message of `profdb mcp`, read and checked within
** bounds before any tree is built (mcp_message.c; used by mcp_server.c).
*/
#ifndef PROFDB_MCP_MESSAGE_H
#define PROFDB_MCP_MESSAGE_H

#include "buf.h"

#include <stddef.h>
#include <yajl/yajl_parse.h>

/* A line past these bounds is refused with a JSON-RPC error and the server
** reads on (docs/reliability.md, C2 and C10): yajl_tree_free recurses once
** per level, and a tree takes about 40 times its text. */
#define MSG_LINE_MAX (4u << 20) /* bytes a line; the rest of a longer one is read and dropped */
#define MSG_DEPTH_MAX 64        /* arrays and objects nested in one another */
#define MSG_VALUES_MAX 100000   /* values in one message */

/* A request's id, answered with the JSON text it came as: a string keeps
** its escapes (\u0000 included), a number its digits (1e400 included). */
typedef struct msg_id {
  enum { ID_NONE, ID_NULL, ID_TEXT, ID_BAD } kind; /* ID_BAD: object, array, boolean */
  const char *text;                                /* ID_TEXT: in the message's line */
  size_t n;                                        /*   its length */
} msg_id;

typedef enum { MSG_OK, MSG_NOT_JSON, MSG_NOT_UTF8, MSG_TOO_DEEP, MSG_TOO_MANY } msg_status;

/* The state of msg_check's streaming pass (yajl callbacks, no tree). */
typedef struct msg_scan {
  yajl_handle h;     /* token offsets in line */
  const char *line;  /* the message */
  size_t n;          /*   its length */
  int depth;         /* open arrays and objects */
  long values;       /* values so far */
  msg_status status; /* MSG_TOO_DEEP / MSG_TOO_MANY once past a bound */
  int nul;           /* a key or string outside params.arguments holds U+0000 */
  int nul_args;      /* one inside params.arguments does (but the id's) */
  int key_params;    /* the current top-level key is "params" */
  int key_arguments; /*   and its current key "arguments" */
  int id_next;       /* the next value is the top-level "id" */
  size_t id_start;   /* where the text after the "id" key starts */
  msg_id id;         /* the first top-level "id" */
} msg_scan;

/* stdin, read a line at a time with no more than MSG_LINE_MAX kept. */
typedef struct reader {
  char buf[65536]; /* read(2) chunks */
  size_t pos, end; /*   the part not consumed yet */
  int eof;         /* read(2) said end of input */
} reader;

/* Checks line[0..n) without building anything: strict UTF-8, JSON, the
** bounds; finds the id (also in a message that fails, where it came
** before the failure). */
msg_status msg_check(msg_scan *s, const char *line, size_t n);

/* The next line of stdin, without its newline, into line (NUL-terminated);
** 0 at the end of input.  *cut: the line was longer than MSG_LINE_MAX;
** line holds its first MSG_LINE_MAX bytes, the rest was read and dropped. */
int read_line(reader *r, ld_buf *line, int *cut);

#endif
