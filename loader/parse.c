/*
** parse.c — the read/parse loop shared by the trace and snapshot parsers,
** and the diagnostics helpers (import_log, import_stats, fatal errors).
**
** Requirement 1: offsets in messages are decompressed byte offsets, the
**   sum of earlier chunk lengths plus yajl_get_bytes_consumed().
** Requirement 2: a file that ends inside the JSON value is *truncated*
**   (complete events are kept); a syntax error before the end is fatal.
*/
#include "loader.h"
#include "oom.h"
#include "clock.h"
#include "progress.h"
#include "utf8.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct {
  const char *name;
  profdb_severity severity;
  const char *description;
} stat_info[PROFDB_STAT__COUNT] = {
#define STAT_ROW(name, sev, desc) {#name, PROFDB_SEV_##sev, desc},
    PROFDB_STATS(STAT_ROW)
#undef STAT_ROW
};

static const char *severity_name(profdb_severity s) {
  return s == PROFDB_SEV_INFO ? "info" : s == PROFDB_SEV_WARN ? "warning" : "error";
}

uint64_t ld_offset(const ld_file *f) {
  uint64_t off = f->in.offset;
  if (f->yajl) off += yajl_get_bytes_consumed(f->yajl);
  return off;
}

void ld_text(ld_file *f, const char **s, size_t *n) {
  if (utf8_repair(*s, *n, &f->scratch, s, n))
    ld_note(f, PROFDB_STAT_invalid_utf8, "invalid UTF-8 in a string, repaired");
}

int64_t ld_string(ld_file *f, const char *s, size_t n) {
  int is_new;
  ld_text(f, &s, &n);
  int64_t id = intern_id(f->ctx->strings, s, n, &is_new);
  if (is_new) {
    ld_buf *b = writer_batch(f->ctx->w);
    row_begin(b, TB_STRING);
    row_int(b, COL_STRING_ID, id);
    row_text(b, COL_STRING_VALUE, s, n);
  }
  return id;
}

static void note_va(ld_file *f, profdb_stat stat, uint64_t offset, const char *fmt,
                    va_list ap) {
  f->stats[stat]++;
  if (!fmt || f->logged[stat] >= LD_LOG_LIMIT) return;
  f->logged[stat]++;
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  ld_buf *b = writer_batch(f->ctx->w);
  row_begin(b, TB_LOG);
  row_int(b, COL_IMPORT_LOG_ARTIFACT_ID, f->artifact_id);
  row_text(b, COL_IMPORT_LOG_FILE, f->path, strlen(f->path));
  row_int(b, COL_IMPORT_LOG_OFFSET, (int64_t)offset);
  const char *sev = severity_name(stat_info[stat].severity);
  row_text(b, COL_IMPORT_LOG_SEVERITY, sev, strlen(sev));
  row_text(b, COL_IMPORT_LOG_CODE, stat_info[stat].name, strlen(stat_info[stat].name));
  row_text(b, COL_IMPORT_LOG_MESSAGE, msg, strlen(msg));
}

void ld_note(ld_file *f, profdb_stat stat, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  note_va(f, stat, ld_offset(f), fmt, ap);
  va_end(ap);
}

void ld_note_at(ld_file *f, profdb_stat stat, uint64_t offset, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  note_va(f, stat, offset, fmt, ap);
  va_end(ap);
}

int ld_fail(ld_file *f, int exit_code, int with_offset, const char *fmt, ...) {
  if (f->exit_code) return 0;
  f->exit_code = exit_code;
  f->has_offset = with_offset;
  if (with_offset) f->err_offset = ld_offset(f);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->message, sizeof f->message, fmt, ap);
  va_end(ap);
  return 0;
}

/* ---- progress ----------------------------------------------------------- */

static void progress(ld_file *f, double t0) {
  double t = ld_seconds();
  double pct =
      f->in.file_size ? 100.0 * (double)f->in.raw_read / (double)f->in.file_size : 100.0;
  double mb = (double)f->in.delivered / 1e6;
  progress_read(f->path, mb, pct, t > t0 ? mb / (t - t0) : 0.0);
}

