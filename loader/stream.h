/*
** stream.h — what the trace and snapshot parsers share around yajl: the
** token type and the callback adapter, scalar capture into JSON, and the
** end of an artifact (its row's common columns, the summary line).  Each
** parser keeps only its format.
*/
#ifndef PROFDB_STREAM_H
#define PROFDB_STREAM_H

#include "loader.h"

/* The JSON tokens yajl reports, as one handler sees them. */
typedef enum tok {
  TK_NULL,
  TK_TRUE,
  TK_FALSE,
  TK_NUMBER,
  TK_STRING,
  TK_KEY,
  TK_START_MAP,
  TK_END_MAP,
  TK_START_ARRAY,
  TK_END_ARRAY
} tok;

static inline int is_scalar(tok t) {
  return t <= TK_STRING;
}

/* Tokens yajl has completed on this thread (ld_parse sees from it that a
** chunk ended inside one long token). */
extern _Thread_local uint64_t ld_tokens_seen;

/* Define `static const yajl_callbacks name` passing every token to
** `static int handler(void *parser, tok t, const char *s, size_t n)`
** (s, n: the text of numbers, strings and keys).  A macro rather than a
** table of function pointers: the handler is called directly, once per
** token, on the loader's hot path. */
#define LD_TOKEN_CALLBACKS(name, handler)                                                \
  static int name##_null(void *ud) {                                                     \
    ld_tokens_seen++;                                                                    \
    return handler(ud, TK_NULL, NULL, 0);                                                \
  }                                                                                      \
  static int name##_bool(void *ud, int v) {                                              \
    ld_tokens_seen++;                                                                    \
    return handler(ud, v ? TK_TRUE : TK_FALSE, NULL, 0);                                 \
  }                                                                                      \
  static int name##_number(void *ud, const char *s, size_t n) {                          \
    ld_tokens_seen++;                                                                    \
    return handler(ud, TK_NUMBER, s, n);                                                 \
  }                                                                                      \
  static int name##_string(void *ud, const unsigned char *s, size_t n) {                 \
    ld_tokens_seen++;                                                                    \
    return handler(ud, TK_STRING, (const char *)s, n);                                   \
  }                                                                                      \
  static int name##_start_map(void *ud) {                                                \
    ld_tokens_seen++;                                                                    \
    return handler(ud, TK_START_MAP, NULL, 0);                                           \
  }                                                                                      \
  static int name##_key(void *ud, const unsigned char *s, size_t n) {                    \
    ld_tokens_seen++;                                                                    \
    return handler(ud, TK_KEY, (const char *)s, n);                                      \
  }                                                                                      \
  static int name##_end_map(void *ud) {                                                  \
    ld_tokens_seen++;                                                                    \
    return handler(ud, TK_END_MAP, NULL, 0);                                             \
  }                                                                                      \
  static int name##_start_array(void *ud) {                                              \
    ld_tokens_seen++;                                                                    \
    return handler(ud, TK_START_ARRAY, NULL, 0);                                         \
  }                                                                                      \
  static int name##_end_array(void *ud) {                                                \
    ld_tokens_seen++;                                                                    \
    return handler(ud, TK_END_ARRAY, NULL, 0);                                           \
  }                                                                                      \
  static const yajl_callbacks name = {                                                   \
      name##_null,     name##_bool,      NULL,       NULL,           name##_number,      \
      name##_string,   name##_start_map, name##_key, name##_end_map, name##_start_array, \
      name##_end_array}

/* Write a scalar token as JSON into w: strings UTF-8-repaired, integers
** beyond int64 as strings (counted in int_beyond_int64). */
void ld_write_scalar(ld_file *f, ld_jw *w, tok t, const char *s, size_t n);

/* A token inside a value being captured as JSON into w (nested maps and
** arrays, keys, scalars); *depth counts the open brackets.  Returns 1 when
** the token closed the captured value (depth back to 0), else 0. */
int ld_capture_token(ld_file *f, ld_jw *w, int *depth, tok t, const char *s, size_t n);

/* Set the columns every artifact row has (trace or snapshot table): status
** ('ok' or 'truncated' with truncated_at), layout, json_bytes,
** content_hash, load_seconds.  Returns 0 or -1 (sqlite3_errmsg says why). */
int ld_finish_artifact(ld_file *f, int truncated, const char *layout, double seconds);

/* The one-line summary "profdb: loaded PATH: trace_id=N COUNTS bytes=...
** seconds=... MB/s=...[ status=truncated]"; counts is the format's own
** "name=value ..." list. */
void ld_summary(ld_file *f, const char *counts, int truncated, double seconds);

#endif
