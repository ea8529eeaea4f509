/*
** stream.c — the parts of the streaming parsers both formats share (see
** stream.h).
*/
#include "stream.h"
#include "numtext.h"

#include <stdio.h>
#include <string.h>

void ld_write_scalar(ld_file *f, ld_jw *w, tok t, const char *s, size_t n) {
  switch (t) {
    case TK_NULL: jw_raw(w, "null", 4); break;
    case TK_TRUE: jw_raw(w, "true", 4); break;
    case TK_FALSE: jw_raw(w, "false", 5); break;
    case TK_NUMBER: {
      int64_t v;
      if (!memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n) &&
          nt_parse_int64(s, n, &v) == NT_OVERFLOW) {
        ld_note(f, PROFDB_STAT_int_beyond_int64, "integer %.*s kept as text",
                (int)(n > 40 ? 40 : n), s);
        jw_string(w, s, n);
      } else {
        jw_raw(w, s, n);
      }
      break;
    }
    case TK_STRING:
      ld_text(f, &s, &n);
      jw_string(w, s, n);
      break;
    default: break;
  }
}

int ld_capture_token(ld_file *f, ld_jw *w, int *depth, tok t, const char *s, size_t n) {
  switch (t) {
    case TK_START_MAP:
      jw_open(w, '{');
      ++*depth;
      return 0;
    case TK_START_ARRAY:
      jw_open(w, '[');
      ++*depth;
      return 0;
    case TK_END_MAP:
    case TK_END_ARRAY: jw_close(w, t == TK_END_MAP ? '}' : ']'); return --*depth == 0;
    case TK_KEY:
      ld_text(f, &s, &n);
      jw_key(w, s, n);
      return 0;
    default: ld_write_scalar(f, w, t, s, n); return 0;
  }
}

int ld_finish_artifact(ld_file *f, int truncated, const char *layout, double seconds) {
  int trace = f->kind == LD_KIND_TRACE;
  char hash[17], sql[256];
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)hash_final(&f->in.hash));
  snprintf(sql, sizeof sql,
           "UPDATE %s SET status = ?2, truncated_at = ?3, layout = ?4, json_bytes = ?5,"
           " content_hash = ?6, load_seconds = ?7 WHERE %s = ?1",
           trace ? "trace" : "snapshot", trace ? "trace_id" : "snapshot_id");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(f->ctx->db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, f->artifact_id);
  sqlite3_bind_text(st, 2, truncated ? "truncated" : "ok", -1, SQLITE_STATIC);
  if (truncated) sqlite3_bind_int64(st, 3, (int64_t)f->truncated_at);
  sqlite3_bind_text(st, 4, layout, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 5, (int64_t)f->in.delivered);
  sqlite3_bind_text(st, 6, hash, -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(st, 7, seconds);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  return rc;
}

void ld_summary(ld_file *f, const char *counts, int truncated, double seconds) {
  double mb = (double)f->in.delivered / 1e6;
  fprintf(f->ctx->msg, "profdb: loaded %s: %s=%lld %s bytes=%llu seconds=%.2f MB/s=%.1f%s\n",
          f->path, f->kind == LD_KIND_TRACE ? "trace_id" : "snapshot_id",
          (long long)f->artifact_id, counts, (unsigned long long)f->in.delivered, seconds,
          seconds > 0 ? mb / seconds : 0.0, truncated ? " status=truncated" : "");
}