/* ---- the parse loop ----------------------------------------------------- */

/* yajl does not check what its allocator returns: end here instead. */
static void *token_malloc(void *ctx, size_t n) {
  if (n > LD_MAX_TOKEN) ((ld_file *)ctx)->token_too_long = 1;
  void *p = malloc(n);
  if (!p && n) ld_oom();
  return p;
}
static void *token_realloc(void *ctx, void *p, size_t n) {
  if (n > LD_MAX_TOKEN) ((ld_file *)ctx)->token_too_long = 1;
  void *q = realloc(p, n);
  if (!q && n) ld_oom();
  return q;
}
static void token_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

yajl_handle ld_yajl_alloc(ld_file *f, const yajl_callbacks *callbacks, void *ud) {
  /* yajl copies the functions into the handle. */
  yajl_alloc_funcs funcs = {token_malloc, token_realloc, token_free, f};
  f->token_too_long = 0;
  return yajl_alloc(callbacks, &funcs, ud);
}

int ld_check_token_length(ld_file *f) {
  if (!f->token_too_long) return 0;
  ld_fail(f, PROFDB_EXIT_DATA, 1,
          "a JSON string or number longer than %zu MiB reaches this offset; profdb"
          " refuses tokens that long (real names are far shorter)",
          LD_MAX_TOKEN >> 20);
  return 1;
}

/*
** Error offsets are 0-based byte offsets into the decompressed JSON text:
** the number of bytes before the position, as Python's json error .pos
** (json.JSONDecodeError.pos: the first byte that is wrong).
**
** yajl reports a syntax error at "the end of the token minus its length",
** clamped to the current chunk, so the offset would depend on where chunks
** were cut, and it points past the offending token.  Re-locate it with a
** validation-only pass over 1 MiB chunks (the offset is then a function of
** the file alone), then step back to the start of the token that yajl
** refused: token_start().
*/

/* Where the token ending at chunk[end] (exclusive) starts: one structural
** byte, a string back to its opening quote, or a run of number / literal
** bytes; never before the chunk (a token longer than a chunk keeps the
** chunk's start). */
static size_t token_start(const unsigned char *c, size_t end) {
  if (end == 0) return 0;
  unsigned char b = c[end - 1];
  if (b && strchr("{}[],:", b)) return end - 1;
  if (b == '"') {
    for (size_t i = end - 1; i-- > 0;) {
      size_t k = i;
      while (k > 0 && c[k - 1] == '\\') k--;
      if (c[i] == '"' && (i - k) % 2 == 0) return i;
    }
    return 0;
  }
  size_t i = end;
  while (i > 0 && (isalnum(c[i - 1]) || c[i - 1] == '-' || c[i - 1] == '+' || c[i - 1] == '.'))
    i--;
  return i == end ? end - 1 : i;
}

uint64_t ld_locate_syntax_error(const char *path) {
  ld_input in;
  const unsigned char *p;
  ssize_t n;
  uint64_t at = 0;
  if (input_open(&in, path, 1 << 20)) {
    input_close(&in);
    return 0;
  }
  yajl_handle h = yajl_alloc(NULL, NULL, NULL);
  yajl_config(h, yajl_dont_validate_strings, 1);
  while ((n = input_read(&in, &p)) > 0) {
    if (yajl_parse(h, p, (size_t)n) == yajl_status_error) {
      size_t end = yajl_get_bytes_consumed(h);
      unsigned char *e = yajl_get_error(h, 0, p, (size_t)n);
      /* these two already point at the wrong byte: yajl restores the
      ** offset of an unexpected token inside a map, and stops before a
      ** raw control character inside a string */
      int in_map = e && strstr((const char *)e, "inside map");
      int exact = in_map || (e && strstr((const char *)e, "invalid character inside string"));
      yajl_free_error(h, e);
      /* a restored string token: yajl took back its content's length, so
      ** the offset is 2 past its opening quote (the quotes) */
      if (in_map && end >= 3 && end < (size_t)n && p[end - 2] == '"' && p[end - 3] &&
          strchr(" \t\r\n,:[{", p[end - 3]))
        end -= 2;
      at = in.offset + (exact ? end : token_start(p, end));
      break;
    }
  }
  yajl_free(h);
  input_close(&in);
  return at;
}

