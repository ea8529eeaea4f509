/*
** mcp_message.c — one message of `profdb mcp` (mcp_message.h): stdin read
** a line at a time with at most MSG_LINE_MAX bytes kept, and a streaming
** yajl pass that checks strict UTF-8, JSON and the bounds and finds the
** request's id, before mcp_server.c builds a tree of it (yajl_tree_free
** recurses once per level, and a tree takes about 40 times its text:
** docs/reliability.md, C2, C10 and L4).
*/
#include "mcp_message.h"

#include "oom.h"
#include "utf8seq.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static int scan_value(msg_scan *s, int kind) {
  if (++s->values > MSG_VALUES_MAX) {
    s->status = MSG_TOO_MANY;
    return 0;
  }
  if (!s->id_next) return 1;
  s->id_next = 0;
  s->id.kind = kind;
  if (kind == ID_TEXT) { /* the token ends where yajl stands; ':' and blanks before it */
    size_t i = s->id_start, end = yajl_get_bytes_consumed(s->h);
    /* A number yajl finishes only at the end of the input (a line cut at
    ** MSG_LINE_MAX right after it) may be cut itself, and yajl's count is
    ** then of its last call only: no id is echoed rather than a wrong one. */
    if (end <= i || end >= s->n) {
      s->id.kind = ID_NONE;
      return 1;
    }
    while (i < end && s->line[i] && strchr(": \t\r\n", s->line[i])) i++;
    s->id.text = s->line + i;
    s->id.n = end - i;
  }
  return 1;
}

static int scan_null(void *c) {
  return scan_value(c, ID_NULL);
}

static int scan_boolean(void *c, int b) {
  (void)b;
  return scan_value(c, ID_BAD);
}

static int scan_number(void *c, const char *t, size_t n) {
  (void)t, (void)n;
  return scan_value(c, ID_TEXT);
}

/* A NUL would cut the string in the tree: refused, as the message's
** error, or as the tool's when in its arguments. */
static void scan_nul(msg_scan *s, const unsigned char *t, size_t n) {
  if (!memchr(t, 0, n)) return;
  if (s->depth >= 2 && s->key_params && s->key_arguments)
    s->nul_args = 1;
  else
    s->nul = 1;
}

static int scan_string(void *c, const unsigned char *t, size_t n) {
  msg_scan *s = c;
  if (!s->id_next) scan_nul(s, t, n);
  return scan_value(s, ID_TEXT);
}

static int scan_open(void *c) {
  msg_scan *s = c;
  if (!scan_value(s, ID_BAD)) return 0;
  if (++s->depth <= MSG_DEPTH_MAX) return 1;
  s->status = MSG_TOO_DEEP;
  return 0;
}

static int scan_close(void *c) {
  ((msg_scan *)c)->depth--;
  return 1;
}

static int scan_key(void *c, const unsigned char *k, size_t n) {
  msg_scan *s = c;
  if (s->depth == 1) {
    s->key_params = n == 6 && !memcmp(k, "params", 6);
    s->key_arguments = 0;
  } else if (s->depth == 2) {
    s->key_arguments = n == 9 && !memcmp(k, "arguments", 9);
  }
  scan_nul(s, k, n);
  if (s->depth == 1 && n == 2 && !memcmp(k, "id", 2) && s->id.kind == ID_NONE) {
    s->id_next = 1;
    s->id_start = yajl_get_bytes_consumed(s->h);
  }
  return 1;
}

msg_status msg_check(msg_scan *s, const char *line, size_t n) {
  static const yajl_callbacks cb = {scan_null,   scan_boolean, NULL,      NULL,
                                    scan_number, scan_string,  scan_open, scan_key,
                                    scan_close,  scan_open,    scan_close};
  memset(s, 0, sizeof *s);
  s->line = line;
  s->n = n;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)line[i];
    size_t len = c < 0x80 ? 1 : utf8_seq_len((const unsigned char *)line, i, n);
    if (!c || c == '\v' || c == '\f') return MSG_NOT_JSON; /* yajl's blanks, not JSON's */
    if (!len) return MSG_NOT_UTF8; /* yajl checks the form only: overlong, surrogates */
    i += len - 1;
  }
  if (!(s->h = yajl_alloc(&cb, NULL, s))) ld_oom();
  yajl_status st = yajl_parse(s->h, (const unsigned char *)line, n);
  if (st == yajl_status_ok) st = yajl_complete_parse(s->h);
  yajl_free(s->h);
  s->h = NULL;
  if (s->status != MSG_OK) return s->status;
  return st == yajl_status_ok ? MSG_OK : MSG_NOT_JSON;
}

int read_line(reader *r, ld_buf *line, int *cut) {
  int any = 0;
  line->n = 0;
  *cut = 0;
  for (;;) {
    if (r->pos == r->end) {
      ssize_t got = r->eof ? 0 : read(STDIN_FILENO, r->buf, sizeof r->buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        r->eof = 1;
        ld_buf_cstr(line);
        return any;
      }
      r->pos = 0;
      r->end = (size_t)got;
    }
    any = 1;
    const char *from = r->buf + r->pos, *nl = memchr(from, '\n', r->end - r->pos);
    size_t take = nl ? (size_t)(nl - from) : r->end - r->pos;
    size_t keep = line->n + take > MSG_LINE_MAX ? MSG_LINE_MAX - line->n : take;
    if (keep < take) *cut = 1;
    ld_buf_put(line, from, keep);
    r->pos += take + (nl != NULL);
    if (nl) {
      ld_buf_cstr(line);
      return 1;
    }
  }
}