/* yajl's message for the current error, without its trailing newline. */
static void yajl_message(ld_file *f, const unsigned char *chunk, size_t len, char *out,
                         size_t outlen) {
  unsigned char *e = yajl_get_error(f->yajl, 0, chunk, len);
  snprintf(out, outlen, "%s", e ? (const char *)e : "parse error");
  yajl_free_error(f->yajl, e);
  size_t n = strlen(out);
  while (n && (out[n - 1] == '\n' || out[n - 1] == ' ')) out[--n] = 0;
}

_Thread_local uint64_t ld_tokens_seen;

/* yajl lexes a token that spans chunks again from its start at every
** chunk, so a long string of escapes (each lexed byte by byte) cost
** quadratic time.  When a whole chunk completed no token, the next chunks
** are gathered and handed to yajl together, each batch twice the bytes of
** the one before: the re-lexing adds up to a few times the token, linear.
** The gathered bytes are bounded by the token cap (LD_MAX_TOKEN). */
typedef struct long_token {
  ld_buf gathered;  /* chunks not yet given to yajl */
  uint64_t offset;  /* decompressed offset of gathered's first byte */
  size_t want;      /* give them at this many bytes; 0: not gathering */
  size_t min_chunk; /* a chunk this long with no token starts gathering */
} long_token;

/* Parse len bytes at offset: 0, or -1 with the failure recorded. */
static int parse_bytes(ld_file *f, long_token *lt, const unsigned char *p, size_t len,
                       uint64_t offset) {
  uint64_t tokens = ld_tokens_seen;
  f->in.offset = offset; /* error offsets count from this buffer */
  yajl_status st = yajl_parse(f->yajl, p, len);
  if (st == yajl_status_client_canceled || f->exit_code || ld_check_token_length(f)) return -1;
  if (st == yajl_status_error) {
    char msg[256];
    yajl_message(f, p, len, msg, sizeof msg);
    ld_fail(f, PROFDB_EXIT_DATA, 1, "invalid JSON: %s", msg);
    f->err_offset = ld_locate_syntax_error(f->path);
    return -1;
  }
  int pending = ld_tokens_seen == tokens && len >= lt->min_chunk;
  size_t cap = LD_MAX_TOKEN + lt->min_chunk;
  lt->want = !pending ? 0 : 2 * len < cap ? 2 * len : cap;
  return 0;
}

/* The next chunk: parsed at once, or gathered while a long token lasts;
** with p == NULL (the end) whatever was gathered is parsed. */
static int parse_chunk(ld_file *f, long_token *lt, const unsigned char *p, size_t len) {
  if (p && !lt->want) return parse_bytes(f, lt, p, len, f->in.offset);
  if (p) {
    if (!lt->gathered.n) lt->offset = f->in.offset;
    ld_buf_put(&lt->gathered, p, len);
    if (lt->gathered.n < lt->want) return 0;
  }
  if (!lt->gathered.n) return 0;
  int rc =
      parse_bytes(f, lt, (const unsigned char *)lt->gathered.p, lt->gathered.n, lt->offset);
  lt->gathered.n = 0;
  return rc;
}

int ld_parse(ld_file *f, const yajl_callbacks *callbacks, void *ud) {
  const unsigned char *chunk = NULL;
  ssize_t n;
  double t0 = ld_seconds();
  f->yajl = ld_yajl_alloc(f, callbacks, ud);
  if (!f->yajl) return ld_fail(f, PROFDB_EXIT_USAGE, 0, "out of memory"), -1;
  /* UTF-8 is checked and repaired per string by ld_text(). */
  yajl_config(f->yajl, yajl_dont_validate_strings, 1);
  long_token lt = {.min_chunk = 64 << 10};
  int rc = 0;
  for (;;) {
    n = input_read(&f->in, &chunk);
    if (n < 0) {
      ld_buf_free(&lt.gathered);
      yajl_free(f->yajl);
      f->yajl = NULL;
      f->has_offset = 1;
      f->err_offset = f->in.error_offset;
      f->exit_code = f->in.error == IN_EGZIP ? PROFDB_EXIT_DATA : PROFDB_EXIT_USAGE;
      snprintf(f->message, sizeof f->message, "%s", f->in.message);
      return -1;
    }
    if (parse_chunk(f, &lt, n ? chunk : NULL, (size_t)n)) {
      rc = -1;
      break;
    }
    if (n == 0) break;
    if (writer_maybe_flush(f->ctx->w)) {
      ld_fail(f, PROFDB_EXIT_USAGE, 0, "%s", writer_error(f->ctx->w));
      rc = -1;
      break;
    }
    progress(f, t0);
  }
  ld_buf_free(&lt.gathered);
  if (rc == 0) {
    f->in.offset = f->in.delivered; /* offsets now count from the end */
    yajl_status st = yajl_complete_parse(f->yajl);
    if (st == yajl_status_client_canceled || f->exit_code)
      rc = -1;
    else if (st == yajl_status_error) {
      /* Every chunk parsed cleanly, so the text is a valid prefix that ended
      ** too soon: a truncated file, unless it was empty. */
      if (f->in.delivered == 0) {
        ld_fail(f, PROFDB_EXIT_DATA, 0, "empty file");
        rc = -1;
      } else {
        f->truncated = 1;
        f->truncated_at = f->in.delivered;
        rc = 1;
      }
    } else if (f->in.gzip_truncated) {
      ld_note(f, PROFDB_STAT_gzip_incomplete,
              "gzip stream ends without its trailer; the JSON is complete");
    }
  }
  if (rc >= 0 && f->in.trailing_bytes)
    ld_note(f, PROFDB_STAT_gzip_trailing_bytes, "%llu bytes after the last gzip member ignored",
            (unsigned long long)f->in.trailing_bytes);
  progress_clear();
  yajl_free(f->yajl);
  f->yajl = NULL;
  return rc;
}

int ld_put_stat(sqlite3 *db, ld_kind kind, int64_t artifact_id, profdb_stat stat,
                int64_t value) {
  static const char sql[] =
      "INSERT OR REPLACE INTO import_stats(artifact_id, artifact, name,"
      " severity, value, description) VALUES(?,?,?,?,?,?)";
  if (!value) return 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, artifact_id);
  sqlite3_bind_text(st, 2, kind == LD_KIND_TRACE ? "trace" : "snapshot", -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, stat_info[stat].name, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 4, severity_name(stat_info[stat].severity), -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 5, value);
  sqlite3_bind_text(st, 6, stat_info[stat].description, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  return rc;
}

int ld_write_stats(ld_file *f) {
  for (int i = 0; i < PROFDB_STAT__COUNT; i++)
    if (ld_put_stat(f->ctx->db, f->kind, f->artifact_id, (profdb_stat)i, (int64_t)f->stats[i]))
      return -1;
  return 0;
}

int ld_timing(void) {
  static int enabled = -1;
  if (enabled < 0) enabled = getenv("PROFDB_TIMING") != NULL;
  return enabled;
}

void ld_phase(ld_ctx *ctx, const char *name) {
  if (!ld_timing()) return;
  double now = ld_seconds();
  if (name && ctx->phase_start > 0) {
    progress_clear();
    fprintf(stderr, "profdb: timing: %-24s %8.3f s\n", name, now - ctx->phase_start);
  }
  ctx->phase_start = now;
}

int ld_exec(ld_ctx *ctx, const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(ctx->db, sql, NULL, NULL, &err) != SQLITE_OK) {
    progress_clear();
    fprintf(ctx->msg, "profdb: database error: %s\n", err ? err : "?");
    sqlite3_free(err);
    return -1;
  }
  return 0;
}
